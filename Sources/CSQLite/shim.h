#include <sqlite3.h>
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static const sqlite3_destructor_type taskline_sqlite_transient = (sqlite3_destructor_type)-1;

// Taskline's settings for the SQLite library, process-wide, made once before the first
// connection opens (SQLite refuses them afterwards with SQLITE_MISUSE). The one definition,
// called through ProcessSetup by taskline and by the harnesses that must run SQLite as it
// does, and by Benchmarks/sqlite-baseline, so that all of them configure it alike. Here, not
// in Swift, because sqlite3_config is variadic, which Swift cannot call, and Swift's Glibc
// module has no mallopt. Returns an SQLite result code; SQLITE_ERROR when glibc refuses the
// trim threshold.
// - Memory statistics (sqlite3_memory_used) take a global mutex on every allocation SQLite
//   makes; nothing in taskline reads them.
// - A statement journal (an update or deletion of a task inside a transaction keeps one: its
//   triggers write other tables, and a failing statement must be undone alone; a create keeps
//   none, schema 36) stays in memory, in one allocation, up to a limit above such a
//   statement's journal; only a larger one goes to a temporary file. (With temp_store = MEMORY
//   SQLite keeps it in small pieces instead, which cost much of a one-task write; at its
//   default limit, 64 KiB, a task write's journal spilled to a file.)
//   The limit stays below 128 KiB: SQLite writes a spilled journal's first piece in one write
//   of less than 128 KiB and fails a larger piece with SQLITE_FULL.
// - glibc returns the top of its heap to the kernel once 128 KiB there are free: every write
//   statement then grew the heap around its journal with brk, faulted its pages in and gave
//   them back. A 1 MiB threshold keeps them.
// docs/decisions/0006-statement-journals-in-memory.md has the figures.
static inline int taskline_sqlite_configure_library(void) {
#ifdef M_TRIM_THRESHOLD
    if (mallopt(M_TRIM_THRESHOLD, 1024 * 1024) != 1) return SQLITE_ERROR;
#endif
    int rc = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return rc == SQLITE_OK ? sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, 120 * 1024) : rc;
}
