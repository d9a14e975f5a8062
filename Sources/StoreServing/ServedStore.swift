import EventLoop
import TaskModel

/// A store as a process serves it, beyond its operations on tasks (`TaskStoring`): the event
/// loop it runs on, the watch for other writers, and what the process does with it before it
/// exits. Both stores conform: SQLite (`TaskStore`) and PostgreSQL (`PostgresTaskStore`).
public protocol ServedStore: TaskStoring {
    /// The event loop the store runs on: its executor, and the server's timers and watches.
    nonisolated var loop: EventLoop { get }

    /// Calls `onChange` (on the loop) when another writer may have committed;
    /// `hasExternalChanges` then tells. False where the store cannot watch.
    @discardableResult
    func watchExternalChanges(onChange: @escaping @Sendable () -> Void) throws -> Bool
    /// True when another writer has committed since the last call; re-arms the watch.
    func hasExternalChanges() throws -> Bool

    /// Leaves every commit in the database's own storage, the connection still open: the
    /// step before a process exits without closing it.
    func checkpoint() throws
    /// Closes the connection: the last step before the process exits.
    func close()
}
