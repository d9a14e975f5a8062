/// A whole task as an import brings it or a check reads it back, held to the rules
/// `tasks/create` applies to its fields (the very same checks) and to those for the fields
/// only the server sets.
package struct CheckedTask {
    /// The task with its tags made a sorted set.
    package let task: TaskItem
    /// The due date in ms since the epoch: its sort and filter key.
    package let dueAt: Int64?
    /// The wait time in ms since the epoch: the `waiting` filter's key.
    package let waitAt: Int64?
    /// The reminder time in ms since the epoch.
    package let remindAt: Int64?

    package init(_ item: TaskItem) throws {
        let draft = TaskDraft(
            id: item.id, title: item.title, notes: item.notes, done: item.done,
            priority: item.priority, tags: item.tags, due: item.due, project: item.project,
            dependsOn: item.dependsOn, wait: item.wait, meta: item.meta, recurrence: item.recurrence,
            remindAt: item.remindAt, annotations: item.annotations.map { NewAnnotation(at: $0.at, text: $0.text) },
            startedAt: item.startedAt)
        guard case .create(_, _, let tags, let dueAt, let dependsOn, let waitAt) = try PreparedOperation(.create(draft)).action else {
            preconditionFailure("a create prepares a create")
        }
        try TaskRules.validateVersion(item.version, field: "version")
        try TaskRules.validateTimestamp(item.createdAt, field: "createdAt")
        try TaskRules.validateTimestamp(item.updatedAt, field: "updatedAt")
        try TaskRules.validateTimestamp(item.completedAt, field: "completedAt")
        switch (item.done, item.completedAt) {
        case (true, nil): throw TaskStoreError.invalid(field: "completedAt", reason: "must be set when done is true")
        case (false, _?): throw TaskStoreError.invalid(field: "completedAt", reason: "must be null when done is false")
        default: break
        }
        if let seriesId = item.seriesId { try TaskRules.validateID(seriesId, field: "seriesId") }
        var task = item
        task.tags = tags
        task.dependsOn = dependsOn
        task.annotations = Annotation.ordered(item.annotations)
        if task.recurrence != nil && task.seriesId == nil { task.seriesId = task.id }
        self.task = task
        self.dueAt = dueAt
        self.waitAt = waitAt
        self.remindAt = item.remindAt.flatMap(Timestamp.parse)
    }
}

extension TaskItem {
    /// A new time-ordered id, as the server gives a task created without one.
    public static func newID() -> String {
        UUID7.shared.next()
    }
}
