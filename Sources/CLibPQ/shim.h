// pkg-config's libpq.pc puts the headers' folder on the include path (Debian:
// /usr/include/postgresql); without pkg-config, that folder is tried by name.
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif
