import EventLoop
import PostgreSQL
import Synchronization

/// LISTENs for the store's channel on a connection of its own, whose socket is a source of
/// the loop: an idle server sleeps until a writer's commit delivers a NOTIFY. Notifications
/// from the store's own connection (`store`, whose server process changes when it is opened
/// again) are not reported: the server has told its client of those already. Bursts
/// coalesce: `onChange` is called once until `takeChanges()` looks.
///
/// A lost connection is opened again as `ReconnectingConnection` says; once it listens
/// again, `onChange` is called, since notifications sent meanwhile are lost: the owner
/// reads the change log from where it was. The store calls `wake()` when its own connection
/// is back, for the same reason: the change log could not be read meanwhile.
final class ChangeListener: @unchecked Sendable {  // @unchecked: used on the loop's thread only
    private let store: PostgresConnection
    private let onChange: @Sendable () -> Void
    private let link: ReconnectingConnection
    /// Another writer committed since `takeChanges()` last looked.
    private let pending = Mutex(false)

    /// Called on the loop's thread (the store's executor); connects, blocking until it listens.
    init(
        connectionString: String, channel: String, store: PostgresConnection, loop: EventLoop,
        onChange: @escaping @Sendable () -> Void
    ) throws {
        self.store = store
        self.onChange = onChange
        let listen = { (connection: PostgresConnection) in try connection.listen(channel) }
        let connection = try PostgresConnection(connectionString)
        try listen(connection)
        link = ReconnectingConnection(
            connection, role: "the connection that listens for other servers' changes",
            loop: loop, setUp: listen)
        link.onInput = { [unowned self] in if record(link.connection.notifications()) { onChange() } }
        link.onReopened = { [unowned self] in wake() }
        link.start()
    }

    /// True when another writer committed since the last call, or a connection was lost
    /// (commits may have gone unheard).
    func takeChanges() -> Bool {
        if link.readInput() {
            record(link.connection.notifications())
        } else {
            pending.withLock { $0 = true }
        }
        return pending.withLock { value in
            defer { value = false }
            return value
        }
    }

    /// Reports a change, as if another writer had committed.
    func wake() {
        pending.withLock { $0 = true }
        onChange()
    }

    /// Returns true when `notifications` hold another writer's and none was pending.
    @discardableResult
    private func record(_ notifications: [PostgresNotification]) -> Bool {
        guard notifications.contains(where: { $0.senderPID != store.backendPID }) else { return false }
        return pending.withLock { value in
            defer { value = true }
            return !value
        }
    }
}
