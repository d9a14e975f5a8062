import JSON
import JSONRPC
import TaskModel

extension TaskJSON {
    /// Reads a task object in its wire form, as `encode` writes it (and `taskline export`),
    /// into a whole task for an import. Only `title` is required, as in `tasks/create`;
    /// `id` defaults to a new one, `createdAt` to `now`, `updatedAt` to `createdAt`,
    /// `completedAt` to `updatedAt` for a done task, `version` to 1, the others as on create.
    /// A member it does not know is refused, as in params: a typo never silently drops data.
    ///
    /// Types and formats are checked here; the task rules are the store's to check. Errors
    /// are `TaskStoreError.invalid` naming the field.
    public static func decodeTask(_ json: JSON, now: Int64) throws(TaskStoreError) -> TaskItem {
        do {
            var reader = try ParamsReader(json)
            let id = try reader.string("id") ?? TaskItem.newID()
            let title = try reader.requiredString("title")
            let notes = try reader.string("notes") ?? ""
            let done = try reader.bool("done") ?? false
            let priority = try reader.int("priority") ?? 0
            let tags = try reader.stringArray("tags") ?? []
            let due = try reader.string("due")
            let project = try reader.string("project")
            let dependsOn = try reader.stringArray("dependsOn") ?? []
            let wait = try reader.string("wait")
            let meta = try reader.metaObject("meta") ?? TaskItem.emptyMeta
            let recurrence = try reader.recurrence("recurrence") ?? nil
            let seriesId = try reader.string("seriesId")
            let remindAt = try reader.string("remindAt")
            let annotations = try reader.annotations("annotations") ?? []
            let startedAt = try reader.timestamp("startedAt")
            let createdAt = try reader.timestamp("createdAt") ?? now
            let updatedAt = try reader.timestamp("updatedAt") ?? createdAt
            let completedAt = try reader.timestamp("completedAt") ?? (done ? updatedAt : nil)
            let version = try reader.integer("version") ?? 1
            try reader.finish()
            return TaskItem(
                id: id, title: title, notes: notes, done: done, priority: priority, tags: tags, due: due,
                project: project, dependsOn: dependsOn, wait: wait, meta: meta,
                recurrence: recurrence, seriesId: seriesId, createdAt: createdAt, updatedAt: updatedAt, completedAt: completedAt, version: version,
                remindAt: remindAt, annotations: annotations.map { Annotation(at: $0.at ?? createdAt, text: $0.text) }, startedAt: startedAt)
        } catch {
            throw .invalid(field: error.data?["field"]?.stringValue ?? "", reason: error.data?["reason"]?.stringValue ?? error.message)
        }
    }
}
