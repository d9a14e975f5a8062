import SQLite
import TaskModel

/// Schema versions 21 to 30, frozen: see `Schema.migrator`.
extension Schema {
    static let migration21 = Migrator.Migration(version: 21) { db in
        // Pages by project and due date, each way: within a project, tasks by due date
        // with the undated ones last, read in order instead of every task of a project
        // sorted. Only tasks that have a project write a leaf of them.
        try db.execute(
            """
            CREATE INDEX task_by_project_due_asc ON task (project, due_sort_asc, id) WHERE project IS NOT NULL;
            CREATE INDEX task_by_project_due_desc ON task (project, due_sort_desc, id) WHERE project IS NOT NULL;
            """)
    }

    static let migration22 = Migrator.Migration(version: 22) { db in
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
        try db.execute(
            """
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
    }

    static let migration23 = Migrator.Migration(version: 23) { db in
        // The tasks with a wait time (a few in a hundred) in task_by_due_asc's order: a
        // page of waiting tasks by due date walks them, not every task. Only a task with
        // a wait time writes a leaf of it.
        try db.execute("CREATE INDEX task_waiting_by_due ON task (due_sort_asc, id) WHERE wait_at IS NOT NULL")
    }

    static let migration24 = Migrator.Migration(version: 24) { db in
        // The trigram index without its table of each task's text sizes
        // (task_text_docsize): only ranking (bm25, xColumnSize) reads it, and the text
        // filter only asks which tasks match. A changed text rewrote the task's row of
        // it, a page at a random place in the file: a fifth of an undo's pages. The
        // rebuild indexes every task, those waiting in task_text_pending included. It
        // leaves the index in many segments, which the first writes after it would pay to
        // merge: 'optimize' merges them here.
        try db.execute(
            """
            DROP TABLE task_text;
            CREATE VIRTUAL TABLE task_text USING fts5 (
                title_fold, notes_fold, content = 'task', content_rowid = 'pk', tokenize = 'trigram case_sensitive 1', columnsize = 0
            );
            INSERT INTO task_text (task_text) VALUES ('rebuild');
            INSERT INTO task_text (task_text) VALUES ('optimize');
            DELETE FROM task_text_pending;
            """)
    }

    static let migration25 = Migrator.Migration(version: 25) { db in
        // The blocked tasks (one or two in a hundred) by priority, then due date: a page
        // of them in that order (a run per priority, FetchPlan.priorityRuns) walks them,
        // not every task of a priority along task_by_due_asc. Only a blocked task
        // writes a leaf of it.
        try db.execute("CREATE INDEX task_blocked_by_priority_due ON task (priority, due_sort_asc, id) WHERE blocked_by > 0")
    }

    static let migration26 = Migrator.Migration(version: 26) { db in
        // The texts an update or a deletion takes out of the trigram index wait in
        // task_text_stale, as new texts wait in task_text_pending, and both reach the
        // index in one batch (TextIndex.indexPending). A 'delete' written at once made
        // FTS5 write a segment at the end of every statement that wrote the task (its
        // statement savepoint), and merge them: most of the work of an undo of title
        // changes (docs/decisions/0005-text-index-batches.md). Invariant: a task that is not pending has exactly its current
        // folded texts indexed; what is indexed under a key that is pending or has no
        // task is exactly its row of task_text_stale, if any. The text filter's instr()
        // decides, so a stale entry only adds a candidate it turns down.
        try db.execute(
            """
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
    }

    static let migration27 = Migrator.Migration(version: 27) { db in
        // Each priority's tasks in due order: a sort by priority, then due date reads a
        // run per priority as a range of it (FetchPlan.priorityRuns). Along
        // task_by_due_asc with the priority checked, each run would read every
        // priority's tasks.
        try db.execute("CREATE INDEX task_by_priority_due ON task (priority, due_sort_asc, id)")
    }

    static let migration28 = Migrator.Migration(version: 28) { db in
        // The tasks with a wait time by project, and by project then due date each way (as
        // task_by_project_due_asc and …_desc): a page of waiting tasks in these orders
        // walks them (SQLite picks them by itself: the waiting clause implies a wait
        // time), not every task with a project along task_by_project with the wait time
        // checked (one in a hundred waits). Only a task with a wait time writes their
        // leaves.
        try db.execute(
            """
            CREATE INDEX task_waiting_by_project ON task (project, id) WHERE wait_at IS NOT NULL;
            CREATE INDEX task_waiting_by_project_due_asc ON task (project, due_sort_asc, id) WHERE wait_at IS NOT NULL;
            CREATE INDEX task_waiting_by_project_due_desc ON task (project, due_sort_desc, id) WHERE wait_at IS NOT NULL;
            """)
    }

    static let migration29 = Migrator.Migration(version: 29) { db in
        // The blocked tasks (one in 75) by due date, then priority: a page of them in that
        // order, either way, is a range of it (FetchPlan names it), not each task along
        // task_by_due_asc checked for a dependency not done. Only a blocked task writes a
        // leaf of it.
        try db.execute("CREATE INDEX task_blocked_by_due_priority ON task (due_sort_asc, priority, id) WHERE blocked_by > 0")
    }

    static let migration30 = Migrator.Migration(version: 30) { db in
        // The blocked tasks by due date, and by project then due date each way (FetchPlan
        // names them): a page of them, first or from a cursor, along task_by_due_asc or
        // task_by_project_due_asc with each task's dependencies checked reads 75 tasks
        // for each one it keeps. Only a blocked task writes leaves of them.
        try db.execute(
            """
            CREATE INDEX task_blocked_by_due ON task (due_sort_asc, id) WHERE blocked_by > 0;
            CREATE INDEX task_blocked_by_project_due_asc ON task (project, due_sort_asc, id) WHERE blocked_by > 0;
            CREATE INDEX task_blocked_by_project_due_desc ON task (project, due_sort_desc, id) WHERE blocked_by > 0;
            """)
    }
}
