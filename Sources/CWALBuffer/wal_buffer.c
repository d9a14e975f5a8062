// A VFS that gathers the frames a transaction writes to a write-ahead log and passes them on
// in one write, when the commit frame is complete.
//
// Why: SQLite writes a WAL frame as two writes, its 24-byte header and then its page. A
// one-task commit at a million tasks is about 18 frames, so 36 pwrite calls, and the kernel's
// work per call (ext4, page cache) is as much as the rest of the commit's I/O.
//
// Why it is safe. Bytes are held only while this connection holds the WAL's write lock, and
// only bytes of frames before the commit frame:
// - The write lock is taken and released through the database file's xShmLock, so the
//   database file goes through this VFS too and tells its log. Nothing is held before the
//   lock is taken. When it is released, whatever is still held belongs to a transaction that
//   never committed (a cache spill rolled back): it is dropped, never written. No other
//   connection can write the log while the lock is held, so held bytes never land on frames
//   another connection wrote.
// - A commit frame is the one whose header carries the database size (0 in every other
//   frame). When its page arrives, the buffer is written, inside SQLite's own write call, so a
//   write error fails the commit. From then until the lock is released every write goes
//   straight through: what SQLite writes after the commit frame (the checksums it rewrites
//   when a transaction rewrote frames it had spilled; the padding to a sector boundary, part
//   of it after the sync) is never held. SQLite publishes a commit to readers in shared
//   memory only after all of that, so when COMMIT returns every byte of it is in the file.
// - Every other call on the log (read, sync, truncate, size, file control, close) writes the
//   buffer first, and so does any call on the shared memory other than taking the write lock.
// The argument rests on the order of SQLite's WAL writes (sqlite3WalFrames), so the VFS is
// installed only under the SQLite versions it is tested with; others get the default VFS.
#include "wal_buffer.h"

#include <sqlite3.h>
#include <stddef.h>
#include <string.h>

// Large enough for any small commit; a larger one is passed on each time the buffer fills.
#define BUFFER_CAPACITY (256 * 1024)
// unixWrite in SQLite 3.40 masks each write to 17 bits and fails when the masked size is 0:
// every single write must stay below 128 KiB.
#define MAX_WRITE (124 * 1024)
#define FRAME_HEADER_SIZE 24
#define WAL_HEADER_SIZE 32
// The write lock is the first of the wal-index's locks (WAL_WRITE_LOCK in sqlite3.c).
#define WAL_WRITE_LOCK 0

typedef struct LogFile LogFile;

typedef struct DatabaseFile {
    sqlite3_file base;
    sqlite3_file *real;
    LogFile *log;  // the connection's open write-ahead log, if any
} DatabaseFile;

struct LogFile {
    sqlite3_file base;
    sqlite3_file *real;
    DatabaseFile *database;
    unsigned char *buffer;
    sqlite3_int64 offset;  // where buffer[0] goes in the file
    int length;
    int page_size;  // from the log's header; 0 until it is written
    int may_hold;  // the connection holds the write lock and has not written a commit frame
    int commit_pending;  // the last write was a commit frame's header: its page comes next
};

// Room for either kind of file; the default VFS's own file follows, suitably aligned.
#define WRAPPER_SIZE \
    ((sizeof(LogFile) > sizeof(DatabaseFile) ? sizeof(LogFile) : sizeof(DatabaseFile)) + 15) / 16 * 16

static sqlite3_vfs *default_vfs;
static sqlite3_vfs buffered_vfs;

// Writes `amount` bytes at `offset` to the real file, in pieces it can take.
static int write_through(LogFile *file, const unsigned char *data, int amount, sqlite3_int64 offset) {
    int rc = SQLITE_OK;
    for (int done = 0; done < amount && rc == SQLITE_OK; done += MAX_WRITE) {
        int piece = amount - done < MAX_WRITE ? amount - done : MAX_WRITE;
        rc = file->real->pMethods->xWrite(file->real, data + done, piece, offset + done);
    }
    return rc;
}

static int flush(LogFile *file) {
    int rc = write_through(file, file->buffer, file->length, file->offset);
    file->length = 0;
    file->commit_pending = 0;
    return rc;
}

static unsigned int big_endian_32(const unsigned char *bytes) {
    return (unsigned int)bytes[0] << 24 | (unsigned int)bytes[1] << 16 | (unsigned int)bytes[2] << 8 | bytes[3];
}

// MARK: - The write-ahead log

static int log_close(sqlite3_file *handle) {
    LogFile *file = (LogFile *)handle;
    int rc = flush(file);
    if (file->database != NULL) file->database->log = NULL;
    int closed = file->real->pMethods->xClose(file->real);
    sqlite3_free(file->buffer);
    file->buffer = NULL;
    return rc != SQLITE_OK ? rc : closed;
}

static int log_read(sqlite3_file *handle, void *data, int amount, sqlite3_int64 offset) {
    LogFile *file = (LogFile *)handle;
    int rc = flush(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xRead(file->real, data, amount, offset);
}

static int log_write(sqlite3_file *handle, const void *data, int amount, sqlite3_int64 offset) {
    LogFile *file = (LogFile *)handle;
    const unsigned char *bytes = data;
    if (offset == 0 && amount >= WAL_HEADER_SIZE) file->page_size = (int)big_endian_32(bytes + 8);
    int follows = file->length > 0 && offset == file->offset + file->length;
    if (!follows || file->length + amount > BUFFER_CAPACITY) {
        int rc = flush(file);
        if (rc != SQLITE_OK) return rc;
        if (!file->may_hold || amount > BUFFER_CAPACITY) return write_through(file, bytes, amount, offset);
        if (file->buffer == NULL && (file->buffer = sqlite3_malloc(BUFFER_CAPACITY)) == NULL) return SQLITE_IOERR_NOMEM;
        file->offset = offset;
    }
    memcpy(file->buffer + file->length, data, (size_t)amount);
    file->length += amount;

    int is_frame_header = offset >= WAL_HEADER_SIZE
        && (amount == FRAME_HEADER_SIZE || (file->page_size > 0 && amount == FRAME_HEADER_SIZE + file->page_size));
    if (is_frame_header && big_endian_32(bytes + 4) != 0) {
        // A commit frame: its page is the next write, unless it came with it.
        file->may_hold = 0;
        if (amount == FRAME_HEADER_SIZE) {
            file->commit_pending = 1;
            return SQLITE_OK;
        }
        return flush(file);
    }
    return file->commit_pending ? flush(file) : SQLITE_OK;
}

static int log_truncate(sqlite3_file *handle, sqlite3_int64 size) {
    LogFile *file = (LogFile *)handle;
    int rc = flush(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xTruncate(file->real, size);
}

static int log_sync(sqlite3_file *handle, int flags) {
    LogFile *file = (LogFile *)handle;
    int rc = flush(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xSync(file->real, flags);
}

static int log_file_size(sqlite3_file *handle, sqlite3_int64 *size) {
    LogFile *file = (LogFile *)handle;
    int rc = flush(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xFileSize(file->real, size);
}

static int log_lock(sqlite3_file *handle, int level) {
    LogFile *file = (LogFile *)handle;
    return file->real->pMethods->xLock(file->real, level);
}

static int log_unlock(sqlite3_file *handle, int level) {
    LogFile *file = (LogFile *)handle;
    return file->real->pMethods->xUnlock(file->real, level);
}

static int log_check_reserved_lock(sqlite3_file *handle, int *reserved) {
    LogFile *file = (LogFile *)handle;
    return file->real->pMethods->xCheckReservedLock(file->real, reserved);
}

static int log_file_control(sqlite3_file *handle, int op, void *argument) {
    LogFile *file = (LogFile *)handle;
    int rc = flush(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xFileControl(file->real, op, argument);
}

static int log_sector_size(sqlite3_file *handle) {
    LogFile *file = (LogFile *)handle;
    return file->real->pMethods->xSectorSize(file->real);
}

static int log_device_characteristics(sqlite3_file *handle) {
    LogFile *file = (LogFile *)handle;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

// A log has no shared memory and is never memory-mapped (SQLite maps only database files),
// so its io_methods are version 1.
static const sqlite3_io_methods log_methods = {
    1,
    log_close,
    log_read,
    log_write,
    log_truncate,
    log_sync,
    log_file_size,
    log_lock,
    log_unlock,
    log_check_reserved_lock,
    log_file_control,
    log_sector_size,
    log_device_characteristics,
};

// MARK: - The database file: every call passed on; the shared memory's calls tell the log

static int database_close(sqlite3_file *handle) {
    DatabaseFile *file = (DatabaseFile *)handle;
    if (file->log != NULL) file->log->database = NULL;
    return file->real->pMethods->xClose(file->real);
}

static int database_read(sqlite3_file *handle, void *data, int amount, sqlite3_int64 offset) {
    DatabaseFile *file = (DatabaseFile *)handle;
    return file->real->pMethods->xRead(file->real, data, amount, offset);
}

static int database_write(sqlite3_file *handle, const void *data, int amount, sqlite3_int64 offset) {
    DatabaseFile *file = (DatabaseFile *)handle;
    return file->real->pMethods->xWrite(file->real, data, amount, offset);
}

static int database_truncate(sqlite3_file *handle, sqlite3_int64 size) {
    DatabaseFile *file = (DatabaseFile *)handle;
    return file->real->pMethods->xTruncate(file->real, size);
}

static int database_sync(sqlite3_file *handle, int flags) {
    DatabaseFile *file = (DatabaseFile *)handle;
    return file->real->pMethods->xSync(file->real, flags);
}

static int database_file_size(sqlite3_file *handle, sqlite3_int64 *size) {
    DatabaseFile *file = (DatabaseFile *)handle;
    return file->real->pMethods->xFileSize(file->real, size);
}

static int database_lock(sqlite3_file *handle, int level) {
    DatabaseFile *file = (DatabaseFile *)handle;
    return file->real->pMethods->xLock(file->real, level);
}

static int database_unlock(sqlite3_file *handle, int level) {
    DatabaseFile *file = (DatabaseFile *)handle;
    return file->real->pMethods->xUnlock(file->real, level);
}

static int database_check_reserved_lock(sqlite3_file *handle, int *reserved) {
    DatabaseFile *file = (DatabaseFile *)handle;
    return file->real->pMethods->xCheckReservedLock(file->real, reserved);
}

static int database_file_control(sqlite3_file *handle, int op, void *argument) {
    DatabaseFile *file = (DatabaseFile *)handle;
    return file->real->pMethods->xFileControl(file->real, op, argument);
}

static int database_sector_size(sqlite3_file *handle) {
    DatabaseFile *file = (DatabaseFile *)handle;
    return file->real->pMethods->xSectorSize(file->real);
}

static int database_device_characteristics(sqlite3_file *handle) {
    DatabaseFile *file = (DatabaseFile *)handle;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

static int database_shm_map(sqlite3_file *handle, int page, int page_size, int extend, void volatile **memory) {
    DatabaseFile *file = (DatabaseFile *)handle;
    int rc = file->log != NULL ? flush(file->log) : SQLITE_OK;
    return rc != SQLITE_OK ? rc : file->real->pMethods->xShmMap(file->real, page, page_size, extend, memory);
}

static int database_shm_lock(sqlite3_file *handle, int offset, int count, int flags) {
    DatabaseFile *file = (DatabaseFile *)handle;
    LogFile *log = file->log;
    int covers_write_lock = offset <= WAL_WRITE_LOCK && WAL_WRITE_LOCK < offset + count;
    if (log != NULL && covers_write_lock && (flags & SQLITE_SHM_UNLOCK)) {
        // Whatever is still held never committed: a rolled-back spill, past the log's end.
        log->length = 0;
        log->commit_pending = 0;
        log->may_hold = 0;
    } else if (log != NULL) {
        int rc = flush(log);
        if (rc != SQLITE_OK) return rc;
    }
    int rc = file->real->pMethods->xShmLock(file->real, offset, count, flags);
    if (rc == SQLITE_OK && log != NULL && covers_write_lock && flags == (SQLITE_SHM_LOCK | SQLITE_SHM_EXCLUSIVE)) {
        log->may_hold = 1;
    }
    return rc;
}

// A barrier has no way to report an error. By the rules above nothing is held when SQLite
// publishes a commit; should a SQLite version write after the commit frame in a way not seen
// here, the bytes still reach the file before the barrier that publishes them.
static void database_shm_barrier(sqlite3_file *handle) {
    DatabaseFile *file = (DatabaseFile *)handle;
    if (file->log != NULL && file->log->length > 0) (void)flush(file->log);
    file->real->pMethods->xShmBarrier(file->real);
}

static int database_shm_unmap(sqlite3_file *handle, int delete_flag) {
    DatabaseFile *file = (DatabaseFile *)handle;
    int rc = file->log != NULL ? flush(file->log) : SQLITE_OK;
    int unmapped = file->real->pMethods->xShmUnmap(file->real, delete_flag);
    return rc != SQLITE_OK ? rc : unmapped;
}

static int database_fetch(sqlite3_file *handle, sqlite3_int64 offset, int amount, void **pointer) {
    DatabaseFile *file = (DatabaseFile *)handle;
    return file->real->pMethods->xFetch(file->real, offset, amount, pointer);
}

static int database_unfetch(sqlite3_file *handle, sqlite3_int64 offset, void *pointer) {
    DatabaseFile *file = (DatabaseFile *)handle;
    return file->real->pMethods->xUnfetch(file->real, offset, pointer);
}

static const sqlite3_io_methods database_methods = {
    3,
    database_close,
    database_read,
    database_write,
    database_truncate,
    database_sync,
    database_file_size,
    database_lock,
    database_unlock,
    database_check_reserved_lock,
    database_file_control,
    database_sector_size,
    database_device_characteristics,
    database_shm_map,
    database_shm_lock,
    database_shm_barrier,
    database_shm_unmap,
    database_fetch,
    database_unfetch,
};

// MARK: - The VFS

static int buffered_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *handle, int flags, int *out_flags) {
    (void)vfs;
    if (!(flags & (SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_DB))) return default_vfs->xOpen(default_vfs, name, handle, flags, out_flags);
    sqlite3_file *real = (sqlite3_file *)((unsigned char *)handle + WRAPPER_SIZE);
    memset(handle, 0, WRAPPER_SIZE);
    int rc = default_vfs->xOpen(default_vfs, name, real, flags, out_flags);
    if (rc != SQLITE_OK || real->pMethods == NULL) {
        // The default VFS may have set methods that must be closed even on failure.
        if (real->pMethods != NULL) real->pMethods->xClose(real);
        handle->pMethods = NULL;
        return rc;
    }
    if (flags & SQLITE_OPEN_MAIN_DB) {
        // The default VFS's database files have shared memory and memory mapping (version 3
        // io_methods), as the unix VFS's do.
        DatabaseFile *file = (DatabaseFile *)handle;
        file->real = real;
        file->base.pMethods = &database_methods;
        return rc;
    }
    LogFile *file = (LogFile *)handle;
    file->real = real;
    file->base.pMethods = &log_methods;
    sqlite3_file *database = sqlite3_database_file_object(name);
    if (database != NULL && database->pMethods == &database_methods) {
        file->database = (DatabaseFile *)database;
        file->database->log = file;
    }
    return rc;
}

int taskline_wal_buffer_register(void) {
    if (default_vfs != NULL) return SQLITE_OK;
    int version = sqlite3_libversion_number();
    if (version < 3040000 || version >= 3041000) return SQLITE_NOTFOUND;
    default_vfs = sqlite3_vfs_find(NULL);
    if (default_vfs == NULL) return SQLITE_ERROR;
    // The default VFS with another name, room for a wrapper and its own xOpen; every other
    // method is the default's own, as SQLite's quota and multiplexor shims do it (pAppData
    // included, so those methods find what they expect).
    buffered_vfs = *default_vfs;
    buffered_vfs.pNext = NULL;
    buffered_vfs.zName = "taskline-wal-buffer";
    buffered_vfs.szOsFile = (int)WRAPPER_SIZE + default_vfs->szOsFile;
    buffered_vfs.xOpen = buffered_open;
    return sqlite3_vfs_register(&buffered_vfs, 1);
}
