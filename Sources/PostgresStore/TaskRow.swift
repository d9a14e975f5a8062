import PostgreSQL
import TaskModel

/// A task's row: the columns every read selects, and the task they make.
enum TaskRow {
    /// The separator of the lists passed and read as text (see `PostgresSchema`).
    static let separator = "\u{1F}"

    /// The task's columns.
    static let columns = """
        task.id, task.title, task.notes, task.done, task.priority, array_to_string(task.tags, chr(31)) AS tags,
        task.due, task.project, array_to_string(task.depends_on, chr(31)) AS depends_on, task.wait, task.meta,
        task.recurrence, task.series_id, task.remind, task.created_at, task.updated_at, task.completed_at, task.version,
        task.annotations, task.started_at
        """

    static func task(in row: PostgresRow) throws -> TaskItem {
        TaskItem(
            id: try row.text("id"), title: try row.text("title"), notes: try row.text("notes"), done: try row.bool("done"),
            priority: try row.int("priority"), tags: list(try row.text("tags")), due: row.optionalText("due"),
            project: row.optionalText("project"), dependsOn: list(try row.text("depends_on")), wait: row.optionalText("wait"),
            meta: try row.text("meta"), recurrence: row.optionalText("recurrence"), seriesId: row.optionalText("series_id"),
            createdAt: try row.int64("created_at"), updatedAt: try row.int64("updated_at"),
            completedAt: try row.optionalInt64("completed_at"), version: try row.int64("version"), remindAt: row.optionalText("remind"),
            // NULL in a snapshot taken before the column was added.
            annotations: annotations(stored: row.optionalText("annotations") ?? ""), startedAt: try row.optionalInt64("started_at"))
    }

    /// The annotations a stored text holds, an item that is not a time and a text left out
    /// (as `TaskBuffer` reads them from SQLite).
    static func annotations(stored: String) -> [Annotation] {
        var annotations: [Annotation] = []
        Annotation.forEach(inStored: Array(stored.utf8)) { at, text in
            if let at { annotations.append(Annotation(at: at, text: String(decoding: text, as: UTF8.self))) }
        }
        return annotations
    }

    /// A list as a parameter, for `string_to_array($n, chr(31))`.
    static func list(_ values: [String]) -> PostgresValue {
        .text(values.joined(separator: separator))
    }

    static func list(_ text: String) -> [String] {
        text.isEmpty ? [] : text.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
    }
}
