import SQLite
import TaskModel

/// Schema versions 31 to 40, frozen: see `Schema.migrator`.
extension Schema {
    static let migration31 = Migrator.Migration(version: 31) { db in
        // How many tasks have each two tags (tag < other, by BINARY), kept by task_tag's
        // triggers: `includeTotal` with two tags alone reads one row, not a merge of
        // their two ranges of task_tag_by_tag. A
        // tagging writes a row for each other tag of its task, none for a task's only
        // tag; a pair no task has loses its row. The statements join the triggers that
        // keep `tags`, as a trigger of their own would cost each tagging a program of
        // its own.
        try db.execute(
            """
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
    }

    static let migration32 = Migrator.Migration(version: 32) { db in
        // The blocked tasks by project (FetchPlan names it): a page of the open, blocked
        // ones by project, descending, checked 75 tasks along task_by_project for each it
        // kept, each row looked up at random. Only a blocked task writes a leaf of it.
        try db.execute("CREATE INDEX task_blocked_by_project ON task (project, id) WHERE blocked_by > 0")
    }

    static let migration33 = Migrator.Migration(version: 33) { db in
        // The blocked tasks' wait times, as task_by_wait holds them (schema 22): the count
        // of the open tasks both blocked and waiting, a term of `next`'s `includeTotal`
        // (TaskFilter.countTerms), looked every waiting task's row up, and reads this
        // index alone. Only a blocked task writes a leaf of it.
        try db.execute(
            """
            DROP INDEX task_blocked;
            CREATE INDEX task_blocked ON task (done, created_at, id, wait_at) WHERE blocked_by > 0;
            """)
    }

    static let migration34 = Migrator.Migration(version: 34) { db in
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
        try db.execute(
            """
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
    }

    static let migration35 = Migrator.Migration(version: 35) { db in
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
        try db.execute(
            """
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
    }

    static let migration36 = Migrator.Migration(version: 36) { db in
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
        try db.execute(
            """
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
    }

    static let migration37 = Migrator.Migration(version: 37) { db in
        // The trigram index reads each text with two U+0001 after it (task_text_source),
        // so that every occurrence of a needle of one or two characters begins one of
        // its trigrams: the trigrams that begin with such a needle name the tasks that
        // hold it (TextIndex.shortNeedleCandidates), where every task was scanned. A
        // needle with U+0001 in
        // it is not asked of the index. As a view, the padded texts are what FTS5's
        // 'rebuild' and 'integrity-check' read. Every task is indexed again, so nothing
        // waits and nothing stale is held.
        try db.execute(
            """
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
    }

    static let migration38 = Migrator.Migration(version: 38) { db in
        // FTS5 merges the trigram index's segments in steps that the writes pay for: one
        // for each 64 leaf pages a batch writes, of 64 pages for every level of the index,
        // merging the segments of a level once it holds `automerge` of them. At its
        // default, 4, each posting is copied once a level of a tree of fanout 4; at 16,
        // half as many times. Past `crisismerge` segments a level is merged whole in one
        // write: at 64 that is left for an index whose steps fell behind, where at its
        // default, 16, it would merge whole every level the automerge had not
        // (docs/decisions/0023-text-index-merged-when-idle.md). Values FTS5 keeps in
        // task_text_config, with the index.
        try db.execute(
            """
            INSERT INTO task_text (task_text, rank) VALUES ('automerge', 16);
            INSERT INTO task_text (task_text, rank) VALUES ('crisismerge', 64);
            """)
    }

    static let migration39 = Migrator.Migration(version: 39) { db in
        // No write merges the trigram index's segments: the server merges them a short
        // step at a time when it has nothing else to do (TextIndex.mergeStep). A step
        // falling in a write was paid by that write's request, and a run of creates right
        // after other writers' paid for theirs too. The idle steps merge a level once it
        // holds `usermerge` segments, 16, as the writes did at schema 38: at FTS5's
        // default, 4, they would rewrite the postings four levels deep
        // (docs/decisions/0023-text-index-merged-when-idle.md). A level that reaches `crisismerge` (64) segments is still
        // merged whole in the write that fills it, which bounds the segments a search
        // reads where no server idles.
        try db.execute(
            """
            INSERT INTO task_text (task_text, rank) VALUES ('automerge', 0);
            INSERT INTO task_text (task_text, rank) VALUES ('usermerge', 16);
            """)
    }

    static let migration40 = Migrator.Migration(version: 40) { db in
        // task_by_priority_due holds only the dated tasks: of the undated ones it held
        // the order task_by_priority holds, (priority, id), so each priority's run of
        // them is read from there (FetchPlan.priorityRuns). A create or an update with
        // no due date writes one index fewer (scripts/wal-pages-per-create counts it).
        try db.execute(
            """
            DROP INDEX task_by_priority_due;
            CREATE INDEX task_dated_by_priority_due ON task (priority, due_sort_asc, id) WHERE due_at IS NOT NULL;
            """)
    }
}
