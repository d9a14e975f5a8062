/// One create, update or delete, each in a transaction of its own: `perform` with the
/// value its caller wants, on any store.
extension TaskStoring {
    public func create(_ draft: TaskDraft) throws -> WriteResult<TaskItem> {
        let outcome = try perform(.create(draft))
        return WriteResult(value: outcome.task!, change: outcome.change)
    }

    public func update(id: String, changes: TaskChanges, ifVersion: Int64? = nil) throws -> WriteResult<TaskItem> {
        let outcome = try perform(.update(id: id, changes: changes, ifVersion: ifVersion))
        return WriteResult(value: outcome.task!, change: outcome.change)
    }

    public func delete(id: String, ifVersion: Int64? = nil) throws -> WriteResult<String> {
        let outcome = try perform(.delete(id: id, ifVersion: ifVersion))
        return WriteResult(value: id, change: outcome.change)
    }

    /// `apply` of operations that were all read.
    public func apply(_ operations: [TaskOperation], atomic: Bool) throws -> [Result<OperationOutcome, TaskStoreError>] {
        try apply(operations.map { .success($0) }, atomic: atomic)
    }
}
