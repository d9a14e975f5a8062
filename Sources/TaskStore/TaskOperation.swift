/// One write, as `tasks/create`, `tasks/update`, `tasks/delete` and `tasks/apply` ask for it.
public enum TaskOperation: Sendable, Hashable {
    case create(TaskDraft)
    case update(id: String, changes: TaskChanges, ifVersion: Int64?)
    case delete(id: String, ifVersion: Int64?)

    /// The operation's name on the wire (`create`, `update`, `delete`).
    public var kind: String {
        switch self {
        case .create: "create"
        case .update: "update"
        case .delete: "delete"
        }
    }
}

/// What a write gives back, and the change it committed (none for an update that changed nothing).
public struct OperationOutcome: Sendable, Hashable {
    public enum Result: Sendable, Hashable {
        case task(TaskItem)
        case deleted(id: String)
    }

    public var result: Result
    public var change: TaskChange?

    /// The task after the write; nil for a deletion.
    public var task: TaskItem? {
        if case .task(let task) = result { return task }
        return nil
    }
}

/// An operation whose values have passed the task rules, ready to run in a transaction.
/// Checking happens before the write lock is taken, so a bad request never holds it.
struct PreparedOperation {
    enum Action {
        case create(TaskDraft, id: String, tags: [String], dueAt: Int64?)
        case update(id: String, changes: TaskChanges, tags: [String]?, dueAt: Int64??, ifVersion: Int64?)
        case delete(id: String, ifVersion: Int64?)
    }

    let action: Action

    init(_ operation: TaskOperation) throws {
        switch operation {
        case .create(let draft):
            let id = draft.id ?? TaskItem.newID()
            if draft.id != nil { try TaskRules.validateID(id) }
            try TaskRules.validateTitle(draft.title, field: "title")
            try TaskRules.validateNotes(draft.notes, field: "notes")
            try TaskRules.validatePriority(draft.priority, field: "priority")
            let tags = try TaskRules.normalizeTags(draft.tags, field: "tags")
            let dueAt = try draft.due.map { try TaskRules.dueMilliseconds($0, field: "due") }
            action = .create(draft, id: id, tags: tags, dueAt: dueAt)
        case .update(let id, let changes, let ifVersion):
            if let title = changes.title { try TaskRules.validateTitle(title, field: "changes.title") }
            if let notes = changes.notes { try TaskRules.validateNotes(notes, field: "changes.notes") }
            if let priority = changes.priority { try TaskRules.validatePriority(priority, field: "changes.priority") }
            let tags = try changes.tags.map { try TaskRules.normalizeTags($0, field: "changes.tags") }
            var dueAt: Int64?? = nil
            if case .some(let due) = changes.due {
                dueAt = .some(try due.map { try TaskRules.dueMilliseconds($0, field: "changes.due") })
            }
            if let ifVersion { try TaskRules.validateVersion(ifVersion, field: "ifVersion") }
            action = .update(id: id, changes: changes, tags: tags, dueAt: dueAt, ifVersion: ifVersion)
        case .delete(let id, let ifVersion):
            if let ifVersion { try TaskRules.validateVersion(ifVersion, field: "ifVersion") }
            action = .delete(id: id, ifVersion: ifVersion)
        }
    }
}
