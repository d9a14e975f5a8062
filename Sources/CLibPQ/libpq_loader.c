#include "CLibPQ.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// libpq's soname: its major version has been 5 since PostgreSQL 8.2, and its ABI kept.
#define LIBPQ "libpq.so.5"

// Every libpq function the PostgreSQL module calls, as return type, name, parameters and
// the arguments passed on: RETURNING for those with a result, VOID for the others.
#define LIBPQ_FUNCTIONS(RETURNING, VOID) \
    RETURNING(PGconn *, PQconnectdb, (const char *conninfo), (conninfo)) \
    RETURNING(PGconn *, PQconnectStart, (const char *conninfo), (conninfo)) \
    RETURNING(PostgresPollingStatusType, PQconnectPoll, (PGconn *conn), (conn)) \
    RETURNING(int, PQresetStart, (PGconn *conn), (conn)) \
    VOID(PQreset, (PGconn *conn), (conn)) \
    VOID(PQfinish, (PGconn *conn), (conn)) \
    RETURNING(PQconninfoOption *, PQconninfo, (PGconn *conn), (conn)) \
    RETURNING(PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg), (conninfo, errmsg)) \
    VOID(PQconninfoFree, (PQconninfoOption *connOptions), (connOptions)) \
    RETURNING(ConnStatusType, PQstatus, (const PGconn *conn), (conn)) \
    RETURNING(PGTransactionStatusType, PQtransactionStatus, (const PGconn *conn), (conn)) \
    RETURNING(char *, PQerrorMessage, (const PGconn *conn), (conn)) \
    RETURNING(int, PQsocket, (const PGconn *conn), (conn)) \
    RETURNING(int, PQbackendPID, (const PGconn *conn), (conn)) \
    RETURNING(PGresult *, PQexec, (PGconn *conn, const char *query), (conn, query)) \
    RETURNING(PGresult *, PQexecParams, \
              (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, \
               const char *const *paramValues, const int *paramLengths, const int *paramFormats, \
               int resultFormat), \
              (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat)) \
    RETURNING(PGresult *, PQprepare, \
              (PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes), \
              (conn, stmtName, query, nParams, paramTypes)) \
    RETURNING(PGresult *, PQexecPrepared, \
              (PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues, \
               const int *paramLengths, const int *paramFormats, int resultFormat), \
              (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat)) \
    RETURNING(ExecStatusType, PQresultStatus, (const PGresult *res), (res)) \
    RETURNING(char *, PQresultErrorMessage, (const PGresult *res), (res)) \
    RETURNING(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode)) \
    RETURNING(int, PQntuples, (const PGresult *res), (res)) \
    RETURNING(int, PQnfields, (const PGresult *res), (res)) \
    RETURNING(char *, PQfname, (const PGresult *res, int field_num), (res, field_num)) \
    RETURNING(char *, PQcmdStatus, (PGresult *res), (res)) \
    RETURNING(char *, PQcmdTuples, (PGresult *res), (res)) \
    RETURNING(char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    RETURNING(int, PQgetlength, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    RETURNING(int, PQgetisnull, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    VOID(PQclear, (PGresult *res), (res)) \
    RETURNING(int, PQconsumeInput, (PGconn *conn), (conn)) \
    RETURNING(PGnotify *, PQnotifies, (PGconn *conn), (conn)) \
    RETURNING(char *, PQescapeIdentifier, (PGconn *conn, const char *str, size_t len), (conn, str, len)) \
    VOID(PQfreemem, (void *ptr), (ptr)) \
    RETURNING(unsigned char *, PQunescapeBytea, (const unsigned char *strtext, size_t *retbuflen), (strtext, retbuflen))

#define POINTER(type, name, parameters, arguments) type (*name) parameters;
#define VOID_POINTER(name, parameters, arguments) void (*name) parameters;

// libpq's functions, once loaded.
static struct {
    LIBPQ_FUNCTIONS(POINTER, VOID_POINTER)
} libpq;

// Why the load failed; empty when it succeeded.
static char failure[512];
static pthread_once_t loading = PTHREAD_ONCE_INIT;

static const char *dl_reason(void) {
    const char *reason = dlerror();
    return reason != NULL ? reason : "no reason given";
}

static void load(void) {
    void *library = dlopen(LIBPQ, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(failure, sizeof failure,
                 "cannot load " LIBPQ ", PostgreSQL's client library (Debian's package libpq5): %s", dl_reason());
        return;
    }
    __typeof__(libpq) found;
    void *address;
    // A function pointer is copied from dlsym's void * as POSIX allows, byte for byte.
#define LOOK_UP(name) \
    if ((address = dlsym(library, #name)) == NULL) { \
        snprintf(failure, sizeof failure, LIBPQ " has no " #name ": %s", dl_reason()); \
        dlclose(library); \
        return; \
    } \
    memcpy(&found.name, &address, sizeof address);
#define LOOK_UP_RETURNING(type, name, parameters, arguments) LOOK_UP(name)
#define LOOK_UP_VOID(name, parameters, arguments) LOOK_UP(name)
    LIBPQ_FUNCTIONS(LOOK_UP_RETURNING, LOOK_UP_VOID)
    libpq = found;
}

int taskline_libpq_load(char *error, size_t size) {
    pthread_once(&loading, load);
    if (failure[0] == '\0') return 0;
    if (size > 0) snprintf(error, size, "%s", failure);
    return -1;
}

// The functions themselves, hidden from the dynamic symbol table: exported (taskline is
// linked with -export-dynamic), they would take the place of libpq's own in its calls to
// itself.
#define TRAMPOLINE(type, name, parameters, arguments) \
    __attribute__((visibility("hidden"))) type name parameters { return libpq.name arguments; }
#define VOID_TRAMPOLINE(name, parameters, arguments) \
    __attribute__((visibility("hidden"))) void name parameters { libpq.name arguments; }

LIBPQ_FUNCTIONS(TRAMPOLINE, VOID_TRAMPOLINE)
