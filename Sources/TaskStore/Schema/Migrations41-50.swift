import SQLite
import TaskModel

/// Schema versions 41 to 50, frozen: see `Schema.migrator`.
extension Schema {
    static let migration41 = Migrator.Migration(version: 41) { db in
        // Annotations and the start time. `annotations` holds a task's annotations in one
        // text, as `tags` holds its tags: each as its time in ms, U+001E, its text (which
        // has no control character), joined by U+001F, in order of time; '' for none.
        // `started_at` is set while the task is active. The log's update trigger takes in
        // both, so that another program's write of either alone is logged.
        try db.execute(
            """
            ALTER TABLE task ADD COLUMN annotations TEXT NOT NULL DEFAULT '';  -- each "ms U+001E text", joined by U+001F
            ALTER TABLE task ADD COLUMN started_at INTEGER;                   -- ms since the epoch: the task is active
            DROP TRIGGER task_log_update;
            CREATE TRIGGER task_log_update AFTER UPDATE OF
                id, title, title_fold, notes, notes_fold, done, priority, due, due_at, created_at, updated_at, completed_at, version,
                project, wait, wait_at, meta, recurrence, series_id, remind, remind_at, annotations, started_at
            ON task BEGIN
                INSERT INTO change (kind, task_id, version, at) VALUES ('updated', NEW.id, NEW.version, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
            END;
            """)
    }
}
