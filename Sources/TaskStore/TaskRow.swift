import SQLite
import TaskModel

/// Where a query's result holds a task's columns (`FetchPlan.taskColumns`), found by name
/// once per prepared statement.
struct TaskColumns: RowLayout {
    let pk, id, title, notes, done, priority, due, createdAt, updatedAt, completedAt, version, tags: Int32
    let project, dependsOn, wait, meta: Int32
    let recurrence, seriesID: Int32
    let remindAt: Int32

    init(_ statement: Statement) {
        pk = statement.columnIndex("pk")
        id = statement.columnIndex("id")
        title = statement.columnIndex("title")
        notes = statement.columnIndex("notes")
        done = statement.columnIndex("done")
        priority = statement.columnIndex("priority")
        due = statement.columnIndex("due")
        createdAt = statement.columnIndex("created_at")
        updatedAt = statement.columnIndex("updated_at")
        completedAt = statement.columnIndex("completed_at")
        version = statement.columnIndex("version")
        tags = statement.columnIndex("tags")
        project = statement.columnIndex("project")
        dependsOn = statement.columnIndex("depends_on")
        wait = statement.columnIndex("wait")
        meta = statement.columnIndex("meta")
        recurrence = statement.columnIndex("recurrence")
        seriesID = statement.columnIndex("series_id")
        remindAt = statement.columnIndex("remind")
    }

    func task(in row: Row) -> TaskItem {
        TaskItem(
            id: row.text(id), title: row.text(title), notes: row.text(notes), done: row.bool(done),
            priority: row.int(priority), tags: Self.list(in: row, column: tags), due: row.optionalText(due),
            project: row.optionalText(project), dependsOn: Self.list(in: row, column: dependsOn), wait: row.optionalText(wait),
            meta: row.text(meta), recurrence: row.optionalText(recurrence), seriesId: row.optionalText(seriesID), createdAt: row.int64(createdAt), updatedAt: row.int64(updatedAt),
            completedAt: row.optionalInt64(completedAt), version: row.int64(version),
            remindAt: row.optionalText(remindAt))
    }

    /// A list stored in code-point order, joined by U+001F (tags, dependencies), split as
    /// SQLite's bytes: splitting a String walks it by grapheme cluster, which costs more than
    /// the rest of the row.
    private static func list(in row: Row, column: Int32) -> [String] {
        var items: [String] = []
        row.withUTF8(column) { bytes in
            guard !bytes.isEmpty else { return }
            var start = 0
            for end in 0...bytes.count where end == bytes.count || bytes[end] == 0x1F {
                if end > start { items.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)) }
                start = end + 1
            }
        }
        return items
    }
}

/// A page query's columns: a task's, then its sort keys (`FetchPlan.sortKeyColumn`), whose
/// values the page's last task gives its cursor.
struct PageColumns: RowLayout {
    let task: TaskColumns
    let sortKeys: [Int32]

    init(_ statement: Statement) {
        task = TaskColumns(statement)
        let names = statement.columnNames
        sortKeys = (0..<names.count(where: { $0.hasPrefix(FetchPlan.sortKeyPrefix) }))
            .map { statement.columnIndex(FetchPlan.sortKeyColumn($0)) }
    }
}

/// `TaskStore.changesSQL`'s columns: the change, then the task as it is now (NULL when it
/// has since been deleted).
struct ChangeColumns: RowLayout {
    let seq, kind, taskID, version: Int32
    let task: TaskColumns

    init(_ statement: Statement) {
        seq = statement.columnIndex("seq")
        kind = statement.columnIndex("kind")
        taskID = statement.columnIndex("task_id")
        version = statement.columnIndex("change_version")
        task = TaskColumns(statement)
    }

    func change(in row: Row) -> TaskChange {
        TaskChange(
            seq: row.int64(seq), kind: TaskChange.Kind(rawValue: row.text(kind)) ?? .updated, id: row.text(taskID),
            version: row.int64(version), task: row.isNull(task.pk) ? nil : task.task(in: row))
    }
}
