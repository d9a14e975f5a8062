// The physical limit Taskline is measured against: the same database (schema, indexes,
// triggers, pragmas), driven straight through SQLite's C API.
//
//   sqlite-baseline DB insert COUNT full|normal   one transaction per inserted task
//   sqlite-baseline DB update COUNT full|normal   one transaction per updated task
//   sqlite-baseline DB get COUNT SIZE             point lookups by id, spread over SIZE tasks
//   sqlite-baseline DB page COUNT DEPTH           50-row keyset pages at the start and at DEPTH
//   sqlite-baseline DB text-check                 FTS5's integrity-check of the text index against
//                                                 its content, with the waiting texts indexed first
//
// Prints one JSON object with the figures on stdout.
#include "../../Sources/CSQLite/shim.h"  // taskline_sqlite_configure_library: the same settings as taskline
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void check(sqlite3 *db, int rc, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE) {
        fprintf(stderr, "sqlite-baseline: %s: %s\n", what, sqlite3_errmsg(db));
        exit(1);
    }
}

static void exec(sqlite3 *db, const char *sql) {
    check(db, sqlite3_exec(db, sql, NULL, NULL, NULL), sql);
}

// The id taskline-bench gives its task number `n` (benchTaskID, the same arithmetic): a
// time-ordered (version 7) UUID, as taskline makes, made `n` ms after the start of 2025.
static void bench_task_id(unsigned long long n, char out[37]) {
    unsigned long long words[2];
    for (int k = 0; k < 2; k++) {  // SplitMix64's finalizer
        unsigned long long z = 2 * n + k + 0x9E3779B97F4A7C15ULL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        words[k] = z ^ (z >> 31);
    }
    unsigned long long milliseconds = 1735689600000ULL + n;
    snprintf(out, 37, "%08llx-%04llx-7%03llx-%04llx-%012llx", milliseconds >> 16, milliseconds & 0xFFFF, words[0] & 0xFFF,
             ((words[1] >> 48) & 0x3FFF) | 0x8000, words[1] & 0xFFFFFFFFFFFFULL);
}

// The task number of the `sample`th lookup among `size` tasks (spreadTaskNumber, the same).
static long spread_task_number(long sample, long size) {
    return sample * 104729L % size;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

// The sample that `fraction` of the others are at most: 0.5 for the median.
static double percentile(double *samples, int count, double fraction) {
    qsort(samples, count, sizeof(double), compare);
    int index = (int)(count * fraction);
    return samples[index < count ? index : count - 1];
}

static void step_all(sqlite3 *db, sqlite3_stmt *statement, const char *what) {
    int rc;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {}
    check(db, rc, what);
    sqlite3_reset(statement);
}

/// Steps through every row and reads every column's value: a text's bytes, an integer.
static volatile sqlite3_int64 column_sink;
static void read_all(sqlite3 *db, sqlite3_stmt *statement, const char *what) {
    int rc;
    sqlite3_int64 sum = 0;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
        for (int column = 0; column < sqlite3_column_count(statement); column++) {
            if (sqlite3_column_type(statement, column) == SQLITE_TEXT) {
                const unsigned char *text = sqlite3_column_text(statement, column);
                int bytes = sqlite3_column_bytes(statement, column);
                sum += bytes > 0 ? text[bytes - 1] : 0;
            } else {
                sum += sqlite3_column_int64(statement, column);
            }
        }
    }
    column_sink = sum;
    check(db, rc, what);
    sqlite3_reset(statement);
}

// What each of Taskline's write transactions ends with (TextIndex.indexPendingIfMany): the
// texts waiting to go into the trigram index or out of it are, once 128 of them wait, padded
// as the index reads them (task_text_source). Texts indexed otherwise would not be the ones
// the index's content gives, which FTS5's integrity-check reports as a malformed index.
struct text_index {
    sqlite3_stmt *many_pending, *unindex_stale, *clear_stale, *index_pending, *clear_pending;
};

static struct text_index text_index_prepare(sqlite3 *db) {
    struct text_index index;
    check(db, sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM task_text_pending) + "
                                     "(SELECT count(*) FROM task_text_stale) >= 128", -1, &index.many_pending, NULL), "prepare");
    check(db, sqlite3_prepare_v2(db, "INSERT INTO task_text (task_text, rowid, title_fold, notes_fold) "
                                     "SELECT 'delete', pk, title_fold || char(1, 1), notes_fold || char(1, 1) FROM task_text_stale",
                                 -1, &index.unindex_stale, NULL), "prepare");
    check(db, sqlite3_prepare_v2(db, "DELETE FROM task_text_stale", -1, &index.clear_stale, NULL), "prepare");
    check(db, sqlite3_prepare_v2(db, "INSERT INTO task_text (rowid, title_fold, notes_fold) SELECT source.pk, source.title_fold, "
                                     "source.notes_fold FROM task_text_pending JOIN task_text_source AS source "
                                     "ON source.pk = task_text_pending.pk",
                                 -1, &index.index_pending, NULL), "prepare");
    check(db, sqlite3_prepare_v2(db, "DELETE FROM task_text_pending", -1, &index.clear_pending, NULL), "prepare");
    return index;
}

static void text_index_catch_up(sqlite3 *db, struct text_index *index) {
    step_all(db, index->unindex_stale, "unindex stale");
    step_all(db, index->clear_stale, "clear stale");
    step_all(db, index->index_pending, "index pending");
    step_all(db, index->clear_pending, "clear pending");
}

static void text_index_finalize(struct text_index *index) {
    sqlite3_finalize(index->many_pending);
    sqlite3_finalize(index->unindex_stale);
    sqlite3_finalize(index->clear_stale);
    sqlite3_finalize(index->index_pending);
    sqlite3_finalize(index->clear_pending);
}

int main(int argc, char **argv) {
    int counts = argc > 2 && strcmp(argv[2], "text-check") != 0;
    if (argc < 3 + counts || ((strcmp(argv[2], "insert") == 0 || strcmp(argv[2], "update") == 0 || strcmp(argv[2], "get") == 0) && argc < 5)) {
        fprintf(stderr, "usage: sqlite-baseline DB insert|update|get|page COUNT [full|normal|SIZE|DEPTH]\n"
                        "       sqlite-baseline DB text-check\n");
        return 2;
    }
    // The library configured as taskline configures it (ProcessSetup, first thing in its main).
    taskline_sqlite_configure_library();
    const char *mode = argv[2];
    int count = counts ? atoi(argv[3]) : 0;
    sqlite3 *db;
    // Opened as the server opens its connection (SQLite.Database): one thread uses it, so
    // without SQLite's mutex, which every column read would otherwise take.
    check(db, sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, NULL), "open");
    sqlite3_busy_timeout(db, 5000);
    // Taskline's pragmas (StoreFile.configure). temp_store and the statement journal limit
    // above go together (CSQLite/shim.h).
    exec(db, "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA cache_size = -8192; PRAGMA temp_store = FILE");
    if (argc > 4 && strcmp(argv[4], "full") == 0) exec(db, "PRAGMA synchronous = FULL");
    if (argc > 4 && strcmp(argv[4], "normal") == 0) exec(db, "PRAGMA synchronous = NORMAL");

    sqlite3_stmt *begin, *commit;
    check(db, sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, NULL), "prepare");
    check(db, sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL), "prepare");
    double *samples = malloc(sizeof(double) * (count > 0 ? count : 1));
    // Each write's or get's values are made before the clock starts, as taskline-bench makes
    // its requests: a sample times the database work alone.
    char (*ids)[40] = malloc(sizeof *ids * (count > 0 ? count : 1));
    char (*titles)[32] = malloc(sizeof *titles * (count > 0 ? count : 1));
    // The titles lowercased, as the server keeps them for sorting and search (title_fold).
    char (*folds)[32] = malloc(sizeof *folds * (count > 0 ? count : 1));

    if (strcmp(mode, "insert") == 0 || strcmp(mode, "update") == 0) {
        int insert = strcmp(mode, "insert") == 0;
        sqlite3_stmt *write;
        const char *sql = insert
            ? "INSERT OR FAIL INTO task (id, title, title_fold, notes, notes_fold, done, priority, due, due_at, "
              "created_at, updated_at, completed_at, version) VALUES (?, ?, ?, '', '', 0, 0, NULL, NULL, ?, ?, NULL, 1)"
            : "UPDATE task SET title = ?2, title_fold = ?3, updated_at = ?4, version = version + 1 WHERE id = ?1";
        check(db, sqlite3_prepare_v2(db, sql, -1, &write, NULL), "prepare write");
        struct text_index text = text_index_prepare(db);
        // Numbered far past the populated tasks', so the ids sort after theirs, as the ids
        // taskline makes now do, and past those the baseline already inserted into a kept
        // file (`--databases`). An update writes the newest COUNT of them.
        unsigned long long first = (strcmp(argv[4], "full") == 0 ? 1ULL : 2ULL) << 40;
        char low[37], high[37];
        bench_task_id(first, low);
        bench_task_id(first + (1ULL << 40), high);
        sqlite3_stmt *inserted;
        check(db, sqlite3_prepare_v2(db, "SELECT count(*) FROM task WHERE id >= ? AND id < ?", -1, &inserted, NULL), "prepare");
        sqlite3_bind_text(inserted, 1, low, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(inserted, 2, high, -1, SQLITE_TRANSIENT);
        check(db, sqlite3_step(inserted), "count the baseline's tasks");
        long long made = sqlite3_column_int64(inserted, 0);
        sqlite3_finalize(inserted);
        first += (unsigned long long)(insert ? made : (made > count ? made - count : 0));
        for (int i = 0; i < count; i++) {
            bench_task_id(first + (unsigned long long)i, ids[i]);
            snprintf(titles[i], sizeof titles[i], "Task number %d", i);
            snprintf(folds[i], sizeof folds[i], "task number %d", i);
        }
        double start = now();
        for (int i = 0; i < count; i++) {
            double t = now();
            step_all(db, begin, "begin");
            sqlite3_bind_text(write, 1, ids[i], -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(write, 2, titles[i], -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(write, 3, folds[i], -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(write, 4, (sqlite3_int64)(t * 1000));
            sqlite3_bind_int64(write, 5, (sqlite3_int64)(t * 1000));
            step_all(db, write, "write");
            check(db, sqlite3_step(text.many_pending), "count pending");
            int many = sqlite3_column_int(text.many_pending, 0);
            sqlite3_reset(text.many_pending);
            if (many) text_index_catch_up(db, &text);
            step_all(db, commit, "commit");
            samples[i] = now() - t;
        }
        double elapsed = now() - start;
        printf("{\"perSecond\": %.1f, \"medianMicroseconds\": %.2f, \"p99Microseconds\": %.2f}\n", count / elapsed,
               percentile(samples, count, 0.5) * 1e6, percentile(samples, count, 0.99) * 1e6);
        sqlite3_finalize(write);
        text_index_finalize(&text);
    } else if (strcmp(mode, "get") == 0) {
        long size = atol(argv[4]);  // the number of tasks taskline-bench populated
        sqlite3_stmt *get;
        check(db, sqlite3_prepare_v2(db, "SELECT pk, id, title, notes, done, priority, due, created_at, updated_at, "
                                         "completed_at, version FROM task WHERE id = ?", -1, &get, NULL), "prepare get");
        for (int i = 0; i < count; i++) bench_task_id((unsigned long long)spread_task_number(i, size), ids[i]);  // as taskline-bench's gets
        for (int i = 0; i < count; i++) {
            double t = now();
            sqlite3_bind_text(get, 1, ids[i], -1, SQLITE_TRANSIENT);
            if (sqlite3_step(get) != SQLITE_ROW) {
                fprintf(stderr, "sqlite-baseline: no task %s: the ids differ from taskline-bench's\n", ids[i]);
                return 1;
            }
            step_all(db, get, "get");
            samples[i] = now() - t;
        }
        printf("{\"medianMicroseconds\": %.2f}\n", percentile(samples, count, 0.5) * 1e6);
        sqlite3_finalize(get);
    } else if (strcmp(mode, "page") == 0) {
        long depth = argc > 4 ? atol(argv[4]) : 0;
        sqlite3_stmt *key, *page;
        // Creation order is the merge of task_by_done's two runs, as taskline reads it (FetchPlan).
        check(db, sqlite3_prepare_v2(db, "SELECT created_at, id FROM task WHERE done = 0 UNION ALL "
                                         "SELECT created_at, id FROM task WHERE done = 1 ORDER BY 1, 2 LIMIT 1 OFFSET ?",
                                     -1, &key, NULL), "prepare key");
        // Every column a page of the server's holds (FetchPlan.taskColumns, its meta read as
        // there), each value read as the server reads it.
#define PAGE_COLUMNS "pk, id, title, notes, done, priority, due, created_at, updated_at, completed_at, version, tags, " \
                     "project, wait, CASE WHEN meta = '{}' THEN '{}' WHEN json_valid(meta) THEN CASE WHEN " \
                     "json_type(meta) = 'object' THEN json(meta) ELSE '{}' END ELSE '{}' END AS meta, depends_on, " \
                     "recurrence, series_id, remind"
        check(db, sqlite3_prepare_v2(db, "SELECT " PAGE_COLUMNS " FROM task WHERE done = 0 AND (created_at, id) > (?1, ?2) UNION ALL "
                                         "SELECT " PAGE_COLUMNS " FROM task WHERE done = 1 AND (created_at, id) > (?1, ?2) ORDER BY 8, 2 LIMIT 50",
                                     -1, &page, NULL), "prepare page");
        double figures[2];
        long depths[2] = {0, depth};
        for (int d = 0; d < 2; d++) {
            sqlite3_int64 created = -1;
            char after[128] = "";
            if (depths[d] > 0) {
                sqlite3_bind_int64(key, 1, depths[d]);
                if (sqlite3_step(key) == SQLITE_ROW) {
                    created = sqlite3_column_int64(key, 0);
                    snprintf(after, sizeof after, "%s", (const char *)sqlite3_column_text(key, 1));
                }
                sqlite3_reset(key);
            }
            for (int i = 0; i < count; i++) {
                double t = now();
                sqlite3_bind_int64(page, 1, created);
                sqlite3_bind_text(page, 2, after, -1, SQLITE_TRANSIENT);
                read_all(db, page, "page");
                samples[i] = now() - t;
            }
            figures[d] = percentile(samples, count, 0.5) * 1e6;
        }
        printf("{\"firstPageMicroseconds\": %.2f, \"deepPageMicroseconds\": %.2f}\n", figures[0], figures[1]);
        sqlite3_finalize(key);
        sqlite3_finalize(page);
    } else if (strcmp(mode, "text-check") == 0) {
        struct text_index text = text_index_prepare(db);
        step_all(db, begin, "begin");
        text_index_catch_up(db, &text);
        // A malformed index fails the statement: check() names it and exits.
        exec(db, "INSERT INTO task_text (task_text, rank) VALUES ('integrity-check', 1)");
        exec(db, "ROLLBACK");
        text_index_finalize(&text);
        printf("{\"textIndexSound\": 1}\n");
    } else {
        fprintf(stderr, "sqlite-baseline: unknown mode %s\n", mode);
        return 2;
    }
    sqlite3_finalize(begin);
    sqlite3_finalize(commit);
    free(samples);
    sqlite3_close(db);
    return 0;
}
