import SQLite
import TaskModel

/// Schema versions 1 to 10, frozen: see `Schema.migrator`.
extension Schema {
    static let migration1 = Migrator.Migration(version: 1) { db in
        try db.execute(
            """
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
    }

    static let migration2 = Migrator.Migration(version: 2) { db in
        // The change log is written by triggers, so that every writer of the file is
        // recorded, not only Taskline: other processes' changes reach clients too. The
        // time is in ms since the epoch from julianday (SQLite 3.40 has no
        // unixepoch('subsec')).
        try db.execute(
            """
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
    }

    static let migration3 = Migrator.Migration(version: 3) { db in
        // A trigram index over titles and notes, so the text filter finds a substring
        // without reading every task. It indexes the task table's own columns
        // (external content), kept in step by triggers.
        try db.execute(
            """
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
    }

    static let migration4 = Migrator.Migration(version: 4) { db in
        try db.execute(
            """
            DROP INDEX task_by_due_asc;
            DROP INDEX task_by_due_desc;
            ALTER TABLE task ADD COLUMN due_sort_asc INTEGER GENERATED ALWAYS AS (coalesce(due_at, 9223372036854775807)) VIRTUAL;
            ALTER TABLE task ADD COLUMN due_sort_desc INTEGER GENERATED ALWAYS AS (coalesce(due_at, -9223372036854775807)) VIRTUAL;
            CREATE INDEX task_by_due_asc ON task (due_sort_asc, id);
            CREATE INDEX task_by_due_desc ON task (due_sort_desc, id);
            """)
    }

    static let migration5 = Migrator.Migration(version: 5) { db in
        // Reading the log asks whether a task was deleted after a change to it.
        try db.execute("CREATE INDEX change_by_task ON change (task_id, seq)")
    }

    static let migration6 = Migrator.Migration(version: 6) { db in
        try db.run("INSERT OR IGNORE INTO meta (key, value) VALUES (?, abs(random()))", ["database_id"])
    }

    static let migration7 = Migrator.Migration(version: 7) { db in
        // The trigram index over the folded texts that the text filter's instr() reads.
        // Indexing the raw texts let SQLite fold them its own way, which is not Swift's
        // (İ lowercases to i + U+0307), and the index then left out tasks instr() matches.
        try db.execute(
            """
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
    }

    static let migration8 = Migrator.Migration(version: 8) { db in
        // Each task's tags, denormalized into its row, so that reading a task needs no
        // subquery: a page read its tags with an index lookup per task, much of its cost.
        // Kept in step by triggers, whoever writes task_tag; the log's update trigger
        // ignores this column, so keeping it in step logs nothing of its own.
        try db.execute(
            """
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
    }

    static let migration9 = Migrator.Migration(version: 9) { db in
        // How many tasks are open and done, kept by triggers: `includeTotal` with no
        // filter or only `done` reads it instead of counting every index entry.
        try db.execute(
            """
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
    }

    static let migration10 = Migrator.Migration(version: 10) { db in
        // Each tagging carries its task's default sort key (created_at, id), indexed after
        // the tag: a page of a tag's tasks by creation time is read in order from there,
        // however common or rare the tag. Checking tasks along task_by_created until a
        // page's worth had a rare tag read a large part of the file.
        // Filled by triggers when a writer leaves them out; Taskline writes them itself.
        try db.execute(
            """
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
    }
}
