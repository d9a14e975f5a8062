import SQLite
import TaskModel

/// Where a query's result holds a task's columns (`FetchPlan.taskColumns`), found by name
/// once per prepared statement.
struct TaskColumns: RowLayout {
    let pk, id, title, notes, done, priority, due, createdAt, updatedAt, completedAt, version, tags: Int32
    let project, dependsOn, wait, meta: Int32
    let recurrence, seriesID: Int32
    let remindAt: Int32
    let annotations, startedAt: Int32
    /// Each text field's column.
    private let texts: [(TaskBuffer.Text, Int32)]

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
        annotations = statement.columnIndex("annotations")
        startedAt = statement.columnIndex("started_at")
        texts = [
            (.id, id), (.title, title), (.notes, notes), (.tags, tags), (.due, due), (.project, project),
            (.dependsOn, dependsOn), (.wait, wait), (.meta, meta), (.recurrence, recurrence), (.seriesId, seriesID),
            (.remindAt, remindAt), (.annotations, annotations),
        ]
    }

    func task(in row: Row) -> TaskItem {
        var buffer = TaskBuffer()
        append(row, to: &buffer)
        return buffer[0]
    }

    /// Appends the row's task to `buffer`, its texts copied as SQLite's bytes.
    func append(_ row: Row, to buffer: inout TaskBuffer) {
        buffer.appendNullTask()
        for (field, column) in texts {
            row.withOptionalUTF8(column) { if let text = $0 { buffer.set(field, text) } }
        }
        buffer.set(.done, row.int64(done))
        buffer.set(.priority, row.int64(priority))
        buffer.set(.createdAt, row.int64(createdAt))
        buffer.set(.updatedAt, row.int64(updatedAt))
        buffer.set(.completedAt, row.optionalInt64(completedAt))
        buffer.set(.version, row.int64(version))
        buffer.set(.startedAt, row.optionalInt64(startedAt))
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
