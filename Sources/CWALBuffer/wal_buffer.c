// A VFS that gathers the writes SQLite makes to a write-ahead log and passes each commit's on
// in one write.
//
// Why: SQLite writes a WAL frame as two writes, its 24-byte header and then its page. A
// one-task commit at a million tasks is about 18 frames, so 36 pwrite calls, and the kernel's
// work per call (ext4, page cache) was as much as the rest of the commit's I/O.
//
// Why it is safe: the frames of a commit become visible to readers, in this process and
// others, when the writer updates the wal-index in shared memory, which happens after SQLite
// has written the commit frame (its header carries the database size after the commit, which
// is 0 in every other frame's). So the buffer is passed on as soon as the commit frame is in
// it, inside SQLite's own write call, and an error is returned to SQLite from there. Frames
// of a transaction not yet committed (a cache spill) may wait, as SQLite itself does not
// need them until it reads them back; a read, sync, truncate, size query, file control or
// close of the log passes the buffer on first. Every other file is the default VFS's own.
#include "wal_buffer.h"

#include <sqlite3.h>
#include <string.h>

// Large enough for any small commit; a larger one is passed on each time the buffer fills.
#define BUFFER_CAPACITY (256 * 1024)
// unixWrite in SQLite 3.40 masks each write to 17 bits and fails when the masked size is 0:
// every single write must stay below 128 KiB.
#define MAX_WRITE (124 * 1024)
#define FRAME_HEADER_SIZE 24
#define WAL_HEADER_SIZE 32

typedef struct BufferedFile {
    sqlite3_file base;
    sqlite3_file *real;  // the default VFS's file, in the same allocation, right after this
    unsigned char *buffer;
    sqlite3_int64 offset;  // where buffer[0] goes in the file
    int length;
    int page_size;  // from the log's header; 0 until it is written
    int commit_pending;  // the last write was a commit frame's header: its page comes next
} BufferedFile;

static sqlite3_vfs *default_vfs;
static sqlite3_vfs buffered_vfs;

// Writes `amount` bytes at `offset` to the real file, in pieces it can take.
static int write_through(BufferedFile *file, const unsigned char *data, int amount, sqlite3_int64 offset) {
    int rc = SQLITE_OK;
    for (int done = 0; done < amount && rc == SQLITE_OK; done += MAX_WRITE) {
        int piece = amount - done < MAX_WRITE ? amount - done : MAX_WRITE;
        rc = file->real->pMethods->xWrite(file->real, data + done, piece, offset + done);
    }
    return rc;
}

static int flush(BufferedFile *file) {
    int rc = write_through(file, file->buffer, file->length, file->offset);
    file->length = 0;
    file->commit_pending = 0;
    return rc;
}

static unsigned int big_endian_32(const unsigned char *bytes) {
    return (unsigned int)bytes[0] << 24 | (unsigned int)bytes[1] << 16 | (unsigned int)bytes[2] << 8 | bytes[3];
}

static int buffered_close(sqlite3_file *handle) {
    BufferedFile *file = (BufferedFile *)handle;
    int rc = flush(file);
    int closed = file->real->pMethods->xClose(file->real);
    sqlite3_free(file->buffer);
    file->buffer = NULL;
    return rc != SQLITE_OK ? rc : closed;
}

static int buffered_read(sqlite3_file *handle, void *data, int amount, sqlite3_int64 offset) {
    BufferedFile *file = (BufferedFile *)handle;
    int rc = flush(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xRead(file->real, data, amount, offset);
}

static int buffered_write(sqlite3_file *handle, const void *data, int amount, sqlite3_int64 offset) {
    BufferedFile *file = (BufferedFile *)handle;
    const unsigned char *bytes = data;
    if (offset == 0 && amount >= WAL_HEADER_SIZE) file->page_size = (int)big_endian_32(bytes + 8);
    int follows = file->length > 0 && offset == file->offset + file->length;
    if (!follows || file->length + amount > BUFFER_CAPACITY) {
        int rc = flush(file);
        if (rc != SQLITE_OK) return rc;
        if (amount > BUFFER_CAPACITY) return write_through(file, bytes, amount, offset);
        if (file->buffer == NULL && (file->buffer = sqlite3_malloc(BUFFER_CAPACITY)) == NULL) return SQLITE_IOERR_NOMEM;
        file->offset = offset;
    }
    memcpy(file->buffer + file->length, data, (size_t)amount);
    file->length += amount;

    int is_frame_header = offset >= WAL_HEADER_SIZE
        && (amount == FRAME_HEADER_SIZE || (file->page_size > 0 && amount == FRAME_HEADER_SIZE + file->page_size));
    if (is_frame_header && big_endian_32(bytes + 4) != 0) {
        // A commit frame: its page is the next write, unless it came with it.
        if (amount == FRAME_HEADER_SIZE) {
            file->commit_pending = 1;
            return SQLITE_OK;
        }
        return flush(file);
    }
    return file->commit_pending ? flush(file) : SQLITE_OK;
}

static int buffered_truncate(sqlite3_file *handle, sqlite3_int64 size) {
    BufferedFile *file = (BufferedFile *)handle;
    int rc = flush(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xTruncate(file->real, size);
}

static int buffered_sync(sqlite3_file *handle, int flags) {
    BufferedFile *file = (BufferedFile *)handle;
    int rc = flush(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xSync(file->real, flags);
}

static int buffered_file_size(sqlite3_file *handle, sqlite3_int64 *size) {
    BufferedFile *file = (BufferedFile *)handle;
    int rc = flush(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xFileSize(file->real, size);
}

static int buffered_lock(sqlite3_file *handle, int level) {
    BufferedFile *file = (BufferedFile *)handle;
    return file->real->pMethods->xLock(file->real, level);
}

static int buffered_unlock(sqlite3_file *handle, int level) {
    BufferedFile *file = (BufferedFile *)handle;
    return file->real->pMethods->xUnlock(file->real, level);
}

static int buffered_check_reserved_lock(sqlite3_file *handle, int *reserved) {
    BufferedFile *file = (BufferedFile *)handle;
    return file->real->pMethods->xCheckReservedLock(file->real, reserved);
}

static int buffered_file_control(sqlite3_file *handle, int op, void *argument) {
    BufferedFile *file = (BufferedFile *)handle;
    int rc = flush(file);
    return rc != SQLITE_OK ? rc : file->real->pMethods->xFileControl(file->real, op, argument);
}

static int buffered_sector_size(sqlite3_file *handle) {
    BufferedFile *file = (BufferedFile *)handle;
    return file->real->pMethods->xSectorSize(file->real);
}

static int buffered_device_characteristics(sqlite3_file *handle) {
    BufferedFile *file = (BufferedFile *)handle;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

// A log has no shared memory and is never memory-mapped (SQLite maps only database files),
// so its io_methods are version 1.
static const sqlite3_io_methods buffered_methods = {
    1,
    buffered_close,
    buffered_read,
    buffered_write,
    buffered_truncate,
    buffered_sync,
    buffered_file_size,
    buffered_lock,
    buffered_unlock,
    buffered_check_reserved_lock,
    buffered_file_control,
    buffered_sector_size,
    buffered_device_characteristics,
};

static int buffered_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *handle, int flags, int *out_flags) {
    (void)vfs;
    if (!(flags & SQLITE_OPEN_WAL)) return default_vfs->xOpen(default_vfs, name, handle, flags, out_flags);
    BufferedFile *file = (BufferedFile *)handle;
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)(file + 1);
    int rc = default_vfs->xOpen(default_vfs, name, file->real, flags, out_flags);
    file->base.pMethods = rc == SQLITE_OK ? &buffered_methods : NULL;
    return rc;
}

int taskline_wal_buffer_register(void) {
    if (default_vfs != NULL) return SQLITE_OK;
    default_vfs = sqlite3_vfs_find(NULL);
    if (default_vfs == NULL) return SQLITE_ERROR;
    // The default VFS with another name, room for a BufferedFile and its own xOpen; every
    // other method is the default's own, as SQLite's quota and multiplexor shims do it
    // (pAppData included, so those methods find what they expect).
    buffered_vfs = *default_vfs;
    buffered_vfs.pNext = NULL;
    buffered_vfs.zName = "taskline-wal-buffer";
    buffered_vfs.szOsFile = (int)sizeof(BufferedFile) + default_vfs->szOsFile;
    buffered_vfs.xOpen = buffered_open;
    return sqlite3_vfs_register(&buffered_vfs, 1);
}
