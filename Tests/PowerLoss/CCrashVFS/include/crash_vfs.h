#ifndef TASKLINE_CRASH_VFS_H
#define TASKLINE_CRASH_VFS_H

#include <stddef.h>
#include <stdint.h>

// A VFS over the default one that passes everything through and remembers, for each
// database, rollback journal and write-ahead log under a chosen folder, what a disk could
// still lose: every sector written or truncated since that file's last sync, in each
// version it has had. From that it writes, at any moment, the files as a power loss could
// leave them (see crash_vfs.c). Single-threaded: one connection writes at a time.

// Registers the VFS as SQLite's default, over whatever VFS is the default now. Its files
// report `sector_size` and, when `powersafe_overwrite` is set,
// SQLITE_IOCAP_POWERSAFE_OVERWRITE. Call once, after sqlite3_config and before any
// connection opens. Returns an SQLite result code.
int taskline_crash_vfs_register(int sector_size, int powersafe_overwrite);

// Tracks the files opened from now on whose path starts with `directory` (NULL: none), and
// forgets every file tracked so far.
void taskline_crash_vfs_track(const char *directory);

// Called after every write, truncation and sync of a tracked file: a crash point.
// Not called again while it runs.
typedef void (*taskline_crash_observer)(void *context);
void taskline_crash_vfs_observe(taskline_crash_observer observer, void *context);

typedef struct taskline_crash_counters {
    long long writes;
    long long truncates;
    long long syncs;
    // Writes to a write-ahead log below what was already written since its header: pages of
    // a transaction written again (a spilled page changed once more, checksums rewritten),
    // or frames of a rolled-back transaction written over.
    long long log_overwrites;
} taskline_crash_counters;
taskline_crash_counters taskline_crash_vfs_counters(void);

// The size of a tracked file as written, or -1 when `path` is not tracked.
long long taskline_crash_vfs_size(const char *path);

// Writes every tracked file, under its own base name, into `directory`, as a power loss at
// this moment could leave it: what was synced, and for each sector written since, a random
// choice (from `seed`) of its synced version, a later one or garbage; the size as synced or
// as written. With `process_crash` set, what a crash of the process alone leaves instead:
// everything written, at the size written. Returns 0, or an errno value.
int taskline_crash_vfs_write_images(const char *directory, uint64_t seed, int process_crash);

// A 64-bit hash of `count` bytes, continuing from `hash`.
uint64_t taskline_crash_hash(uint64_t hash, const void *bytes, size_t count);

#endif
