/// What the server, `taskline export` and `taskline import` ask of a store about tasks,
/// whichever database holds them: SQLite (`TaskStore`) or PostgreSQL (`PostgresTaskStore`).
/// Each is an actor owning its connection; what serving it takes beyond this (its event
/// loop, the watch for other writers, closing) is `ServedStore`'s, in StoreServing.
///
/// Errors are `TaskStoreError`s, with the answers protocol/ specifies for each.
public protocol TaskStoring: Actor {
    func get(id: String) throws -> TaskItem
    func fetch(_ query: TaskQuery) throws -> TaskPage

    /// One write in a transaction of its own.
    func perform(_ operation: TaskOperation) throws -> OperationOutcome
    /// Writes committed together, each of which fails alone.
    func performEach(_ operations: [TaskOperation]) throws -> [Result<OperationOutcome, TaskStoreError>]
    /// `tasks/apply`: atomic, all or none (the first failure thrown as `operationFailed`);
    /// otherwise as `performEach`. An operation that could not be read comes as its error.
    func apply(_ operations: [Result<TaskOperation, TaskStoreError>], atomic: Bool) throws -> [Result<OperationOutcome, TaskStoreError>]

    func undo(scope: UndoScope, force: Bool) throws -> Reversal?
    func redo(scope: UndoScope, force: Bool) throws -> Reversal?

    /// The newest `seq` ever handed out: 0 for a database that never changed.
    func currentSeq() throws -> Int64
    /// Every change after `since`, oldest first, at most `limit`.
    func changes(since: Int64, limit: Int) throws -> ChangePage
    /// Removes changes recorded before `cutoff` (ms since the epoch); returns how many.
    func pruneHistory(before cutoff: Int64) throws -> Int
    /// A random number given to the database when it was made.
    func databaseID() throws -> Int64

    /// Marks the reminders due at `now` as this caller's to send, and returns them.
    func claimDueReminders(now: Int64) throws -> DueReminders

    /// Calls `body` with every task, oldest first (by `createdAt`, then `id`), all read from
    /// one snapshot, a few hundred at a time; returns how many there were. An error `body`
    /// throws stops the export and is rethrown as it is.
    @discardableResult
    func exportTasks(_ body: (TaskBuffer) throws -> Void) throws -> Int
    /// Imports `records` in one transaction: all of them, or, when any is invalid or (with
    /// `.fail`) conflicts with an existing task, none (`ImportFailure`, the first
    /// `maxProblems` bad records in detail). Every field is kept as the record has it.
    func importTasks(_ records: some Sequence<ImportRecord>, onConflict: ConflictPolicy, maxProblems: Int) throws -> ImportSummary
}
