// A VFS that simulates what a power loss leaves on disk, after SQLite's test6.c in spirit:
// everything passes through to the VFS below (locks and shared memory included), and for
// each tracked file the VFS keeps, per sector, every version the sector has had since the
// file's last sync: version 0 is its content as synced (zeros past the synced size), each
// write or truncation touching it adds the next. A sync makes the file's current content the
// synced one and forgets the versions.
//
// A power loss image of a file is its synced content where no sector changed since the sync;
// where one did, any one of its versions, or garbage (a torn write) across the sector, or,
// on a device with powersafe overwrite, across only the bytes written to it; the size is the
// synced one or the one written. The -shm file is not tracked: it is rebuilt after a crash.
// File creation and deletion are taken as durable at once.
#define _GNU_SOURCE
#include "crash_vfs.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Sector {
    int count;
    int capacity;
    int written_from;  // the bytes written since the sync: [written_from, written_to)
    int written_to;
    unsigned char *versions;  // `count` versions, sector_size bytes each
} Sector;

typedef struct TrackedFile {
    char *path;
    int is_log;
    sqlite3_int64 synced_size;
    sqlite3_int64 size;  // as written
    sqlite3_int64 log_written_to;  // a log's end of what was written since its header
    Sector **sectors;  // by sector number; NULL where nothing changed since the sync
    sqlite3_int64 sector_slots;
    sqlite3_int64 *dirty;  // the numbers of the sectors that changed, in no order
    sqlite3_int64 dirty_count;
    sqlite3_int64 dirty_capacity;
    struct TrackedFile *next;
} TrackedFile;

typedef struct CrashFile {
    sqlite3_file base;
    sqlite3_file *real;  // the lower VFS's file, in the same allocation, right after this
    TrackedFile *tracked;  // NULL for files that are only passed through
} CrashFile;

static sqlite3_vfs *lower_vfs;
static sqlite3_vfs crash_vfs;
static int sector_size = 4096;
static int powersafe_overwrite = 1;
static char *tracked_directory;
static TrackedFile *tracked_files;
static taskline_crash_observer observer;
static void *observer_context;
static int observing;
static taskline_crash_counters counters;

// MARK: - Tracking

static void free_sectors(TrackedFile *file) {
    for (sqlite3_int64 i = 0; i < file->dirty_count; i++) {
        Sector *sector = file->sectors[file->dirty[i]];
        free(sector->versions);
        free(sector);
        file->sectors[file->dirty[i]] = NULL;
    }
    file->dirty_count = 0;
}

static void free_tracked(TrackedFile *file) {
    free_sectors(file);
    free(file->sectors);
    free(file->dirty);
    free(file->path);
    free(file);
}

static TrackedFile *find_tracked(const char *path) {
    for (TrackedFile *file = tracked_files; file != NULL; file = file->next) {
        if (strcmp(file->path, path) == 0) return file;
    }
    return NULL;
}

static void forget_tracked(const char *path) {
    for (TrackedFile **link = &tracked_files; *link != NULL; link = &(*link)->next) {
        if (strcmp((*link)->path, path) == 0) {
            TrackedFile *file = *link;
            *link = file->next;
            free_tracked(file);
            return;
        }
    }
}

void taskline_crash_vfs_track(const char *directory) {
    while (tracked_files != NULL) {
        TrackedFile *file = tracked_files;
        tracked_files = file->next;
        free_tracked(file);
    }
    free(tracked_directory);
    tracked_directory = directory != NULL ? strdup(directory) : NULL;
}

void taskline_crash_vfs_observe(taskline_crash_observer function, void *context) {
    observer = function;
    observer_context = context;
}

taskline_crash_counters taskline_crash_vfs_counters(void) {
    return counters;
}

long long taskline_crash_vfs_size(const char *path) {
    TrackedFile *file = find_tracked(path);
    return file != NULL ? file->size : -1;
}

static void crash_point(void) {
    if (observer == NULL || observing) return;
    observing = 1;
    observer(observer_context);
    observing = 0;
}

// The sector's record, made with its synced content as version 0 on its first change since
// the sync. NULL when memory runs out.
static Sector *changed_sector(TrackedFile *file, sqlite3_file *real, sqlite3_int64 number) {
    if (number >= file->sector_slots) {
        sqlite3_int64 slots = file->sector_slots ? file->sector_slots : 64;
        while (slots <= number) slots *= 2;
        Sector **grown = realloc(file->sectors, (size_t)slots * sizeof *grown);
        if (grown == NULL) return NULL;
        memset(grown + file->sector_slots, 0, (size_t)(slots - file->sector_slots) * sizeof *grown);
        file->sectors = grown;
        file->sector_slots = slots;
    }
    if (file->sectors[number] != NULL) return file->sectors[number];
    if (file->dirty_count == file->dirty_capacity) {
        sqlite3_int64 capacity = file->dirty_capacity ? file->dirty_capacity * 2 : 64;
        sqlite3_int64 *grown = realloc(file->dirty, (size_t)capacity * sizeof *grown);
        if (grown == NULL) return NULL;
        file->dirty = grown;
        file->dirty_capacity = capacity;
    }
    Sector *sector = calloc(1, sizeof *sector);
    if (sector == NULL || (sector->versions = malloc((size_t)sector_size * 4)) == NULL) {
        free(sector);
        return NULL;
    }
    sector->capacity = 4;
    sector->count = 1;
    sector->written_from = sector_size;
    sector->written_to = 0;
    sqlite3_int64 start = number * sector_size;
    memset(sector->versions, 0, (size_t)sector_size);
    if (start < file->synced_size) {
        int synced = file->synced_size - start < sector_size ? (int)(file->synced_size - start) : sector_size;
        // A short read fills the rest with zeros and says so: that is the content wanted.
        int rc = real->pMethods->xRead(real, sector->versions, synced, start);
        if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ) {
            free(sector->versions);
            free(sector);
            return NULL;
        }
    }
    file->sectors[number] = sector;
    file->dirty[file->dirty_count++] = number;
    return sector;
}

// Appends a copy of the sector's latest version and returns it, for the caller to change.
static unsigned char *new_version(Sector *sector) {
    if (sector->count == sector->capacity) {
        unsigned char *grown = realloc(sector->versions, (size_t)sector_size * (size_t)sector->capacity * 2);
        if (grown == NULL) return NULL;
        sector->versions = grown;
        sector->capacity *= 2;
    }
    unsigned char *version = sector->versions + (size_t)sector_size * (size_t)sector->count;
    memcpy(version, version - sector_size, (size_t)sector_size);
    sector->count++;
    return version;
}

static void mark_written(Sector *sector, int from, int to) {
    if (from < sector->written_from) sector->written_from = from;
    if (to > sector->written_to) sector->written_to = to;
}

static int record_write(TrackedFile *file, sqlite3_file *real, const unsigned char *data, int amount, sqlite3_int64 offset) {
    for (sqlite3_int64 number = offset / sector_size; number * sector_size < offset + amount; number++) {
        sqlite3_int64 start = number * sector_size;
        int from = offset > start ? (int)(offset - start) : 0;
        int to = offset + amount < start + sector_size ? (int)(offset + amount - start) : sector_size;
        Sector *sector = changed_sector(file, real, number);
        unsigned char *version = sector != NULL ? new_version(sector) : NULL;
        if (version == NULL) return SQLITE_IOERR_NOMEM;
        memcpy(version + from, data + (start + from - offset), (size_t)(to - from));
        mark_written(sector, from, to);
    }
    if (offset + amount > file->size) file->size = offset + amount;
    return SQLITE_OK;
}

// Before the truncation: the sectors it cuts get a version of zeros past the new end, so a
// power loss can bring back their synced content or leave them cut.
static int record_truncate(TrackedFile *file, sqlite3_file *real, sqlite3_int64 size) {
    sqlite3_int64 end = file->size > file->synced_size ? file->size : file->synced_size;
    for (sqlite3_int64 number = size / sector_size; number * sector_size < end; number++) {
        sqlite3_int64 start = number * sector_size;
        int from = size > start ? (int)(size - start) : 0;
        Sector *sector = changed_sector(file, real, number);
        unsigned char *version = sector != NULL ? new_version(sector) : NULL;
        if (version == NULL) return SQLITE_IOERR_NOMEM;
        memset(version + from, 0, (size_t)(sector_size - from));
        mark_written(sector, from, sector_size);
    }
    file->size = size;
    return SQLITE_OK;
}

static void record_sync(TrackedFile *file) {
    free_sectors(file);
    file->synced_size = file->size;
}

// MARK: - The file methods

static int crash_close(sqlite3_file *handle) {
    CrashFile *file = (CrashFile *)handle;
    return file->real->pMethods->xClose(file->real);
}

static int crash_read(sqlite3_file *handle, void *data, int amount, sqlite3_int64 offset) {
    CrashFile *file = (CrashFile *)handle;
    return file->real->pMethods->xRead(file->real, data, amount, offset);
}

static int crash_write(sqlite3_file *handle, const void *data, int amount, sqlite3_int64 offset) {
    CrashFile *file = (CrashFile *)handle;
    TrackedFile *tracked = file->tracked;
    if (tracked != NULL) {
        int rc = record_write(tracked, file->real, data, amount, offset);
        if (rc != SQLITE_OK) return rc;
        if (tracked->is_log) {
            if (offset == 0) {
                tracked->log_written_to = amount;
            } else {
                if (offset < tracked->log_written_to) counters.log_overwrites++;
                if (offset + amount > tracked->log_written_to) tracked->log_written_to = offset + amount;
            }
        }
    }
    int rc = file->real->pMethods->xWrite(file->real, data, amount, offset);
    if (tracked != NULL && rc == SQLITE_OK) {
        counters.writes++;
        crash_point();
    }
    return rc;
}

static int crash_truncate(sqlite3_file *handle, sqlite3_int64 size) {
    CrashFile *file = (CrashFile *)handle;
    TrackedFile *tracked = file->tracked;
    if (tracked != NULL) {
        int rc = record_truncate(tracked, file->real, size);
        if (rc != SQLITE_OK) return rc;
        if (tracked->log_written_to > size) tracked->log_written_to = size;
    }
    int rc = file->real->pMethods->xTruncate(file->real, size);
    if (tracked != NULL && rc == SQLITE_OK) {
        counters.truncates++;
        crash_point();
    }
    return rc;
}

static int crash_sync(sqlite3_file *handle, int flags) {
    CrashFile *file = (CrashFile *)handle;
    int rc = file->real->pMethods->xSync(file->real, flags);
    if (file->tracked != NULL && rc == SQLITE_OK) {
        record_sync(file->tracked);
        counters.syncs++;
        crash_point();
    }
    return rc;
}

static int crash_file_size(sqlite3_file *handle, sqlite3_int64 *size) {
    CrashFile *file = (CrashFile *)handle;
    return file->real->pMethods->xFileSize(file->real, size);
}

static int crash_lock(sqlite3_file *handle, int level) {
    CrashFile *file = (CrashFile *)handle;
    return file->real->pMethods->xLock(file->real, level);
}

static int crash_unlock(sqlite3_file *handle, int level) {
    CrashFile *file = (CrashFile *)handle;
    return file->real->pMethods->xUnlock(file->real, level);
}

static int crash_check_reserved_lock(sqlite3_file *handle, int *reserved) {
    CrashFile *file = (CrashFile *)handle;
    return file->real->pMethods->xCheckReservedLock(file->real, reserved);
}

static int crash_file_control(sqlite3_file *handle, int op, void *argument) {
    CrashFile *file = (CrashFile *)handle;
    return file->real->pMethods->xFileControl(file->real, op, argument);
}

static int crash_sector_size(sqlite3_file *handle) {
    CrashFile *file = (CrashFile *)handle;
    return file->tracked != NULL ? sector_size : file->real->pMethods->xSectorSize(file->real);
}

static int crash_device_characteristics(sqlite3_file *handle) {
    CrashFile *file = (CrashFile *)handle;
    if (file->tracked == NULL) return file->real->pMethods->xDeviceCharacteristics(file->real);
    return powersafe_overwrite ? SQLITE_IOCAP_POWERSAFE_OVERWRITE : 0;
}

static int crash_shm_map(sqlite3_file *handle, int region, int size, int extend, void volatile **memory) {
    CrashFile *file = (CrashFile *)handle;
    return file->real->pMethods->xShmMap(file->real, region, size, extend, memory);
}

static int crash_shm_lock(sqlite3_file *handle, int offset, int count, int flags) {
    CrashFile *file = (CrashFile *)handle;
    return file->real->pMethods->xShmLock(file->real, offset, count, flags);
}

static void crash_shm_barrier(sqlite3_file *handle) {
    CrashFile *file = (CrashFile *)handle;
    file->real->pMethods->xShmBarrier(file->real);
}

static int crash_shm_unmap(sqlite3_file *handle, int delete_flag) {
    CrashFile *file = (CrashFile *)handle;
    return file->real->pMethods->xShmUnmap(file->real, delete_flag);
}

static int crash_fetch(sqlite3_file *handle, sqlite3_int64 offset, int amount, void **pointer) {
    CrashFile *file = (CrashFile *)handle;
    return file->real->pMethods->xFetch(file->real, offset, amount, pointer);
}

static int crash_unfetch(sqlite3_file *handle, sqlite3_int64 offset, void *pointer) {
    CrashFile *file = (CrashFile *)handle;
    return file->real->pMethods->xUnfetch(file->real, offset, pointer);
}

// One table per version of the lower file's methods, so SQLite sees the same version.
#define CRASH_METHODS(version) \
    { version, crash_close, crash_read, crash_write, crash_truncate, crash_sync, crash_file_size, crash_lock, \
      crash_unlock, crash_check_reserved_lock, crash_file_control, crash_sector_size, crash_device_characteristics, \
      crash_shm_map, crash_shm_lock, crash_shm_barrier, crash_shm_unmap, crash_fetch, crash_unfetch }
static const sqlite3_io_methods crash_methods[3] = {CRASH_METHODS(1), CRASH_METHODS(2), CRASH_METHODS(3)};

static int is_tracked_path(const char *name, int flags) {
    if (name == NULL || tracked_directory == NULL) return 0;
    if (!(flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL))) return 0;
    return strncmp(name, tracked_directory, strlen(tracked_directory)) == 0;
}

static int crash_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *handle, int flags, int *out_flags) {
    (void)vfs;
    CrashFile *file = (CrashFile *)handle;
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)(file + 1);
    int rc = lower_vfs->xOpen(lower_vfs, name, file->real, flags, out_flags);
    if (rc != SQLITE_OK || file->real->pMethods == NULL) {
        file->base.pMethods = NULL;
        return rc;
    }
    int version = file->real->pMethods->iVersion;
    file->base.pMethods = &crash_methods[(version < 1 ? 1 : version > 3 ? 3 : version) - 1];
    if (!is_tracked_path(name, flags)) return SQLITE_OK;
    TrackedFile *tracked = find_tracked(name);
    if (tracked == NULL) {
        sqlite3_int64 size = 0;
        tracked = calloc(1, sizeof *tracked);
        if (tracked == NULL || (tracked->path = strdup(name)) == NULL
            || file->real->pMethods->xFileSize(file->real, &size) != SQLITE_OK) {
            if (tracked != NULL) free(tracked->path);
            free(tracked);
            file->real->pMethods->xClose(file->real);
            file->base.pMethods = NULL;
            return SQLITE_IOERR_NOMEM;
        }
        // What a file holds when it is first opened is taken as synced.
        tracked->synced_size = tracked->size = size;
        tracked->log_written_to = size;
        tracked->is_log = (flags & SQLITE_OPEN_WAL) != 0;
        tracked->next = tracked_files;
        tracked_files = tracked;
    }
    file->tracked = tracked;
    return SQLITE_OK;
}

static int crash_delete(sqlite3_vfs *vfs, const char *name, int sync_directory) {
    (void)vfs;
    int rc = lower_vfs->xDelete(lower_vfs, name, sync_directory);
    if (rc == SQLITE_OK && find_tracked(name) != NULL) {
        forget_tracked(name);
        crash_point();
    }
    return rc;
}

int taskline_crash_vfs_register(int sectors, int powersafe) {
    if (lower_vfs != NULL) return SQLITE_MISUSE;
    if (sectors < 512 || sectors > 65536 || (sectors & (sectors - 1)) != 0) return SQLITE_MISUSE;
    lower_vfs = sqlite3_vfs_find(NULL);
    if (lower_vfs == NULL) return SQLITE_ERROR;
    sector_size = sectors;
    powersafe_overwrite = powersafe;
    // The lower VFS under another name, room for a CrashFile, and its own open and delete;
    // every other method is the lower VFS's own (pAppData included).
    crash_vfs = *lower_vfs;
    crash_vfs.pNext = NULL;
    crash_vfs.zName = "taskline-crash";
    crash_vfs.szOsFile = (int)sizeof(CrashFile) + lower_vfs->szOsFile;
    crash_vfs.xOpen = crash_open;
    crash_vfs.xDelete = crash_delete;
    return sqlite3_vfs_register(&crash_vfs, 1);
}

// MARK: - Images

static uint64_t next_random(uint64_t *state) {
    // splitmix64
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int write_all(int fd, const unsigned char *data, size_t count, off_t offset) {
    while (count > 0) {
        ssize_t done = pwrite(fd, data, count, offset);
        if (done < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        data += done;
        count -= (size_t)done;
        offset += done;
    }
    return 0;
}

// The file as written, cut or zero-extended to `size`.
static int copy_file(const char *from, int to, sqlite3_int64 size) {
    int source = open(from, O_RDONLY | O_CLOEXEC);
    if (source < 0) return errno;
    int error = 0;
    off_t in = 0, out = 0;
    while (in < size) {
        ssize_t copied = copy_file_range(source, &in, to, &out, (size_t)(size - in), 0);
        if (copied < 0 && errno == EINTR) continue;
        if (copied < 0) error = errno;
        if (copied <= 0) break;
    }
    close(source);
    if (error == 0 && ftruncate(to, size) != 0) error = errno;
    return error;
}

static int write_image(TrackedFile *file, const char *directory, uint64_t *random, int process_crash) {
    // How much of what was written since the sync survives, in this image: from nothing
    // to all of it, so that both a lost tail and a single torn sector come up often.
    static const unsigned survival_per_mille[] = {0, 500, 900, 990, 1000};
    unsigned survival = process_crash ? 1000 : survival_per_mille[next_random(random) % 5];
    sqlite3_int64 size = process_crash || next_random(random) % 2 ? file->size : file->synced_size;

    const char *base = strrchr(file->path, '/');
    base = base != NULL ? base + 1 : file->path;
    size_t length = strlen(directory) + strlen(base) + 2;
    char *path = malloc(length);
    if (path == NULL) return ENOMEM;
    snprintf(path, length, "%s/%s", directory, base);
    // Written over the previous image rather than made anew: tmpfs frees and allocates
    // every page of a file it truncates, which cost more than the copy.
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    free(path);
    if (fd < 0) return errno;

    int error = copy_file(file->path, fd, size < file->size ? size : file->size);
    if (error == 0 && size > file->size && ftruncate(fd, size) != 0) error = errno;
    unsigned char *garbage = malloc((size_t)sector_size);
    if (garbage == NULL) error = ENOMEM;
    for (sqlite3_int64 i = 0; i < file->dirty_count && error == 0; i++) {
        sqlite3_int64 start = file->dirty[i] * sector_size;
        if (start >= size) continue;
        Sector *sector = file->sectors[file->dirty[i]];
        int amount = size - start < sector_size ? (int)(size - start) : sector_size;
        const unsigned char *chosen;
        if (next_random(random) % 1000 < survival) {
            chosen = sector->versions + (size_t)sector_size * (size_t)(sector->count - 1);
        } else if (next_random(random) % 3 == 0) {
            // A torn write: where the device may have been writing when the power went.
            int from = powersafe_overwrite ? sector->written_from : 0;
            int to = powersafe_overwrite ? sector->written_to : sector_size;
            memcpy(garbage, sector->versions + (size_t)sector_size * (size_t)(sector->count - 1), (size_t)sector_size);
            for (int byte = from; byte < to; byte++) garbage[byte] = (unsigned char)next_random(random);
            chosen = garbage;
        } else {
            chosen = sector->versions + (size_t)sector_size * (size_t)(next_random(random) % (uint64_t)sector->count);
        }
        error = write_all(fd, chosen, (size_t)amount, start);
    }
    free(garbage);
    if (close(fd) != 0 && error == 0) error = errno;
    return error;
}

int taskline_crash_vfs_write_images(const char *directory, uint64_t seed, int process_crash) {
    uint64_t random = seed;
    for (TrackedFile *file = tracked_files; file != NULL; file = file->next) {
        int error = write_image(file, directory, &random, process_crash);
        if (error != 0) return error;
    }
    return 0;
}

uint64_t taskline_crash_hash(uint64_t hash, const void *bytes, size_t count) {
    // FNV-1a over 8-byte words, then the length: fast enough for megabytes of notes a point.
    const unsigned char *data = bytes;
    hash ^= 0xcbf29ce484222325ull;
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        uint64_t word;
        memcpy(&word, data + i, 8);
        hash = (hash ^ word) * 0x100000001b3ull;
        hash ^= hash >> 29;
    }
    for (; i < count; i++) hash = (hash ^ data[i]) * 0x100000001b3ull;
    return (hash ^ count) * 0x9E3779B97F4A7C15ull;
}
