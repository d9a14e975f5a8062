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

    /// Where operation `index` of an `apply` is, in a field path.
    package func path(index: Int) -> String {
        Self.path(kind: kind, index: index)
    }

    package static func path(kind: String, index: Int) -> String {
        "operations[\(index)].\(kind)"
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
    /// Changes the write made to other tasks, committed before `change`: a deletion takes
    /// the task out of its dependents' `dependsOn`; completing a recurring task creates its
    /// next occurrence.
    public var otherChanges: [TaskChange] = []

    /// Every change the write committed, in seq order.
    public var changes: [TaskChange] {
        otherChanges + (change.map { [$0] } ?? [])
    }

    /// The task after the write; nil for a deletion.
    public var task: TaskItem? {
        if case .task(let task) = result { return task }
        return nil
    }

    public init(result: Result, change: TaskChange?, otherChanges: [TaskChange] = []) {
        self.result = result
        self.change = change
        self.otherChanges = otherChanges
    }
}

/// An operation whose values have passed the task rules, ready to run in a transaction.
/// Checking happens before the write lock is taken, so a bad request never holds it.
package struct PreparedOperation {
    package enum Action {
        case create(TaskDraft, id: String, tags: [String], dueAt: Int64?, dependsOn: [String], waitAt: Int64?)
        case update(
            id: String, changes: TaskChanges, tags: [String]?, dueAt: Int64??, dependsOn: [String]?, waitAt: Int64??,
            ifVersion: Int64?)
        case delete(id: String, ifVersion: Int64?)
    }

    package let action: Action

    package init(_ operation: TaskOperation) throws {
        switch operation {
        case .create(let draft):
            let id = draft.id ?? TaskItem.newID()
            if draft.id != nil { try TaskRules.validateID(id) }
            try TaskRules.validateTitle(draft.title, field: "title")
            try TaskRules.validateNotes(draft.notes, field: "notes")
            try TaskRules.validatePriority(draft.priority, field: "priority")
            let tags = try TaskRules.normalizeTags(draft.tags, field: "tags")
            let dueAt = try draft.due.map { try TaskRules.dueMilliseconds($0, field: "due") }
            if let project = draft.project { try TaskRules.validateProject(project, field: "project") }
            let dependsOn = try TaskRules.normalizeDependencies(draft.dependsOn, field: "dependsOn")
            let waitAt = try draft.wait.map { try TaskRules.dueMilliseconds($0, field: "wait") }
            try TaskRules.validateMeta(draft.meta, field: "meta")
            if let rule = draft.recurrence { try TaskRules.validateRecurrence(rule, hasDue: draft.due != nil, field: "recurrence") }
            try TaskRules.validateAnnotations(draft.annotations, field: "annotations")
            try TaskRules.validateTimestamp(draft.startedAt, field: "startedAt")
            if draft.done && draft.startedAt != nil {
                throw TaskStoreError.invalid(field: "startedAt", reason: "must be null when done is true")
            }
            action = .create(draft, id: id, tags: tags, dueAt: dueAt, dependsOn: dependsOn, waitAt: waitAt)
        case .update(let id, let changes, let ifVersion):
            if let title = changes.title { try TaskRules.validateTitle(title, field: "changes.title") }
            if let notes = changes.notes { try TaskRules.validateNotes(notes, field: "changes.notes") }
            if let priority = changes.priority { try TaskRules.validatePriority(priority, field: "changes.priority") }
            let tags = try changes.tags.map { try TaskRules.normalizeTags($0, field: "changes.tags") }
            let dueAt = try Self.milliseconds(changes.due, field: "changes.due")
            if case .some(let project?) = changes.project { try TaskRules.validateProject(project, field: "changes.project") }
            let dependsOn = try changes.dependsOn.map { try TaskRules.normalizeDependencies($0, field: "changes.dependsOn") }
            let waitAt = try Self.milliseconds(changes.wait, field: "changes.wait")
            if let meta = changes.meta { try TaskRules.validateMeta(meta, field: "changes.meta") }
            if case .some(let rule?) = changes.recurrence {
                try TaskRules.validateRecurrence(rule, hasDue: changes.due.map { $0 != nil } ?? true, field: "changes.recurrence")
            }
            if let annotations = changes.annotations {
                guard changes.addAnnotations.isEmpty && changes.removeAnnotations.isEmpty else {
                    throw TaskStoreError.invalid(field: "changes.annotations", reason: "must not be given with addAnnotations or removeAnnotations")
                }
                try TaskRules.validateAnnotations(annotations, field: "changes.annotations")
            }
            try TaskRules.validateAnnotations(changes.addAnnotations, field: "changes.addAnnotations")
            guard changes.removeAnnotations.count <= TaskRules.maxAnnotations else {
                throw TaskStoreError.invalid(field: "changes.removeAnnotations", reason: "must have at most \(TaskRules.maxAnnotations) annotations")
            }
            if case .some(let startedAt?) = changes.startedAt { try TaskRules.validateTimestamp(startedAt, field: "changes.startedAt") }
            if let ifVersion { try TaskRules.validateVersion(ifVersion, field: "ifVersion") }
            action = .update(id: id, changes: changes, tags: tags, dueAt: dueAt, dependsOn: dependsOn, waitAt: waitAt, ifVersion: ifVersion)
        case .delete(let id, let ifVersion):
            if let ifVersion { try TaskRules.validateVersion(ifVersion, field: "ifVersion") }
            action = .delete(id: id, ifVersion: ifVersion)
        }
        kind = operation.kind
        // The reminder time is written in ms from the text (`TaskStore.insertRow`).
        switch operation {
        case .create(let draft):
            if let remindAt = draft.remindAt { _ = try TaskRules.dueMilliseconds(remindAt, field: "remindAt") }
        case .update(_, let changes, _):
            if case .some(let remindAt?) = changes.remindAt { _ = try TaskRules.dueMilliseconds(remindAt, field: "changes.remindAt") }
        case .delete:
            break
        }
    }

    /// The operation's name on the wire.
    package let kind: String

    /// `error` as operation `index` of an `apply` reports it.
    package func locate(_ error: TaskStoreError, index: Int) -> TaskStoreError {
        error.located(in: TaskOperation.path(kind: kind, index: index))
    }

    /// The operations of an `apply`, in order, inside the caller's transaction: with
    /// `atomic`, the first that fails fails them all (`operationFailed`, which the caller's
    /// rollback undoes); without, each runs through `isolated` (a savepoint of its own), so
    /// one that fails leaves the others' effects. Errors name the operation's fields
    /// (`operations[i].…`) when `locatingFields`.
    package static func runEach(
        _ prepared: [Result<PreparedOperation, TaskStoreError>], atomic: Bool, locatingFields: Bool,
        run: (PreparedOperation) throws -> OperationOutcome,
        isolated: (() throws -> OperationOutcome) throws -> OperationOutcome
    ) throws -> [Result<OperationOutcome, TaskStoreError>] {
        var results: [Result<OperationOutcome, TaskStoreError>] = []
        results.reserveCapacity(prepared.count)
        for (index, operation) in prepared.enumerated() {
            switch operation {
            case .failure(let error):
                results.append(.failure(error))
            case .success(let operation) where atomic:
                do {
                    results.append(.success(try run(operation)))
                } catch let error as TaskStoreError {
                    throw TaskStoreError.operationFailed(index: index, error: locatingFields ? operation.locate(error, index: index) : error)
                }
            case .success(let operation):
                do {
                    let outcome = try withoutActuallyEscaping(run) { run in try isolated { try run(operation) } }
                    results.append(.success(outcome))
                } catch let error as TaskStoreError {
                    results.append(.failure(locatingFields ? operation.locate(error, index: index) : error))
                }
            }
        }
        return results
    }

    /// A time a change sets (`.some`), clears (`.some(nil)`) or leaves alone (nil), in ms.
    private static func milliseconds(_ change: String??, field: String) throws -> Int64?? {
        guard case .some(let time) = change else { return nil }
        return .some(try time.map { try TaskRules.dueMilliseconds($0, field: field) })
    }
}
