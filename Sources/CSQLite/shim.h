#include <sqlite3.h>
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static const sqlite3_destructor_type taskline_sqlite_transient = (sqlite3_destructor_type)-1;

// sqlite3_config is variadic, which Swift cannot call. Process-wide, before the first connection.
// - Memory statistics (sqlite3_memory_used) take a global mutex on every allocation SQLite
//   makes; nothing here reads them.
// - A statement journal (every write statement inside a transaction keeps one: a task insert's
//   triggers write other tables, and a failing statement must be undone alone) stays in memory
//   up to 120 KiB, in one allocation, and only a larger one goes to a temporary file. A task
//   insert's is about 70 KiB. (With temp_store = MEMORY SQLite keeps it in 1 KiB pieces instead,
//   which cost a sixth of a one-task commit; with its default limit, 64 KiB, every task insert
//   spilled to a file.) Not 128 KiB or more: SQLite 3.40 writes a spilled journal's first piece
//   in one write of at most 128 KiB - 1 and fails a larger piece with SQLITE_FULL.
// - That piece is 120 KiB, and glibc returns the top of its heap to the kernel once 128 KiB
//   there are free: every write statement then grew the heap with brk, faulted its pages in
//   and gave them back (18,000 page faults in 3,000 creates). A 1 MiB threshold keeps them.
static inline int taskline_sqlite_configure_library(void) {
#ifdef M_TRIM_THRESHOLD
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
#endif
    int rc = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return rc == SQLITE_OK ? sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, 120 * 1024) : rc;
}
