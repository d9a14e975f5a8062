-- Taskline's SQLite schema at version 41, as its migrations make it
-- (Sources/TaskStore/Schema/; written by scripts/schema-sql, checked by SchemaDocumentTests).
-- A reference, not a way to make a file: a file is made by the migrations, and
-- application_id 1414744908 (0x5453_4B4C, "TSKL") and user_version 41
-- mark it. FTS5's shadow tables (task_text_data, ...) are left out: SQLite makes them.

CREATE TABLE "change" (
    seq INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind = 'created' OR kind = 'updated' OR kind = 'deleted'),
    task_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    at INTEGER NOT NULL
, group_first INTEGER, group_origin INTEGER);

CREATE INDEX change_deletion_by_task ON change (task_id, seq) WHERE kind = 'deleted';

CREATE TABLE change_before (
    group_seq INTEGER NOT NULL,
    task_id TEXT NOT NULL,
    task TEXT NOT NULL,
    PRIMARY KEY (group_seq, task_id)
) WITHOUT ROWID;

CREATE TABLE change_reversal (
    seq INTEGER,
    kind TEXT NOT NULL CHECK (kind = 'undo' OR kind = 'redo'),
    reverts INTEGER NOT NULL
);

CREATE INDEX change_reversal_by_seq ON change_reversal (seq);

CREATE INDEX change_reversal_by_target ON change_reversal (reverts);

CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;

CREATE TABLE "project_total" (project TEXT PRIMARY KEY, count INTEGER, open INTEGER) WITHOUT ROWID;

CREATE TABLE "tag_pair_total" (tag TEXT NOT NULL, other TEXT NOT NULL, count INTEGER, open INTEGER,
                                 PRIMARY KEY (tag, other)) WITHOUT ROWID;

CREATE TABLE "tag_total" (tag TEXT PRIMARY KEY, count INTEGER, open INTEGER) WITHOUT ROWID;

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
, due_sort_asc INTEGER GENERATED ALWAYS AS (coalesce(due_at, 9223372036854775807)) VIRTUAL, due_sort_desc INTEGER GENERATED ALWAYS AS (coalesce(due_at, -9223372036854775807)) VIRTUAL, tags TEXT NOT NULL DEFAULT '', project TEXT, wait TEXT, wait_at INTEGER, meta TEXT NOT NULL DEFAULT '{}', depends_on TEXT NOT NULL DEFAULT '', blocked_by INTEGER NOT NULL DEFAULT 0, recurrence TEXT, series_id TEXT, successor_id TEXT, remind TEXT, remind_at INTEGER, reminded INTEGER NOT NULL DEFAULT 0, origin INTEGER, annotations TEXT NOT NULL DEFAULT '', started_at INTEGER);

CREATE INDEX task_blocked ON task (done, created_at, id, wait_at) WHERE blocked_by > 0;

CREATE INDEX task_blocked_by_due ON task (due_sort_asc, id) WHERE blocked_by > 0;

CREATE INDEX task_blocked_by_due_priority ON task (due_sort_asc, priority, id) WHERE blocked_by > 0;

CREATE INDEX task_blocked_by_priority_due ON task (priority, due_sort_asc, id) WHERE blocked_by > 0;

CREATE INDEX task_blocked_by_project ON task (project, id) WHERE blocked_by > 0;

CREATE INDEX task_blocked_by_project_due_asc ON task (project, due_sort_asc, id) WHERE blocked_by > 0;

CREATE INDEX task_blocked_by_project_due_desc ON task (project, due_sort_desc, id) WHERE blocked_by > 0;

CREATE INDEX task_by_done ON task (done, created_at, id);

CREATE INDEX task_by_due_asc ON task (due_sort_asc, id, done);

CREATE INDEX task_by_priority ON task (priority, id);

CREATE INDEX task_by_project ON task (project, id) WHERE project IS NOT NULL;

CREATE INDEX task_by_project_due_asc ON task (project, due_sort_asc, id) WHERE project IS NOT NULL;

CREATE INDEX task_by_project_due_desc ON task (project, due_sort_desc, id) WHERE project IS NOT NULL;

CREATE INDEX task_by_title ON task (title_fold, id);

CREATE INDEX task_by_updated ON task (updated_at, id);

CREATE INDEX task_by_wait ON task (done, created_at, id, wait_at) WHERE wait_at IS NOT NULL;

CREATE INDEX task_dated_by_priority_due ON task (priority, due_sort_asc, id) WHERE due_at IS NOT NULL;

CREATE INDEX task_reminder_due ON task (remind_at) WHERE remind_at IS NOT NULL AND done = 0 AND reminded = 0;

CREATE INDEX task_waiting_by_due ON task (due_sort_asc, id) WHERE wait_at IS NOT NULL;

CREATE INDEX task_waiting_by_project ON task (project, id) WHERE wait_at IS NOT NULL;

CREATE INDEX task_waiting_by_project_due_asc ON task (project, due_sort_asc, id) WHERE wait_at IS NOT NULL;

CREATE INDEX task_waiting_by_project_due_desc ON task (project, due_sort_desc, id) WHERE wait_at IS NOT NULL;

CREATE TRIGGER project_total_delete AFTER DELETE ON task WHEN OLD.project IS NOT NULL BEGIN
    DELETE FROM project_total WHERE project = OLD.project AND count = 1;
    UPDATE project_total SET count = count - 1, open = open - (OLD.done = 0) WHERE project = OLD.project;
END;

CREATE TRIGGER project_total_insert AFTER INSERT ON task WHEN NEW.project IS NOT NULL BEGIN
    INSERT INTO project_total (project, count, open) VALUES (NEW.project, 1, NEW.done = 0)
    ON CONFLICT (project) DO UPDATE SET count = count + 1, open = open + excluded.open;
END;

CREATE TRIGGER project_total_update AFTER UPDATE OF project ON task WHEN OLD.project IS NOT NEW.project BEGIN
    DELETE FROM project_total WHERE project = OLD.project AND count = 1;
    UPDATE project_total SET count = count - 1, open = open - (OLD.done = 0) WHERE project = OLD.project;
    INSERT INTO project_total (project, count, open) SELECT NEW.project, 1, OLD.done = 0 WHERE NEW.project IS NOT NULL
    ON CONFLICT (project) DO UPDATE SET count = count + 1, open = open + excluded.open;
END;

CREATE TRIGGER tag_total_delete BEFORE DELETE ON task BEGIN
    INSERT INTO tag_total (tag, count, open) SELECT tag, -1, -(OLD.done = 0) FROM task_tag WHERE task_pk = OLD.pk
    ON CONFLICT (tag) DO UPDATE SET count = count + excluded.count, open = open + excluded.open;
    INSERT INTO tag_pair_total (tag, other, count, open)
    SELECT a.tag, b.tag, 0, -1 FROM task_tag AS a JOIN task_tag AS b ON b.task_pk = a.task_pk AND b.tag > a.tag
    WHERE a.task_pk = OLD.pk AND OLD.done = 0
    ON CONFLICT (tag, other) DO UPDATE SET open = open + excluded.open;
END;

CREATE TRIGGER task_dependency_done AFTER UPDATE OF done ON task WHEN OLD.done IS NOT NEW.done BEGIN
    UPDATE task SET
        blocked_by = (SELECT count(*) FROM task_dependency d JOIN task t ON t.pk = d.depends_on_pk WHERE d.task_pk = task.pk AND t.done = 0)
    WHERE pk IN (SELECT task_pk FROM task_dependency WHERE depends_on_pk = NEW.pk);
END;

CREATE TRIGGER task_log_delete AFTER DELETE ON task BEGIN
    INSERT INTO change (kind, task_id, version, at) VALUES ('deleted', OLD.id, OLD.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;

CREATE TRIGGER task_log_insert AFTER INSERT ON task BEGIN
    INSERT INTO change (kind, task_id, version, at, group_origin) VALUES ('created', NEW.id, NEW.version, NEW.updated_at, NEW.origin);
END;

CREATE TRIGGER task_log_update AFTER UPDATE OF
    id, title, title_fold, notes, notes_fold, done, priority, due, due_at, created_at, updated_at, completed_at, version,
    project, wait, wait_at, meta, recurrence, series_id, remind, remind_at, annotations, started_at
ON task BEGIN
    INSERT INTO change (kind, task_id, version, at) VALUES ('updated', NEW.id, NEW.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;

CREATE TRIGGER task_reminder_moved AFTER UPDATE OF remind_at ON task
WHEN OLD.remind_at IS NOT NEW.remind_at AND NEW.reminded <> 0 BEGIN
    UPDATE task SET reminded = 0 WHERE pk = NEW.pk;
END;

CREATE TRIGGER task_sort_key_update AFTER UPDATE OF created_at, id ON task BEGIN
    UPDATE task_tag SET created_at = NEW.created_at, task_id = NEW.id WHERE task_pk = NEW.pk;
END;

CREATE TRIGGER task_text_delete AFTER DELETE ON task BEGIN
    INSERT OR IGNORE INTO task_text_stale (pk, title_fold, notes_fold)
        SELECT OLD.pk, OLD.title_fold, OLD.notes_fold
        WHERE NOT EXISTS (SELECT 1 FROM task_text_pending WHERE pk = OLD.pk);
    DELETE FROM task_text_pending WHERE pk = OLD.pk;
END;

CREATE TRIGGER task_text_insert AFTER INSERT ON task BEGIN
    INSERT INTO task_text_pending (pk) VALUES (NEW.pk) ON CONFLICT (pk) DO NOTHING;
END;

CREATE TRIGGER task_text_update AFTER UPDATE OF title_fold, notes_fold ON task
WHEN OLD.title_fold IS NOT NEW.title_fold OR OLD.notes_fold IS NOT NEW.notes_fold BEGIN
    INSERT OR IGNORE INTO task_text_stale (pk, title_fold, notes_fold)
        SELECT OLD.pk, OLD.title_fold, OLD.notes_fold
        WHERE NOT EXISTS (SELECT 1 FROM task_text_pending WHERE pk = OLD.pk);
    INSERT OR IGNORE INTO task_text_pending (pk) VALUES (NEW.pk);
END;

CREATE TRIGGER task_total_delete AFTER DELETE ON task BEGIN
    UPDATE task_total SET count = count - 1 WHERE done = OLD.done;
END;

CREATE TRIGGER task_total_insert AFTER INSERT ON task BEGIN
    UPDATE task_total SET count = count + 1 WHERE done = NEW.done;
END;

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

CREATE TABLE task_dependency (
    task_pk INTEGER NOT NULL REFERENCES task (pk) ON DELETE CASCADE,
    depends_on_pk INTEGER NOT NULL REFERENCES task (pk) ON DELETE CASCADE,
    PRIMARY KEY (task_pk, depends_on_pk)
) WITHOUT ROWID;

CREATE INDEX task_dependency_by_target ON task_dependency (depends_on_pk, task_pk);

CREATE TRIGGER task_dependency_delete AFTER DELETE ON task_dependency BEGIN
    UPDATE task SET
        depends_on = coalesce((SELECT group_concat(id, char(31)) FROM (SELECT t.id FROM task_dependency d JOIN task t ON t.pk = d.depends_on_pk WHERE d.task_pk = OLD.task_pk ORDER BY t.id)), ''),
        blocked_by = (SELECT count(*) FROM task_dependency d JOIN task t ON t.pk = d.depends_on_pk WHERE d.task_pk = OLD.task_pk AND t.done = 0)
    WHERE pk = OLD.task_pk;
END;

CREATE TRIGGER task_dependency_insert AFTER INSERT ON task_dependency BEGIN
    UPDATE task SET
        depends_on = coalesce((SELECT group_concat(id, char(31)) FROM (SELECT t.id FROM task_dependency d JOIN task t ON t.pk = d.depends_on_pk WHERE d.task_pk = NEW.task_pk ORDER BY t.id)), ''),
        blocked_by = (SELECT count(*) FROM task_dependency d JOIN task t ON t.pk = d.depends_on_pk WHERE d.task_pk = NEW.task_pk AND t.done = 0)
    WHERE pk = NEW.task_pk;
END;

CREATE TABLE "task_tag" (
    tag TEXT NOT NULL,
    task_pk INTEGER NOT NULL REFERENCES task (pk) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    created_at INTEGER,
    task_id TEXT,
    PRIMARY KEY (tag, task_pk)
) WITHOUT ROWID;

CREATE INDEX task_tag_by_created ON task_tag (tag, created_at, task_id);

CREATE INDEX task_tag_by_task ON task_tag (task_pk, tag);

CREATE TRIGGER task_tag_delete AFTER DELETE ON task_tag BEGIN
    UPDATE task SET tags = coalesce((SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tag WHERE task_pk = OLD.task_pk ORDER BY tag)), '') WHERE pk = OLD.task_pk;
    UPDATE tag_pair_total SET count = count - 1, open = open - coalesce((SELECT done = 0 FROM task WHERE pk = OLD.task_pk), 0)
    WHERE (tag, other) IN (SELECT min(OLD.tag, tag), max(OLD.tag, tag) FROM task_tag WHERE task_pk = OLD.task_pk AND tag <> OLD.tag);
    DELETE FROM tag_pair_total WHERE count = 0 AND (tag, other) IN
        (SELECT min(OLD.tag, tag), max(OLD.tag, tag) FROM task_tag WHERE task_pk = OLD.task_pk AND tag <> OLD.tag);
    INSERT INTO tag_total (tag, count, open) SELECT OLD.tag, -1, -(done = 0) FROM task WHERE pk = OLD.task_pk
    ON CONFLICT (tag) DO UPDATE SET count = count + excluded.count, open = open + excluded.open;
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

CREATE TRIGGER task_tag_sort_key AFTER INSERT ON task_tag
WHEN NEW.created_at IS NULL OR NEW.task_id IS NULL BEGIN
    UPDATE task_tag SET (created_at, task_id) = (SELECT created_at, id FROM task WHERE task.pk = NEW.task_pk)
    WHERE tag = NEW.tag AND task_pk = NEW.task_pk;
END;

CREATE VIRTUAL TABLE task_text USING fts5 (
    title_fold, notes_fold, content = 'task_text_source', content_rowid = 'pk', tokenize = 'trigram case_sensitive 1', columnsize = 0
);

CREATE TABLE task_text_pending (pk INTEGER PRIMARY KEY);

CREATE TABLE task_text_stale (pk INTEGER PRIMARY KEY, title_fold TEXT, notes_fold TEXT);

CREATE TABLE task_total (done INTEGER PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID;

CREATE VIEW task_text_source AS
    SELECT pk, title_fold || char(1, 1) AS title_fold, notes_fold || char(1, 1) AS notes_fold FROM task;
