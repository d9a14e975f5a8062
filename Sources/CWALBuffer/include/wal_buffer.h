#ifndef TASKLINE_WAL_BUFFER_H
#define TASKLINE_WAL_BUFFER_H

// Registers, as SQLite's default, a VFS that is the system's default VFS except that each
// write-ahead log gathers its writes and passes them on in one write per commit (see
// wal_buffer.c). Call once, after sqlite3_config and before the first connection opens.
// Returns an SQLite result code.
int taskline_wal_buffer_register(void);

#endif
