import SQLite
import TaskModel

/// Taskline's schema and its migrations.
enum Schema {
    /// `PRAGMA application_id` of every Taskline database: "TSKL". A file with another id
    /// belongs to someone else and is never touched.
    static let applicationID: Int32 = 0x5453_4B4C

    /// Sort keys that are never NULL, so that keyset comparisons and row values work: a
    /// missing due date sorts last whichever the direction, so it is the largest value
    /// ascending and the smallest descending. They are generated columns because SQLite
    /// answers a row-value comparison from an index on columns, not on expressions.
    static let dueAscendingKey = "due_sort_asc"
    static let dueDescendingKey = "due_sort_desc"
    /// `dueDescendingKey`'s value for a task with no due date.
    static let undatedDescendingKey: Int64 = -9_223_372_036_854_775_807
    /// The dated and the undated tasks, as ranges of task_by_due_asc (`dueAscendingKey`
    /// is the largest integer for the undated ones).
    static let datedClause = "due_sort_asc < 9223372036854775807"
    static let undatedClause = "due_sort_asc = 9223372036854775807"
    /// The clause of the indexes that hold only the dated tasks (task_dated_by_priority_due).
    static let datedIndexClause = "task.due_at IS NOT NULL"

    /// Frozen history: each migration is literal SQL that never changes once shipped, and
    /// names none of today's constants (one that changed would rewrite what the migration
    /// did). What its SQL says, comments and spacing included, is what files hold in
    /// sqlite_schema, and what `unexpectedObjects` holds them to: a migration that files have
    /// run is never edited, or they would be refused. Changes go in a new migration.
    static let migrator = Migrator([
        .init(version: 1) { db in
            try db.execute("""
                CREATE TABLE task (
                    pk INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    title TEXT NOT NULL,
                    title_fold TEXT NOT NULL,      -- lowercased title: sorting and the text filter
                    notes TEXT NOT NULL,
                    notes_fold TEXT NOT NULL,      -- lowercased notes: the text filter
                    done INTEGER NOT NULL CHECK (done IN (0, 1)),
                    priority INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 3),
                    due TEXT,                      -- as the client wrote it
                    due_at INTEGER,                -- the same instant in ms since the epoch
                    created_at INTEGER NOT NULL,   -- ms since the epoch, UTC
                    updated_at INTEGER NOT NULL,
                    completed_at INTEGER,
                    version INTEGER NOT NULL
                );
                CREATE INDEX task_by_created ON task (created_at, id);
                CREATE INDEX task_by_updated ON task (updated_at, id);
                CREATE INDEX task_by_due_asc ON task (coalesce(due_at, 9223372036854775807), id);
                CREATE INDEX task_by_due_desc ON task (coalesce(due_at, -9223372036854775807), id);
                CREATE INDEX task_by_priority ON task (priority, id);
                CREATE INDEX task_by_title ON task (title_fold, id);
                CREATE INDEX task_by_done ON task (done, created_at, id);

                CREATE TABLE task_tag (
                    tag TEXT NOT NULL,
                    task_pk INTEGER NOT NULL REFERENCES task (pk) ON DELETE CASCADE,
                    PRIMARY KEY (tag, task_pk)
                ) WITHOUT ROWID;
                CREATE INDEX task_tag_by_task ON task_tag (task_pk, tag);

                -- Every committed change. AUTOINCREMENT: a seq is never reused, even after
                -- the newest rows are deleted.
                CREATE TABLE change (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL CHECK (kind IN ('created', 'updated', 'deleted')),
                    task_id TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    at INTEGER NOT NULL
                );
                """)
            try db.setApplicationID(0x5453_4B4C)  // "TSKL": Schema.applicationID
        },
        .init(version: 2) { db in
            // The change log is written by triggers, so that every writer of the file is
            // recorded, not only Taskline: other processes' changes reach clients too. The
            // time is in ms since the epoch from julianday (SQLite 3.40 has no
            // unixepoch('subsec')).
            try db.execute("""
                CREATE TRIGGER task_log_insert AFTER INSERT ON task BEGIN
                    INSERT INTO change (kind, task_id, version, at) VALUES ('created', NEW.id, NEW.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
                END;
                CREATE TRIGGER task_log_update AFTER UPDATE ON task BEGIN
                    INSERT INTO change (kind, task_id, version, at) VALUES ('updated', NEW.id, NEW.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
                END;
                CREATE TRIGGER task_log_delete AFTER DELETE ON task BEGIN
                    INSERT INTO change (kind, task_id, version, at) VALUES ('deleted', OLD.id, OLD.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
                END;
                CREATE INDEX change_by_time ON change (at);
                -- history_pruned_through: the newest seq removed from the change log.
                CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
                """)
        },
        .init(version: 3) { db in
            // A trigram index over titles and notes, so the text filter finds a substring
            // without reading every task. It indexes the task table's own columns
            // (external content), kept in step by triggers.
            try db.execute("""
                CREATE VIRTUAL TABLE task_text USING fts5 (
                    title, notes, content = 'task', content_rowid = 'pk', tokenize = 'trigram case_sensitive 0'
                );
                INSERT INTO task_text (task_text) VALUES ('rebuild');
                CREATE TRIGGER task_text_insert AFTER INSERT ON task BEGIN
                    INSERT INTO task_text (rowid, title, notes) VALUES (NEW.pk, NEW.title, NEW.notes);
                END;
                CREATE TRIGGER task_text_delete AFTER DELETE ON task BEGIN
                    INSERT INTO task_text (task_text, rowid, title, notes) VALUES ('delete', OLD.pk, OLD.title, OLD.notes);
                END;
                CREATE TRIGGER task_text_update AFTER UPDATE OF title, notes ON task
                WHEN OLD.title IS NOT NEW.title OR OLD.notes IS NOT NEW.notes BEGIN
                    INSERT INTO task_text (task_text, rowid, title, notes) VALUES ('delete', OLD.pk, OLD.title, OLD.notes);
                    INSERT INTO task_text (rowid, title, notes) VALUES (NEW.pk, NEW.title, NEW.notes);
                END;
                """)
        },
        .init(version: 4) { db in
            try db.execute("""
                DROP INDEX task_by_due_asc;
                DROP INDEX task_by_due_desc;
                ALTER TABLE task ADD COLUMN due_sort_asc INTEGER GENERATED ALWAYS AS (coalesce(due_at, 9223372036854775807)) VIRTUAL;
                ALTER TABLE task ADD COLUMN due_sort_desc INTEGER GENERATED ALWAYS AS (coalesce(due_at, -9223372036854775807)) VIRTUAL;
                CREATE INDEX task_by_due_asc ON task (due_sort_asc, id);
                CREATE INDEX task_by_due_desc ON task (due_sort_desc, id);
                """)
        },
        .init(version: 5) { db in
            // Reading the log asks whether a task was deleted after a change to it.
            try db.execute("CREATE INDEX change_by_task ON change (task_id, seq)")
        },
        .init(version: 6) { db in
            try db.run("INSERT OR IGNORE INTO meta (key, value) VALUES (?, abs(random()))", ["database_id"])
        },
        .init(version: 7) { db in
            // The trigram index over the folded texts that the text filter's instr() reads.
            // Indexing the raw texts let SQLite fold them its own way, which is not Swift's
            // (İ lowercases to i + U+0307), and the index then left out tasks instr() matches.
            try db.execute("""
                DROP TRIGGER task_text_insert;
                DROP TRIGGER task_text_delete;
                DROP TRIGGER task_text_update;
                DROP TABLE task_text;
                CREATE VIRTUAL TABLE task_text USING fts5 (
                    title_fold, notes_fold, content = 'task', content_rowid = 'pk', tokenize = 'trigram case_sensitive 1'
                );
                INSERT INTO task_text (task_text) VALUES ('rebuild');
                CREATE TRIGGER task_text_insert AFTER INSERT ON task BEGIN
                    INSERT INTO task_text (rowid, title_fold, notes_fold) VALUES (NEW.pk, NEW.title_fold, NEW.notes_fold);
                END;
                CREATE TRIGGER task_text_delete AFTER DELETE ON task BEGIN
                    INSERT INTO task_text (task_text, rowid, title_fold, notes_fold) VALUES ('delete', OLD.pk, OLD.title_fold, OLD.notes_fold);
                END;
                CREATE TRIGGER task_text_update AFTER UPDATE OF title_fold, notes_fold ON task
                WHEN OLD.title_fold IS NOT NEW.title_fold OR OLD.notes_fold IS NOT NEW.notes_fold BEGIN
                    INSERT INTO task_text (task_text, rowid, title_fold, notes_fold) VALUES ('delete', OLD.pk, OLD.title_fold, OLD.notes_fold);
                    INSERT INTO task_text (rowid, title_fold, notes_fold) VALUES (NEW.pk, NEW.title_fold, NEW.notes_fold);
                END;
                """)
        },
        .init(version: 8) { db in
            // Each task's tags, denormalized into its row, so that reading a task needs no
            // subquery: a page read its tags with an index lookup per task, much of its cost.
            // Kept in step by triggers, whoever writes task_tag; the log's update trigger
            // ignores this column, so keeping it in step logs nothing of its own.
            try db.execute("""
                ALTER TABLE task ADD COLUMN tags TEXT NOT NULL DEFAULT '';  -- code-point order, joined by U+001F
                UPDATE task SET tags = coalesce((SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tag WHERE task_pk = task.pk ORDER BY tag)), '');
                CREATE TRIGGER task_tag_insert AFTER INSERT ON task_tag BEGIN
                    UPDATE task SET tags = coalesce((SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tag WHERE task_pk = NEW.task_pk ORDER BY tag)), '') WHERE pk = NEW.task_pk;
                END;
                CREATE TRIGGER task_tag_delete AFTER DELETE ON task_tag BEGIN
                    UPDATE task SET tags = coalesce((SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tag WHERE task_pk = OLD.task_pk ORDER BY tag)), '') WHERE pk = OLD.task_pk;
                END;
                DROP TRIGGER task_log_update;
                CREATE TRIGGER task_log_update AFTER UPDATE OF
                    id, title, title_fold, notes, notes_fold, done, priority, due, due_at, created_at, updated_at, completed_at, version
                ON task BEGIN
                    INSERT INTO change (kind, task_id, version, at) VALUES ('updated', NEW.id, NEW.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
                END;
                """)
        },
        .init(version: 9) { db in
            // How many tasks are open and done, kept by triggers: `includeTotal` with no
            // filter or only `done` reads it instead of counting every index entry.
            try db.execute("""
                CREATE TABLE task_total (done INTEGER PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID;
                INSERT INTO task_total (done, count) VALUES (0, 0), (1, 0);
                UPDATE task_total SET count = (SELECT count(*) FROM task WHERE task.done = task_total.done);
                CREATE TRIGGER task_total_insert AFTER INSERT ON task BEGIN
                    UPDATE task_total SET count = count + 1 WHERE done = NEW.done;
                END;
                CREATE TRIGGER task_total_delete AFTER DELETE ON task BEGIN
                    UPDATE task_total SET count = count - 1 WHERE done = OLD.done;
                END;
                CREATE TRIGGER task_total_update AFTER UPDATE OF done ON task WHEN OLD.done IS NOT NEW.done BEGIN
                    UPDATE task_total SET count = count - 1 WHERE done = OLD.done;
                    UPDATE task_total SET count = count + 1 WHERE done = NEW.done;
                END;
                """)
        },
        .init(version: 10) { db in
            // Each tagging carries its task's default sort key (created_at, id), indexed after
            // the tag: a page of a tag's tasks by creation time is read in order from there,
            // however common or rare the tag. Checking tasks along task_by_created until a
            // page's worth had a rare tag read a large part of the file.
            // Filled by triggers when a writer leaves them out; Taskline writes them itself.
            try db.execute("""
                ALTER TABLE task_tag ADD COLUMN created_at INTEGER;
                ALTER TABLE task_tag ADD COLUMN task_id TEXT;
                UPDATE task_tag SET (created_at, task_id) = (SELECT created_at, id FROM task WHERE task.pk = task_tag.task_pk);
                CREATE INDEX task_tag_by_created ON task_tag (tag, created_at, task_id);
                CREATE TRIGGER task_tag_sort_key AFTER INSERT ON task_tag
                WHEN NEW.created_at IS NULL OR NEW.task_id IS NULL BEGIN
                    UPDATE task_tag SET (created_at, task_id) = (SELECT created_at, id FROM task WHERE task.pk = NEW.task_pk)
                    WHERE tag = NEW.tag AND task_pk = NEW.task_pk;
                END;
                CREATE TRIGGER task_sort_key_update AFTER UPDATE OF created_at, id ON task BEGIN
                    UPDATE task_tag SET created_at = NEW.created_at, task_id = NEW.id WHERE task_pk = NEW.pk;
                END;
                """)
        },
        .init(version: 11) { db in
            // New and changed texts wait in task_text_pending and reach the trigram index in
            // batches (TextIndex.indexPending), as PostgreSQL's GIN indexes keep a pending
            // list: FTS5 writes a segment per transaction, which made indexing one task a
            // large part of a one-task commit. The text filter reads the pending tasks directly.
            // Invariant: a task not pending has exactly its current folded texts indexed;
            // a pending one has nothing indexed.
            try db.execute("""
                CREATE TABLE task_text_pending (pk INTEGER PRIMARY KEY);
                DROP TRIGGER task_text_insert;
                DROP TRIGGER task_text_delete;
                DROP TRIGGER task_text_update;
                CREATE TRIGGER task_text_insert AFTER INSERT ON task BEGIN
                    INSERT OR IGNORE INTO task_text_pending (pk) VALUES (NEW.pk);
                END;
                CREATE TRIGGER task_text_delete AFTER DELETE ON task BEGIN
                    INSERT INTO task_text (task_text, rowid, title_fold, notes_fold)
                        SELECT 'delete', OLD.pk, OLD.title_fold, OLD.notes_fold
                        WHERE NOT EXISTS (SELECT 1 FROM task_text_pending WHERE pk = OLD.pk);
                    DELETE FROM task_text_pending WHERE pk = OLD.pk;
                END;
                CREATE TRIGGER task_text_update AFTER UPDATE OF title_fold, notes_fold ON task
                WHEN OLD.title_fold IS NOT NEW.title_fold OR OLD.notes_fold IS NOT NEW.notes_fold BEGIN
                    INSERT INTO task_text (task_text, rowid, title_fold, notes_fold)
                        SELECT 'delete', OLD.pk, OLD.title_fold, OLD.notes_fold
                        WHERE NOT EXISTS (SELECT 1 FROM task_text_pending WHERE pk = OLD.pk);
                    INSERT OR IGNORE INTO task_text_pending (pk) VALUES (NEW.pk);
                END;
                """)
        },
        .init(version: 12) { db in
            // The change log without AUTOINCREMENT and without its index on time: each
            // made every write touch one more B-tree (sqlite_sequence, change_by_time).
            // A seq still never repeats: SQLite gives a new row the largest seq + 1, and
            // pruning always keeps the newest change (TaskStore.pruneHistory). A log that
            // pruning emptied before this version gets a row holding the newest seq handed
            // out, which is at or below history_pruned_through, so no reader is ever given it.
            let newestHandedOut = try db.integer("SELECT seq FROM sqlite_sequence WHERE name = 'change'") ?? 0
            try db.execute("""
                DROP TRIGGER task_log_insert;
                DROP TRIGGER task_log_update;
                DROP TRIGGER task_log_delete;
                CREATE TABLE change_v12 (
                    seq INTEGER PRIMARY KEY,
                    kind TEXT NOT NULL CHECK (kind IN ('created', 'updated', 'deleted')),
                    task_id TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    at INTEGER NOT NULL
                );
                INSERT INTO change_v12 (seq, kind, task_id, version, at) SELECT seq, kind, task_id, version, at FROM change;
                DROP TABLE change;
                ALTER TABLE change_v12 RENAME TO change;
                CREATE INDEX change_by_task ON change (task_id, seq);
                DELETE FROM sqlite_sequence WHERE name = 'change';
                CREATE TRIGGER task_log_insert AFTER INSERT ON task BEGIN
                    INSERT INTO change (kind, task_id, version, at) VALUES ('created', NEW.id, NEW.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
                END;
                CREATE TRIGGER task_log_update AFTER UPDATE OF
                    id, title, title_fold, notes, notes_fold, done, priority, due, due_at, created_at, updated_at, completed_at, version
                ON task BEGIN
                    INSERT INTO change (kind, task_id, version, at) VALUES ('updated', NEW.id, NEW.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
                END;
                CREATE TRIGGER task_log_delete AFTER DELETE ON task BEGIN
                    INSERT INTO change (kind, task_id, version, at) VALUES ('deleted', OLD.id, OLD.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
                END;
                """)
            if try newestSeq(in: db) < newestHandedOut {
                try db.run("INSERT INTO change (seq, kind, task_id, version, at) VALUES (?, 'deleted', '', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))",
                           [.integer(newestHandedOut)])
            }
        },
        .init(version: 13) { db in
            // The change log's index by task answers one question (TaskStore.changes): was
            // this id deleted after a given change? Only deletions answer it, so only they
            // are indexed: creates and updates write no leaf there, which with random ids
            // was a page at a random place in every commit.
            try db.execute("""
                DROP INDEX change_by_task;
                CREATE INDEX change_deletion_by_task ON change (task_id, seq) WHERE kind = 'deleted';
                """)
        },
        .init(version: 14) { db in
            // SQLite checks `kind IN ('created', 'updated', 'deleted')` by building a
            // temporary B-tree of the list in every statement that logs a change, a large
            // part of a one-task create. The same rule written as equalities is three
            // comparisons. A CHECK rewritten into an
            // equivalent one changes no stored byte, so the definition is edited in place,
            // by the procedure SQLite's ALTER TABLE documentation gives for such changes
            // (writable_schema, then a new schema_version so every connection reloads it),
            // not by copying the whole log. A log defined otherwise is left as it is.
            let nextSchemaCookie = try (db.integer("PRAGMA schema_version") ?? 0) + 1
            try db.execute("PRAGMA writable_schema = ON")
            try db.run("""
                UPDATE sqlite_schema SET sql = replace(sql, ?1, ?2)
                WHERE type = 'table' AND name = 'change' AND instr(sql, ?1) > 0
                """, [.text("CHECK (kind IN ('created', 'updated', 'deleted'))"),
                      .text("CHECK (kind = 'created' OR kind = 'updated' OR kind = 'deleted')")])
            try db.execute("PRAGMA schema_version = \(nextSchemaCookie)")
            try db.execute("PRAGMA writable_schema = OFF")
        },
        .init(version: 15) { db in
            // task_by_done (done, created_at, id) holds the order by creation time in two
            // runs, the open tasks' and the done tasks'; pages in that order merge the two
            // (FetchPlan). The index on (created_at, id) alone was one more B-tree leaf, and
            // one more WAL frame, in every task's write.
            try db.execute("DROP INDEX task_by_created")
        },
        .init(version: 16) { db in
            // The order by due date descending, undated tasks last, is read from
            // task_by_due_asc in two runs: its dated tasks backwards, then its undated ones
            // (FetchPlan.pageRuns). The index that held it in one piece was one more B-tree
            // leaf in every task's write.
            try db.execute("DROP INDEX task_by_due_desc")
        },
        .init(version: 17) { db in
            // Projects, dependencies, waiting and clients' own data. Dependencies are rows of
            // task_dependency; each task's row holds copies that reads and filters use without
            // a subquery, kept in step by triggers whoever writes: its dependencies' ids
            // (code-point order, joined by U+001F) and how many of them are not done. The
            // partial indexes hold only the tasks that have a project, a wait time or an open
            // dependency, so that a task with none of them writes no leaf of theirs. The
            // waiting and the blocked ones are held in task_by_done's order, so that a page of
            // them by creation time is read in order (FetchPlan), however few they are.
            // The log's update trigger ignores the copies, as it does the tags.
            try db.execute("""
                ALTER TABLE task ADD COLUMN project TEXT;
                ALTER TABLE task ADD COLUMN wait TEXT;                      -- as the client wrote it
                ALTER TABLE task ADD COLUMN wait_at INTEGER;                -- the same instant in ms since the epoch
                ALTER TABLE task ADD COLUMN meta TEXT NOT NULL DEFAULT '{}';  -- a JSON object, as the client wrote it
                ALTER TABLE task ADD COLUMN depends_on TEXT NOT NULL DEFAULT '';
                ALTER TABLE task ADD COLUMN blocked_by INTEGER NOT NULL DEFAULT 0;  -- dependencies not done
                CREATE INDEX task_by_project ON task (project, id) WHERE project IS NOT NULL;
                CREATE INDEX task_by_wait ON task (done, created_at, id) WHERE wait_at IS NOT NULL;
                CREATE INDEX task_blocked ON task (done, created_at, id) WHERE blocked_by > 0;
                CREATE TABLE task_dependency (
                    task_pk INTEGER NOT NULL REFERENCES task (pk) ON DELETE CASCADE,
                    depends_on_pk INTEGER NOT NULL REFERENCES task (pk) ON DELETE CASCADE,
                    PRIMARY KEY (task_pk, depends_on_pk)
                ) WITHOUT ROWID;
                CREATE INDEX task_dependency_by_target ON task_dependency (depends_on_pk, task_pk);
                CREATE TRIGGER task_dependency_insert AFTER INSERT ON task_dependency BEGIN
                    UPDATE task SET
                        depends_on = coalesce((SELECT group_concat(id, char(31)) FROM (SELECT t.id FROM task_dependency d JOIN task t ON t.pk = d.depends_on_pk WHERE d.task_pk = NEW.task_pk ORDER BY t.id)), ''),
                        blocked_by = (SELECT count(*) FROM task_dependency d JOIN task t ON t.pk = d.depends_on_pk WHERE d.task_pk = NEW.task_pk AND t.done = 0)
                    WHERE pk = NEW.task_pk;
                END;
                CREATE TRIGGER task_dependency_delete AFTER DELETE ON task_dependency BEGIN
                    UPDATE task SET
                        depends_on = coalesce((SELECT group_concat(id, char(31)) FROM (SELECT t.id FROM task_dependency d JOIN task t ON t.pk = d.depends_on_pk WHERE d.task_pk = OLD.task_pk ORDER BY t.id)), ''),
                        blocked_by = (SELECT count(*) FROM task_dependency d JOIN task t ON t.pk = d.depends_on_pk WHERE d.task_pk = OLD.task_pk AND t.done = 0)
                    WHERE pk = OLD.task_pk;
                END;
                CREATE TRIGGER task_dependency_done AFTER UPDATE OF done ON task WHEN OLD.done IS NOT NEW.done BEGIN
                    UPDATE task SET
                        blocked_by = (SELECT count(*) FROM task_dependency d JOIN task t ON t.pk = d.depends_on_pk WHERE d.task_pk = task.pk AND t.done = 0)
                    WHERE pk IN (SELECT task_pk FROM task_dependency WHERE depends_on_pk = NEW.pk);
                END;
                DROP TRIGGER task_log_update;
                CREATE TRIGGER task_log_update AFTER UPDATE OF
                    id, title, title_fold, notes, notes_fold, done, priority, due, due_at, created_at, updated_at, completed_at, version,
                    project, wait, wait_at, meta
                ON task BEGIN
                    INSERT INTO change (kind, task_id, version, at) VALUES ('updated', NEW.id, NEW.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
                END;
                """)
        },
        .init(version: 18) { db in
            // Recurrence. successor_id records the next occurrence a task made when it was
            // completed: while that task exists the occurrence makes no other, however often
            // it is reopened and completed again. It is the server's own bookkeeping, so the
            // log's update trigger ignores it; it logs the two fields.
            try db.execute("""
                ALTER TABLE task ADD COLUMN recurrence TEXT;    -- the RFC 5545 rule as the client wrote it
                ALTER TABLE task ADD COLUMN series_id TEXT;     -- the id of the series' first occurrence
                ALTER TABLE task ADD COLUMN successor_id TEXT;  -- the occurrence made when this one was completed
                DROP TRIGGER task_log_update;
                CREATE TRIGGER task_log_update AFTER UPDATE OF
                    id, title, title_fold, notes, notes_fold, done, priority, due, due_at, created_at, updated_at, completed_at, version,
                    project, wait, wait_at, meta, recurrence, series_id
                ON task BEGIN
                    INSERT INTO change (kind, task_id, version, at) VALUES ('updated', NEW.id, NEW.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
                END;
                """)
        },
        .init(version: 19) { db in
            // Reminders. `remind` is the time as the client wrote it, `remind_at` the same
            // instant in ms; `reminded` is 1 once a server has sent the reminder for that
            // instant to a client (at most once per database: the server that sets it, in a
            // write transaction, is the one that sends it), and goes back to 0 whoever moves
            // `remind_at`, since that is a new reminder. The partial index holds the reminders
            // still to send, soonest first, so that the next one is one index read and a task
            // without one writes no leaf of it. The log's update trigger takes in the time,
            // not the delivery mark.
            try db.execute("""
                ALTER TABLE task ADD COLUMN remind TEXT;                     -- as the client wrote it
                ALTER TABLE task ADD COLUMN remind_at INTEGER;               -- the same instant in ms since the epoch
                ALTER TABLE task ADD COLUMN reminded INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX task_reminder_due ON task (remind_at) WHERE remind_at IS NOT NULL AND done = 0 AND reminded = 0;
                CREATE TRIGGER task_reminder_moved AFTER UPDATE OF remind_at ON task
                WHEN OLD.remind_at IS NOT NEW.remind_at AND NEW.reminded <> 0 BEGIN
                    UPDATE task SET reminded = 0 WHERE pk = NEW.pk;
                END;
                DROP TRIGGER task_log_update;
                CREATE TRIGGER task_log_update AFTER UPDATE OF
                    id, title, title_fold, notes, notes_fold, done, priority, due, due_at, created_at, updated_at, completed_at, version,
                    project, wait, wait_at, meta, recurrence, series_id, remind, remind_at
                ON task BEGIN
                    INSERT INTO change (kind, task_id, version, at) VALUES ('updated', NEW.id, NEW.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
                END;
                """)
        },
        .init(version: 20) { db in
            // Change groups, for undo and redo: each write request and each tasks/apply is
            // one group, the run of changes its transaction logged (a transaction holds the
            // write lock, so no other change falls between). Each change of a group is marked
            // with it: `group_first` is the group's first change's seq (NULL on that change
            // itself), `group_origin` the connection that wrote it (0: the command line);
            // another program's changes have none. A table of groups was one more B-tree
            // page in every commit. An undo or a
            // redo is a group too, with a row of change_reversal saying what it `reverts`
            // (`seq` NULL when it changed nothing, so that its target counts as reverted).
            // change_before holds, for each task a group updated or deleted, the task's row
            // before the group as a JSON object keyed by column name (TaskStore.snapshotSQL);
            // a task the group created has none, so a create writes no snapshot. All of it
            // goes with the change log when it is pruned.
            // A create marks its change from the insert itself: the task row carries the
            // origin that created it (`origin`, NULL for an import and for other programs)
            // and the log's insert trigger copies it, so that the change is a group of its
            // own (`group_first` NULL: it starts one) at no cost of a statement. Changes
            // that are not a group's first, and updates and deletions, are marked by an
            // update of the row the write just logged (TaskStore.markedSeq).
            try db.execute("""
                ALTER TABLE change ADD COLUMN group_first INTEGER;
                ALTER TABLE change ADD COLUMN group_origin INTEGER;
                ALTER TABLE task ADD COLUMN origin INTEGER;
                DROP TRIGGER task_log_insert;
                CREATE TRIGGER task_log_insert AFTER INSERT ON task BEGIN
                    INSERT INTO change (kind, task_id, version, at, group_origin) VALUES ('created', NEW.id, NEW.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), NEW.origin);
                END;
                CREATE TABLE change_reversal (
                    seq INTEGER,
                    kind TEXT NOT NULL CHECK (kind = 'undo' OR kind = 'redo'),
                    reverts INTEGER NOT NULL
                );
                CREATE INDEX change_reversal_by_seq ON change_reversal (seq);
                CREATE INDEX change_reversal_by_target ON change_reversal (reverts);
                CREATE TABLE change_before (
                    group_seq INTEGER NOT NULL,
                    task_id TEXT NOT NULL,
                    task TEXT NOT NULL,
                    PRIMARY KEY (group_seq, task_id)
                ) WITHOUT ROWID;
                """)
        },
        .init(version: 21) { db in
            // Pages by project and due date, each way: within a project, tasks by due date
            // with the undated ones last, read in order instead of every task of a project
            // sorted. Only tasks that have a project write a leaf of them.
            try db.execute("""
                CREATE INDEX task_by_project_due_asc ON task (project, due_sort_asc, id) WHERE project IS NOT NULL;
                CREATE INDEX task_by_project_due_desc ON task (project, due_sort_desc, id) WHERE project IS NOT NULL;
                """)
        },
        .init(version: 22) { db in
            // Counts for `includeTotal` that read no task rows. task_by_wait holds each
            // waiting task's wait time too: counting the tasks still waiting looked every
            // one of them up in the table. project_total counts the tasks of each project,
            // kept by triggers as task_total is: a project with its subprojects is a sum
            // over a few rows, not a count of hundreds of thousands of index entries. Only
            // a task with a project writes a row of it. task_tag_by_tag holds each tag's
            // tasks as task_tag's key does, without the copies of their sort keys that make
            // the key's entries several times longer: counting a tag, or the tasks two tags
            // share (a merge of their ranges), reads a few hundred pages instead of thousands,
            // which the page cache holds.
            try db.execute("""
                CREATE INDEX task_tag_by_tag ON task_tag (tag, task_pk);
                DROP INDEX task_by_wait;
                CREATE INDEX task_by_wait ON task (done, created_at, id, wait_at) WHERE wait_at IS NOT NULL;
                CREATE TABLE project_total (project TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID;
                INSERT INTO project_total (project, count) SELECT project, count(*) FROM task WHERE project IS NOT NULL GROUP BY project;
                CREATE TRIGGER project_total_insert AFTER INSERT ON task WHEN NEW.project IS NOT NULL BEGIN
                    INSERT INTO project_total (project, count) VALUES (NEW.project, 1)
                    ON CONFLICT (project) DO UPDATE SET count = count + 1;
                END;
                CREATE TRIGGER project_total_delete AFTER DELETE ON task WHEN OLD.project IS NOT NULL BEGIN
                    DELETE FROM project_total WHERE project = OLD.project AND count = 1;
                    UPDATE project_total SET count = count - 1 WHERE project = OLD.project;
                END;
                CREATE TRIGGER project_total_update AFTER UPDATE OF project ON task WHEN OLD.project IS NOT NEW.project BEGIN
                    DELETE FROM project_total WHERE project = OLD.project AND count = 1;
                    UPDATE project_total SET count = count - 1 WHERE project = OLD.project;
                    INSERT INTO project_total (project, count) SELECT NEW.project, 1 WHERE NEW.project IS NOT NULL
                    ON CONFLICT (project) DO UPDATE SET count = count + 1;
                END;
                """)
        },
        .init(version: 23) { db in
            // The tasks with a wait time (a few in a hundred) in task_by_due_asc's order: a
            // page of waiting tasks by due date walks them, not every task. Only a task with
            // a wait time writes a leaf of it.
            try db.execute("CREATE INDEX task_waiting_by_due ON task (due_sort_asc, id) WHERE wait_at IS NOT NULL")
        },
        .init(version: 24) { db in
            // The trigram index without its table of each task's text sizes
            // (task_text_docsize): only ranking (bm25, xColumnSize) reads it, and the text
            // filter only asks which tasks match. A changed text rewrote the task's row of
            // it, a page at a random place in the file: a fifth of an undo's pages. The
            // rebuild indexes every task, those waiting in task_text_pending included. It
            // leaves the index in many segments, which the first writes after it would pay to
            // merge: 'optimize' merges them here.
            try db.execute("""
                DROP TABLE task_text;
                CREATE VIRTUAL TABLE task_text USING fts5 (
                    title_fold, notes_fold, content = 'task', content_rowid = 'pk', tokenize = 'trigram case_sensitive 1', columnsize = 0
                );
                INSERT INTO task_text (task_text) VALUES ('rebuild');
                INSERT INTO task_text (task_text) VALUES ('optimize');
                DELETE FROM task_text_pending;
                """)
        },
        .init(version: 25) { db in
            // The blocked tasks (one or two in a hundred) by priority, then due date: a page
            // of them in that order (a run per priority, FetchPlan.priorityRuns) walks them,
            // not every task of a priority along task_by_due_asc. Only a blocked task
            // writes a leaf of it.
            try db.execute("CREATE INDEX task_blocked_by_priority_due ON task (priority, due_sort_asc, id) WHERE blocked_by > 0")
        },
        .init(version: 26) { db in
            // The texts an update or a deletion takes out of the trigram index wait in
            // task_text_stale, as new texts wait in task_text_pending, and both reach the
            // index in one batch (TextIndex.indexPending). A 'delete' written at once made
            // FTS5 write a segment at the end of every statement that wrote the task (its
            // statement savepoint), and merge them: most of the work of an undo of title
            // changes (docs/decisions/0005-text-index-batches.md). Invariant: a task that is not pending has exactly its current
            // folded texts indexed; what is indexed under a key that is pending or has no
            // task is exactly its row of task_text_stale, if any. The text filter's instr()
            // decides, so a stale entry only adds a candidate it turns down.
            try db.execute("""
                CREATE TABLE task_text_stale (pk INTEGER PRIMARY KEY, title_fold TEXT, notes_fold TEXT);
                DROP TRIGGER task_text_delete;
                DROP TRIGGER task_text_update;
                CREATE TRIGGER task_text_delete AFTER DELETE ON task BEGIN
                    INSERT OR IGNORE INTO task_text_stale (pk, title_fold, notes_fold)
                        SELECT OLD.pk, OLD.title_fold, OLD.notes_fold
                        WHERE NOT EXISTS (SELECT 1 FROM task_text_pending WHERE pk = OLD.pk);
                    DELETE FROM task_text_pending WHERE pk = OLD.pk;
                END;
                CREATE TRIGGER task_text_update AFTER UPDATE OF title_fold, notes_fold ON task
                WHEN OLD.title_fold IS NOT NEW.title_fold OR OLD.notes_fold IS NOT NEW.notes_fold BEGIN
                    INSERT OR IGNORE INTO task_text_stale (pk, title_fold, notes_fold)
                        SELECT OLD.pk, OLD.title_fold, OLD.notes_fold
                        WHERE NOT EXISTS (SELECT 1 FROM task_text_pending WHERE pk = OLD.pk);
                    INSERT OR IGNORE INTO task_text_pending (pk) VALUES (NEW.pk);
                END;
                """)
        },
        .init(version: 27) { db in
            // Each priority's tasks in due order: a sort by priority, then due date reads a
            // run per priority as a range of it (FetchPlan.priorityRuns). Along
            // task_by_due_asc with the priority checked, each run would read every
            // priority's tasks.
            try db.execute("CREATE INDEX task_by_priority_due ON task (priority, due_sort_asc, id)")
        },
        .init(version: 28) { db in
            // The tasks with a wait time by project, and by project then due date each way (as
            // task_by_project_due_asc and …_desc): a page of waiting tasks in these orders
            // walks them (SQLite picks them by itself: the waiting clause implies a wait
            // time), not every task with a project along task_by_project with the wait time
            // checked (one in a hundred waits). Only a task with a wait time writes their
            // leaves.
            try db.execute("""
                CREATE INDEX task_waiting_by_project ON task (project, id) WHERE wait_at IS NOT NULL;
                CREATE INDEX task_waiting_by_project_due_asc ON task (project, due_sort_asc, id) WHERE wait_at IS NOT NULL;
                CREATE INDEX task_waiting_by_project_due_desc ON task (project, due_sort_desc, id) WHERE wait_at IS NOT NULL;
                """)
        },
        .init(version: 29) { db in
            // The blocked tasks (one in 75) by due date, then priority: a page of them in that
            // order, either way, is a range of it (FetchPlan names it), not each task along
            // task_by_due_asc checked for a dependency not done. Only a blocked task writes a
            // leaf of it.
            try db.execute("CREATE INDEX task_blocked_by_due_priority ON task (due_sort_asc, priority, id) WHERE blocked_by > 0")
        },
        .init(version: 30) { db in
            // The blocked tasks by due date, and by project then due date each way (FetchPlan
            // names them): a page of them, first or from a cursor, along task_by_due_asc or
            // task_by_project_due_asc with each task's dependencies checked reads 75 tasks
            // for each one it keeps. Only a blocked task writes leaves of them.
            try db.execute("""
                CREATE INDEX task_blocked_by_due ON task (due_sort_asc, id) WHERE blocked_by > 0;
                CREATE INDEX task_blocked_by_project_due_asc ON task (project, due_sort_asc, id) WHERE blocked_by > 0;
                CREATE INDEX task_blocked_by_project_due_desc ON task (project, due_sort_desc, id) WHERE blocked_by > 0;
                """)
        },
        .init(version: 31) { db in
            // How many tasks have each two tags (tag < other, by BINARY), kept by task_tag's
            // triggers: `includeTotal` with two tags alone reads one row, not a merge of
            // their two ranges of task_tag_by_tag. A
            // tagging writes a row for each other tag of its task, none for a task's only
            // tag; a pair no task has loses its row. The statements join the triggers that
            // keep `tags`, as a trigger of their own would cost each tagging a program of
            // its own.
            try db.execute("""
                CREATE TABLE tag_pair_total (tag TEXT NOT NULL, other TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (tag, other)) WITHOUT ROWID;
                INSERT INTO tag_pair_total (tag, other, count)
                    SELECT a.tag, b.tag, count(*) FROM task_tag a JOIN task_tag b ON b.task_pk = a.task_pk AND b.tag > a.tag GROUP BY a.tag, b.tag;
                DROP TRIGGER task_tag_insert;
                CREATE TRIGGER task_tag_insert AFTER INSERT ON task_tag BEGIN
                    UPDATE task SET tags = coalesce((SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tag WHERE task_pk = NEW.task_pk ORDER BY tag)), '') WHERE pk = NEW.task_pk;
                    INSERT INTO tag_pair_total (tag, other, count)
                    SELECT min(NEW.tag, tag), max(NEW.tag, tag), 1 FROM task_tag WHERE task_pk = NEW.task_pk AND tag <> NEW.tag
                    ON CONFLICT (tag, other) DO UPDATE SET count = count + 1;
                END;
                DROP TRIGGER task_tag_delete;
                CREATE TRIGGER task_tag_delete AFTER DELETE ON task_tag BEGIN
                    UPDATE task SET tags = coalesce((SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tag WHERE task_pk = OLD.task_pk ORDER BY tag)), '') WHERE pk = OLD.task_pk;
                    UPDATE tag_pair_total SET count = count - 1 WHERE (tag, other) IN
                        (SELECT min(OLD.tag, tag), max(OLD.tag, tag) FROM task_tag WHERE task_pk = OLD.task_pk AND tag <> OLD.tag);
                    DELETE FROM tag_pair_total WHERE count = 0 AND (tag, other) IN
                        (SELECT min(OLD.tag, tag), max(OLD.tag, tag) FROM task_tag WHERE task_pk = OLD.task_pk AND tag <> OLD.tag);
                END;
                """)
        },
        .init(version: 32) { db in
            // The blocked tasks by project (FetchPlan names it): a page of the open, blocked
            // ones by project, descending, checked 75 tasks along task_by_project for each it
            // kept, each row looked up at random. Only a blocked task writes a leaf of it.
            try db.execute("CREATE INDEX task_blocked_by_project ON task (project, id) WHERE blocked_by > 0")
        },
        .init(version: 33) { db in
            // The blocked tasks' wait times, as task_by_wait holds them (schema 22): the count
            // of the open tasks both blocked and waiting, a term of `next`'s `includeTotal`
            // (TaskFilter.countTerms), looked every waiting task's row up, and reads this
            // index alone. Only a blocked task writes a leaf of it.
            try db.execute("""
                DROP INDEX task_blocked;
                CREATE INDEX task_blocked ON task (done, created_at, id, wait_at) WHERE blocked_by > 0;
                """)
        },
        .init(version: 34) { db in
            // How many tasks have each tag, and how many of them are open: `includeTotal`
            // with a tag and the open tasks (a tag's list, and the first term of its `next`
            // list) looked every tagged task up; a tag alone read its range of task_tag_by_tag, which goes: what else read it, a
            // tag's first tasks and a few tags' merge, task_tag's key serves. A tagging writes
            // a row of this table where it wrote a leaf of that index; a task done or opened
            // again moves its tags' open counts, and one deleted takes its tags' counts from
            // the row before (the taggings' cascade then finds no task, and leaves them
            // alone). Each statement is an upsert driven by the task's taggings, one row a
            // tag: an IN of them made SQLite build a table of them first, and two rows a tag
            // (open and done) would take two statements a completion. So a tag on no task keeps its row of 0, which readers pass over.
            try db.execute("""
                CREATE TABLE tag_total (tag TEXT PRIMARY KEY, count INTEGER NOT NULL, open INTEGER NOT NULL) WITHOUT ROWID;
                INSERT INTO tag_total (tag, count, open)
                    SELECT task_tag.tag, count(*), count(*) FILTER (WHERE task.done = 0) FROM task_tag JOIN task ON task.pk = task_tag.task_pk GROUP BY 1;
                DROP INDEX task_tag_by_tag;
                DROP TRIGGER task_tag_insert;
                CREATE TRIGGER task_tag_insert AFTER INSERT ON task_tag BEGIN
                    UPDATE task SET tags = coalesce((SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tag WHERE task_pk = NEW.task_pk ORDER BY tag)), '') WHERE pk = NEW.task_pk;
                    INSERT INTO tag_pair_total (tag, other, count)
                    SELECT min(NEW.tag, tag), max(NEW.tag, tag), 1 FROM task_tag WHERE task_pk = NEW.task_pk AND tag <> NEW.tag
                    ON CONFLICT (tag, other) DO UPDATE SET count = count + 1;
                    INSERT INTO tag_total (tag, count, open) SELECT NEW.tag, 1, done = 0 FROM task WHERE pk = NEW.task_pk
                    ON CONFLICT (tag) DO UPDATE SET count = count + 1, open = open + excluded.open;
                END;
                DROP TRIGGER task_tag_delete;
                CREATE TRIGGER task_tag_delete AFTER DELETE ON task_tag BEGIN
                    UPDATE task SET tags = coalesce((SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tag WHERE task_pk = OLD.task_pk ORDER BY tag)), '') WHERE pk = OLD.task_pk;
                    UPDATE tag_pair_total SET count = count - 1 WHERE (tag, other) IN
                        (SELECT min(OLD.tag, tag), max(OLD.tag, tag) FROM task_tag WHERE task_pk = OLD.task_pk AND tag <> OLD.tag);
                    DELETE FROM tag_pair_total WHERE count = 0 AND (tag, other) IN
                        (SELECT min(OLD.tag, tag), max(OLD.tag, tag) FROM task_tag WHERE task_pk = OLD.task_pk AND tag <> OLD.tag);
                    INSERT INTO tag_total (tag, count, open) SELECT OLD.tag, -1, -(done = 0) FROM task WHERE pk = OLD.task_pk
                    ON CONFLICT (tag) DO UPDATE SET count = count + excluded.count, open = open + excluded.open;
                END;
                DROP TRIGGER task_total_update;
                CREATE TRIGGER task_total_update AFTER UPDATE OF done ON task WHEN OLD.done IS NOT NEW.done BEGIN
                    UPDATE task_total SET count = count - 1 WHERE done = OLD.done;
                    UPDATE task_total SET count = count + 1 WHERE done = NEW.done;
                    INSERT INTO tag_total (tag, count, open) SELECT tag, 0, (NEW.done = 0) - (OLD.done = 0) FROM task_tag WHERE task_pk = NEW.pk
                    ON CONFLICT (tag) DO UPDATE SET open = open + excluded.open;
                END;
                CREATE TRIGGER tag_total_delete BEFORE DELETE ON task BEGIN
                    INSERT INTO tag_total (tag, count, open) SELECT tag, -1, -(OLD.done = 0) FROM task_tag WHERE task_pk = OLD.pk
                    ON CONFLICT (tag) DO UPDATE SET count = count + excluded.count, open = open + excluded.open;
                END;
                """)
        },
        .init(version: 35) { db in
            // The open tasks of each project and of each two tags, beside their counts, and
            // each task's `done` in task_by_due_asc: `includeTotal` with the open (or done)
            // tasks and a project looked every task of the project up, with two tags every
            // task of both, and with a due window every task in the window, at random. The
            // counts are now a sum over a few rows or one row, the
            // window's a range of the index alone. A task done or opened again moves the
            // open counts of its project and of its tags' pairs, and its entry in
            // task_by_due_asc within its leaf; a task moved to another project takes its
            // state along, and the `done` trigger adds the change of state to the new
            // project whichever of the two runs first. A deleted task's pairs lose its open
            // count before the taggings' cascade, which then finds no task (as tag_total's).
            try db.execute("""
                DROP TABLE project_total;
                CREATE TABLE project_total (project TEXT PRIMARY KEY, count INTEGER NOT NULL, open INTEGER NOT NULL) WITHOUT ROWID;
                INSERT INTO project_total (project, count, open)
                    SELECT project, count(*), count(*) FILTER (WHERE done = 0) FROM task WHERE project IS NOT NULL GROUP BY project;
                DROP TRIGGER project_total_insert;
                CREATE TRIGGER project_total_insert AFTER INSERT ON task WHEN NEW.project IS NOT NULL BEGIN
                    INSERT INTO project_total (project, count, open) VALUES (NEW.project, 1, NEW.done = 0)
                    ON CONFLICT (project) DO UPDATE SET count = count + 1, open = open + excluded.open;
                END;
                DROP TRIGGER project_total_delete;
                CREATE TRIGGER project_total_delete AFTER DELETE ON task WHEN OLD.project IS NOT NULL BEGIN
                    DELETE FROM project_total WHERE project = OLD.project AND count = 1;
                    UPDATE project_total SET count = count - 1, open = open - (OLD.done = 0) WHERE project = OLD.project;
                END;
                DROP TRIGGER project_total_update;
                CREATE TRIGGER project_total_update AFTER UPDATE OF project ON task WHEN OLD.project IS NOT NEW.project BEGIN
                    DELETE FROM project_total WHERE project = OLD.project AND count = 1;
                    UPDATE project_total SET count = count - 1, open = open - (OLD.done = 0) WHERE project = OLD.project;
                    INSERT INTO project_total (project, count, open) SELECT NEW.project, 1, OLD.done = 0 WHERE NEW.project IS NOT NULL
                    ON CONFLICT (project) DO UPDATE SET count = count + 1, open = open + excluded.open;
                END;
                DROP TABLE tag_pair_total;
                CREATE TABLE tag_pair_total (tag TEXT NOT NULL, other TEXT NOT NULL, count INTEGER NOT NULL, open INTEGER NOT NULL,
                                             PRIMARY KEY (tag, other)) WITHOUT ROWID;
                INSERT INTO tag_pair_total (tag, other, count, open)
                    SELECT a.tag, b.tag, count(*), count(*) FILTER (WHERE task.done = 0)
                    FROM task_tag a JOIN task_tag b ON b.task_pk = a.task_pk AND b.tag > a.tag JOIN task ON task.pk = a.task_pk GROUP BY a.tag, b.tag;
                DROP TRIGGER task_tag_insert;
                CREATE TRIGGER task_tag_insert AFTER INSERT ON task_tag BEGIN
                    UPDATE task SET tags = coalesce((SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tag WHERE task_pk = NEW.task_pk ORDER BY tag)), '') WHERE pk = NEW.task_pk;
                    INSERT INTO tag_pair_total (tag, other, count, open)
                    SELECT min(NEW.tag, other.tag), max(NEW.tag, other.tag), 1, task.done = 0
                    FROM task_tag AS other JOIN task ON task.pk = NEW.task_pk WHERE other.task_pk = NEW.task_pk AND other.tag <> NEW.tag
                    ON CONFLICT (tag, other) DO UPDATE SET count = count + 1, open = open + excluded.open;
                    INSERT INTO tag_total (tag, count, open) SELECT NEW.tag, 1, done = 0 FROM task WHERE pk = NEW.task_pk
                    ON CONFLICT (tag) DO UPDATE SET count = count + 1, open = open + excluded.open;
                END;
                DROP TRIGGER task_tag_delete;
                CREATE TRIGGER task_tag_delete AFTER DELETE ON task_tag BEGIN
                    UPDATE task SET tags = coalesce((SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tag WHERE task_pk = OLD.task_pk ORDER BY tag)), '') WHERE pk = OLD.task_pk;
                    UPDATE tag_pair_total SET count = count - 1, open = open - coalesce((SELECT done = 0 FROM task WHERE pk = OLD.task_pk), 0)
                    WHERE (tag, other) IN (SELECT min(OLD.tag, tag), max(OLD.tag, tag) FROM task_tag WHERE task_pk = OLD.task_pk AND tag <> OLD.tag);
                    DELETE FROM tag_pair_total WHERE count = 0 AND (tag, other) IN
                        (SELECT min(OLD.tag, tag), max(OLD.tag, tag) FROM task_tag WHERE task_pk = OLD.task_pk AND tag <> OLD.tag);
                    INSERT INTO tag_total (tag, count, open) SELECT OLD.tag, -1, -(done = 0) FROM task WHERE pk = OLD.task_pk
                    ON CONFLICT (tag) DO UPDATE SET count = count + excluded.count, open = open + excluded.open;
                END;
                DROP TRIGGER task_total_update;
                CREATE TRIGGER task_total_update AFTER UPDATE OF done ON task WHEN OLD.done IS NOT NEW.done BEGIN
                    UPDATE task_total SET count = count - 1 WHERE done = OLD.done;
                    UPDATE task_total SET count = count + 1 WHERE done = NEW.done;
                    INSERT INTO tag_total (tag, count, open) SELECT tag, 0, (NEW.done = 0) - (OLD.done = 0) FROM task_tag WHERE task_pk = NEW.pk
                    ON CONFLICT (tag) DO UPDATE SET open = open + excluded.open;
                    INSERT INTO tag_pair_total (tag, other, count, open)
                    SELECT a.tag, b.tag, 0, (NEW.done = 0) - (OLD.done = 0) FROM task_tag AS a JOIN task_tag AS b ON b.task_pk = a.task_pk AND b.tag > a.tag
                    WHERE a.task_pk = NEW.pk
                    ON CONFLICT (tag, other) DO UPDATE SET open = open + excluded.open;
                    INSERT INTO project_total (project, count, open) SELECT NEW.project, 0, (NEW.done = 0) - (OLD.done = 0) WHERE NEW.project IS NOT NULL
                    ON CONFLICT (project) DO UPDATE SET open = open + excluded.open;
                END;
                DROP TRIGGER tag_total_delete;
                CREATE TRIGGER tag_total_delete BEFORE DELETE ON task BEGIN
                    INSERT INTO tag_total (tag, count, open) SELECT tag, -1, -(OLD.done = 0) FROM task_tag WHERE task_pk = OLD.pk
                    ON CONFLICT (tag) DO UPDATE SET count = count + excluded.count, open = open + excluded.open;
                    INSERT INTO tag_pair_total (tag, other, count, open)
                    SELECT a.tag, b.tag, 0, -1 FROM task_tag AS a JOIN task_tag AS b ON b.task_pk = a.task_pk AND b.tag > a.tag
                    WHERE a.task_pk = OLD.pk AND OLD.done = 0
                    ON CONFLICT (tag, other) DO UPDATE SET open = open + excluded.open;
                END;
                DROP INDEX task_by_due_asc;
                CREATE INDEX task_by_due_asc ON task (due_sort_asc, id, done);
                """)
        },
        .init(version: 36) { db in
            // A create keeps no statement journal. SQLite copies each page a statement changes
            // into one when the statement is inside a transaction, writes more than one row
            // (triggers do) and may abort alone; Taskline undoes the whole transaction or
            // savepoint on any error, so the copy was never read
            // (docs/decisions/0022-create-keeps-no-statement-journal.md). What let a create's
            // statements abort alone:
            // - ABORT conflict resolution: the inserts say OR FAIL, which their triggers'
            //   statements take on (so the text queue's INSERT OR IGNORE, which would fail,
            //   becomes an upsert that does nothing);
            // - an upsert's update, ABORT whatever the statement says, checking NOT NULL: the
            //   counts it updates have none;
            // - an immediate foreign key on an added child row: a tagging's is checked at commit;
            // - a function in a trigger: the tags are joined by a cast literal, a pair's tags
            //   ordered by CASE, and the log takes a creation's time from the task's updated_at,
            //   which a write sets to its own time (an import, whose tasks keep theirs, sets its
            //   changes' time afterwards).
            // The tables are made again under their names with legacy_alter_table: a rename
            // otherwise checks the triggers that name the dropped tables. Updates and deletions
            // keep their journals.
            try db.execute("""
                PRAGMA legacy_alter_table = ON;
                CREATE TABLE task_tag_v36 (
                    tag TEXT NOT NULL,
                    task_pk INTEGER NOT NULL REFERENCES task (pk) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
                    created_at INTEGER,
                    task_id TEXT,
                    PRIMARY KEY (tag, task_pk)
                ) WITHOUT ROWID;
                INSERT INTO task_tag_v36 (tag, task_pk, created_at, task_id) SELECT tag, task_pk, created_at, task_id FROM task_tag;
                DROP TABLE task_tag;
                ALTER TABLE task_tag_v36 RENAME TO task_tag;
                CREATE INDEX task_tag_by_task ON task_tag (task_pk, tag);
                CREATE INDEX task_tag_by_created ON task_tag (tag, created_at, task_id);
                CREATE TABLE tag_total_v36 (tag TEXT PRIMARY KEY, count INTEGER, open INTEGER) WITHOUT ROWID;
                INSERT INTO tag_total_v36 (tag, count, open) SELECT tag, count, open FROM tag_total;
                DROP TABLE tag_total;
                ALTER TABLE tag_total_v36 RENAME TO tag_total;
                CREATE TABLE tag_pair_total_v36 (tag TEXT NOT NULL, other TEXT NOT NULL, count INTEGER, open INTEGER,
                                                 PRIMARY KEY (tag, other)) WITHOUT ROWID;
                INSERT INTO tag_pair_total_v36 (tag, other, count, open) SELECT tag, other, count, open FROM tag_pair_total;
                DROP TABLE tag_pair_total;
                ALTER TABLE tag_pair_total_v36 RENAME TO tag_pair_total;
                CREATE TABLE project_total_v36 (project TEXT PRIMARY KEY, count INTEGER, open INTEGER) WITHOUT ROWID;
                INSERT INTO project_total_v36 (project, count, open) SELECT project, count, open FROM project_total;
                DROP TABLE project_total;
                ALTER TABLE project_total_v36 RENAME TO project_total;
                PRAGMA legacy_alter_table = OFF;
                CREATE TRIGGER task_tag_sort_key AFTER INSERT ON task_tag
                WHEN NEW.created_at IS NULL OR NEW.task_id IS NULL BEGIN
                    UPDATE task_tag SET (created_at, task_id) = (SELECT created_at, id FROM task WHERE task.pk = NEW.task_pk)
                    WHERE tag = NEW.tag AND task_pk = NEW.task_pk;
                END;
                CREATE TRIGGER task_tag_insert AFTER INSERT ON task_tag BEGIN
                    UPDATE task SET tags = coalesce((SELECT group_concat(tag, CAST(x'1f' AS TEXT)) FROM (SELECT tag FROM task_tag WHERE task_pk = NEW.task_pk ORDER BY tag)), '') WHERE pk = NEW.task_pk;
                    INSERT INTO tag_pair_total (tag, other, count, open)
                    SELECT CASE WHEN other.tag < NEW.tag THEN other.tag ELSE NEW.tag END, CASE WHEN other.tag < NEW.tag THEN NEW.tag ELSE other.tag END, 1, task.done = 0
                    FROM task_tag AS other JOIN task ON task.pk = NEW.task_pk WHERE other.task_pk = NEW.task_pk AND other.tag <> NEW.tag
                    ON CONFLICT (tag, other) DO UPDATE SET count = count + 1, open = open + excluded.open;
                    INSERT INTO tag_total (tag, count, open) SELECT NEW.tag, 1, done = 0 FROM task WHERE pk = NEW.task_pk
                    ON CONFLICT (tag) DO UPDATE SET count = count + 1, open = open + excluded.open;
                END;
                CREATE TRIGGER task_tag_delete AFTER DELETE ON task_tag BEGIN
                    UPDATE task SET tags = coalesce((SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tag WHERE task_pk = OLD.task_pk ORDER BY tag)), '') WHERE pk = OLD.task_pk;
                    UPDATE tag_pair_total SET count = count - 1, open = open - coalesce((SELECT done = 0 FROM task WHERE pk = OLD.task_pk), 0)
                    WHERE (tag, other) IN (SELECT min(OLD.tag, tag), max(OLD.tag, tag) FROM task_tag WHERE task_pk = OLD.task_pk AND tag <> OLD.tag);
                    DELETE FROM tag_pair_total WHERE count = 0 AND (tag, other) IN
                        (SELECT min(OLD.tag, tag), max(OLD.tag, tag) FROM task_tag WHERE task_pk = OLD.task_pk AND tag <> OLD.tag);
                    INSERT INTO tag_total (tag, count, open) SELECT OLD.tag, -1, -(done = 0) FROM task WHERE pk = OLD.task_pk
                    ON CONFLICT (tag) DO UPDATE SET count = count + excluded.count, open = open + excluded.open;
                END;
                DROP TRIGGER task_log_insert;
                CREATE TRIGGER task_log_insert AFTER INSERT ON task BEGIN
                    INSERT INTO change (kind, task_id, version, at, group_origin) VALUES ('created', NEW.id, NEW.version, NEW.updated_at, NEW.origin);
                END;
                DROP TRIGGER task_text_insert;
                CREATE TRIGGER task_text_insert AFTER INSERT ON task BEGIN
                    INSERT INTO task_text_pending (pk) VALUES (NEW.pk) ON CONFLICT (pk) DO NOTHING;
                END;
                """)
        },
        .init(version: 37) { db in
            // The trigram index reads each text with two U+0001 after it (task_text_source),
            // so that every occurrence of a needle of one or two characters begins one of
            // its trigrams: the trigrams that begin with such a needle name the tasks that
            // hold it (TextIndex.shortNeedleCandidates), where every task was scanned. A
            // needle with U+0001 in
            // it is not asked of the index. As a view, the padded texts are what FTS5's
            // 'rebuild' and 'integrity-check' read. Every task is indexed again, so nothing
            // waits and nothing stale is held.
            try db.execute("""
                DROP TABLE task_text;
                CREATE VIEW task_text_source AS
                    SELECT pk, title_fold || char(1, 1) AS title_fold, notes_fold || char(1, 1) AS notes_fold FROM task;
                CREATE VIRTUAL TABLE task_text USING fts5 (
                    title_fold, notes_fold, content = 'task_text_source', content_rowid = 'pk', tokenize = 'trigram case_sensitive 1', columnsize = 0
                );
                INSERT INTO task_text (task_text) VALUES ('rebuild');
                INSERT INTO task_text (task_text) VALUES ('optimize');
                DELETE FROM task_text_pending;
                DELETE FROM task_text_stale;
                """)
        },
        .init(version: 38) { db in
            // FTS5 merges the trigram index's segments in steps that the writes pay for: one
            // for each 64 leaf pages a batch writes, of 64 pages for every level of the index,
            // merging the segments of a level once it holds `automerge` of them. At its
            // default, 4, each posting is copied once a level of a tree of fanout 4; at 16,
            // half as many times. Past `crisismerge` segments a level is merged whole in one
            // write: at 64 that is left for an index whose steps fell behind, where at its
            // default, 16, it would merge whole every level the automerge had not
            // (docs/decisions/0023-text-index-merged-when-idle.md). Values FTS5 keeps in
            // task_text_config, with the index.
            try db.execute("""
                INSERT INTO task_text (task_text, rank) VALUES ('automerge', 16);
                INSERT INTO task_text (task_text, rank) VALUES ('crisismerge', 64);
                """)
        },
        .init(version: 39) { db in
            // No write merges the trigram index's segments: the server merges them a short
            // step at a time when it has nothing else to do (TextIndex.mergeStep). A step
            // falling in a write was paid by that write's request, and a run of creates right
            // after other writers' paid for theirs too. The idle steps merge a level once it
            // holds `usermerge` segments, 16, as the writes did at schema 38: at FTS5's
            // default, 4, they would rewrite the postings four levels deep
            // (docs/decisions/0023-text-index-merged-when-idle.md). A level that reaches `crisismerge` (64) segments is still
            // merged whole in the write that fills it, which bounds the segments a search
            // reads where no server idles.
            try db.execute("""
                INSERT INTO task_text (task_text, rank) VALUES ('automerge', 0);
                INSERT INTO task_text (task_text, rank) VALUES ('usermerge', 16);
                """)
        },
        .init(version: 40) { db in
            // task_by_priority_due holds only the dated tasks: of the undated ones it held
            // the order task_by_priority holds, (priority, id), so each priority's run of
            // them is read from there (FetchPlan.priorityRuns). A create or an update with
            // no due date writes one index fewer (scripts/wal-pages-per-create counts it).
            try db.execute("""
                DROP INDEX task_by_priority_due;
                CREATE INDEX task_dated_by_priority_due ON task (priority, due_sort_asc, id) WHERE due_at IS NOT NULL;
                """)
        },
    ])

    /// The `tags` column's value for the task with key `pk`: its tags in code-point order
    /// (BINARY collation compares UTF-8 bytes, which order as code points), joined by U+001F.
    static func tagsOf(_ taskKey: String) -> String {
        "coalesce((SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tag WHERE task_pk = \(taskKey) ORDER BY tag)), '')"
    }

    /// The `depends_on` column's value for the task with key `taskKey`, as schema 17's
    /// triggers keep it: its dependencies' ids in code-point order, joined by U+001F.
    static func dependsOnOf(_ taskKey: String) -> String {
        "coalesce((SELECT group_concat(id, char(31)) FROM (SELECT t.id FROM task_dependency d JOIN task t ON t.pk = d.depends_on_pk WHERE d.task_pk = \(taskKey) ORDER BY t.id)), '')"
    }

    /// The `blocked_by` column's value for the task with key `taskKey`: how many of its
    /// dependencies are not done.
    static func blockedByOf(_ taskKey: String) -> String {
        "(SELECT count(*) FROM task_dependency d JOIN task t ON t.pk = d.depends_on_pk WHERE d.task_pk = \(taskKey) AND t.done = 0)"
    }

    static let databaseIDKey = "database_id"

    static let prunedThroughKey = "history_pruned_through"

    /// The largest seq in the change log, 0 when it is empty. That is the newest seq ever
    /// handed out: the log always holds its newest change (see
    /// `TaskStore.pruneHistory`).
    static func newestSeq(in database: Database) throws -> Int64 {
        try database.integer("SELECT max(seq) FROM change") ?? 0
    }

    /// The newest seq pruning removed from the log, 0 when it never removed any. Thrown as
    /// out of range when another program stored one that no seq can be.
    static func prunedThrough(in database: Database) throws -> Int64 {
        try TaskRules.prunedThrough(try storedPrunedThrough(in: database), storedAs: "meta's \(prunedThroughKey)")
    }

    static func storedPrunedThrough(in database: Database) throws -> Int64 {
        try database.integer("SELECT value FROM meta WHERE key = ?", [.text(prunedThroughKey)]) ?? 0
    }
}
