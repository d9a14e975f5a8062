import SQLite
import TaskModel

/// Schema versions 11 to 20, frozen: see `Schema.migrator`.
extension Schema {
    static let migration11 = Migrator.Migration(version: 11) { db in
        // New and changed texts wait in task_text_pending and reach the trigram index in
        // batches (TextIndex.indexPending), as PostgreSQL's GIN indexes keep a pending
        // list: FTS5 writes a segment per transaction, which made indexing one task a
        // large part of a one-task commit. The text filter reads the pending tasks directly.
        // Invariant: a task not pending has exactly its current folded texts indexed;
        // a pending one has nothing indexed.
        try db.execute(
            """
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
    }

    static let migration12 = Migrator.Migration(version: 12) { db in
        // The change log without AUTOINCREMENT and without its index on time: each
        // made every write touch one more B-tree (sqlite_sequence, change_by_time).
        // A seq still never repeats: SQLite gives a new row the largest seq + 1, and
        // pruning always keeps the newest change (TaskStore.pruneHistory). A log that
        // pruning emptied before this version gets a row holding the newest seq handed
        // out, which is at or below history_pruned_through, so no reader is ever given it.
        let newestHandedOut = try db.integer("SELECT seq FROM sqlite_sequence WHERE name = 'change'") ?? 0
        try db.execute(
            """
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
            try db.run(
                "INSERT INTO change (seq, kind, task_id, version, at) VALUES (?, 'deleted', '', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))",
                [.integer(newestHandedOut)])
        }
    }

    static let migration13 = Migrator.Migration(version: 13) { db in
        // The change log's index by task answers one question (TaskStore.changes): was
        // this id deleted after a given change? Only deletions answer it, so only they
        // are indexed: creates and updates write no leaf there, which with random ids
        // was a page at a random place in every commit.
        try db.execute(
            """
            DROP INDEX change_by_task;
            CREATE INDEX change_deletion_by_task ON change (task_id, seq) WHERE kind = 'deleted';
            """)
    }

    static let migration14 = Migrator.Migration(version: 14) { db in
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
        try db.run(
            """
            UPDATE sqlite_schema SET sql = replace(sql, ?1, ?2)
            WHERE type = 'table' AND name = 'change' AND instr(sql, ?1) > 0
            """,
            [
                .text("CHECK (kind IN ('created', 'updated', 'deleted'))"),
                .text("CHECK (kind = 'created' OR kind = 'updated' OR kind = 'deleted')"),
            ])
        try db.execute("PRAGMA schema_version = \(nextSchemaCookie)")
        try db.execute("PRAGMA writable_schema = OFF")
    }

    static let migration15 = Migrator.Migration(version: 15) { db in
        // task_by_done (done, created_at, id) holds the order by creation time in two
        // runs, the open tasks' and the done tasks'; pages in that order merge the two
        // (FetchPlan). The index on (created_at, id) alone was one more B-tree leaf, and
        // one more WAL frame, in every task's write.
        try db.execute("DROP INDEX task_by_created")
    }

    static let migration16 = Migrator.Migration(version: 16) { db in
        // The order by due date descending, undated tasks last, is read from
        // task_by_due_asc in two runs: its dated tasks backwards, then its undated ones
        // (FetchPlan.pageRuns). The index that held it in one piece was one more B-tree
        // leaf in every task's write.
        try db.execute("DROP INDEX task_by_due_desc")
    }

    static let migration17 = Migrator.Migration(version: 17) { db in
        // Projects, dependencies, waiting and clients' own data. Dependencies are rows of
        // task_dependency; each task's row holds copies that reads and filters use without
        // a subquery, kept in step by triggers whoever writes: its dependencies' ids
        // (code-point order, joined by U+001F) and how many of them are not done. The
        // partial indexes hold only the tasks that have a project, a wait time or an open
        // dependency, so that a task with none of them writes no leaf of theirs. The
        // waiting and the blocked ones are held in task_by_done's order, so that a page of
        // them by creation time is read in order (FetchPlan), however few they are.
        // The log's update trigger ignores the copies, as it does the tags.
        try db.execute(
            """
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
    }

    static let migration18 = Migrator.Migration(version: 18) { db in
        // Recurrence. successor_id records the next occurrence a task made when it was
        // completed: while that task exists the occurrence makes no other, however often
        // it is reopened and completed again. It is the server's own bookkeeping, so the
        // log's update trigger ignores it; it logs the two fields.
        try db.execute(
            """
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
    }

    static let migration19 = Migrator.Migration(version: 19) { db in
        // Reminders. `remind` is the time as the client wrote it, `remind_at` the same
        // instant in ms; `reminded` is 1 once a server has sent the reminder for that
        // instant to a client (at most once per database: the server that sets it, in a
        // write transaction, is the one that sends it), and goes back to 0 whoever moves
        // `remind_at`, since that is a new reminder. The partial index holds the reminders
        // still to send, soonest first, so that the next one is one index read and a task
        // without one writes no leaf of it. The log's update trigger takes in the time,
        // not the delivery mark.
        try db.execute(
            """
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
    }

    static let migration20 = Migrator.Migration(version: 20) { db in
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
        try db.execute(
            """
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
    }
}
