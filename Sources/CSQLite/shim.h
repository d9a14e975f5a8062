#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static const sqlite3_destructor_type taskline_sqlite_transient = (sqlite3_destructor_type)-1;

// sqlite3_config is variadic, which Swift cannot call. Memory statistics (sqlite3_memory_used)
// take a global mutex on every allocation SQLite makes; nothing here reads them.
static inline int taskline_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
