#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static const sqlite3_destructor_type taskline_sqlite_transient = (sqlite3_destructor_type)-1;
