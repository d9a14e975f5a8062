#ifndef CLIBPQ_H
#define CLIBPQ_H

// libpq, PostgreSQL's C client library, loaded when the first PostgreSQL connection opens
// rather than when the process starts: a SQLite-only process maps none of libpq's ~20
// libraries (TLS, Kerberos, LDAP, …), whose loading would cost every start-up several
// milliseconds.
//
// The types, constants and declarations are libpq-fe.h's. The functions the PostgreSQL
// module calls are defined in libpq_loader.c, each passing the call on to libpq.so.5 (a
// call to any other is a link error: add it to the list there). None of them may be called
// before taskline_libpq_load has returned 0.
//
// Debian puts the header in /usr/include/postgresql (libpq-dev), other systems on the
// default include path.
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif

#include <stddef.h>

/// Loads libpq.so.5 (dlopen, RTLD_NOW | RTLD_LOCAL) and looks up the functions above, once
/// per process whichever threads call. 0 when they are ready; -1 when not, with the reason
/// (the library's name and dlerror()'s message) in `error`, cut to `size` bytes and
/// NUL-terminated. A load that failed is not tried again: every call gives the same answer.
int taskline_libpq_load(char *error, size_t size);

#endif
