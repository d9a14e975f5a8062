import EventLoop
import Logging
import PostgreSQL
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// LISTENs for the store's channel on a connection of its own, whose socket is a source of
/// the loop: an idle server sleeps until a writer's commit delivers a NOTIFY. Notifications
/// from the store's own connection (`ownPID`) are not reported: the server has told its
/// client of those already. Bursts coalesce: `onChange` is called once until
/// `takeChanges()` looks.
final class ChangeListener: @unchecked Sendable {  // @unchecked: the connection is used on the loop's thread only
    private let connection: PostgresConnection
    private let ownPID: Int32
    private let onChange: @Sendable () -> Void
    private let loop: EventLoop
    private var source: EventLoop.Source?
    /// Another writer committed since `takeChanges()` last looked.
    private let pending = Mutex(false)

    /// Called on the loop's thread (the store's executor).
    init(connectionString: String, channel: String, ownPID: Int32, loop: EventLoop,
         onChange: @escaping @Sendable () -> Void) throws {
        connection = try PostgresConnection(connectionString)
        try connection.listen(channel)
        self.ownPID = ownPID
        self.onChange = onChange
        self.loop = loop
        source = loop.addSource(fd: connection.socket, events: Int16(POLLIN)) { [unowned self] _ in readNotifications() }
    }

    deinit {
        source?.cancel()
    }

    /// True when another writer committed since the last call.
    func takeChanges() throws -> Bool {
        try connection.consumeInput()
        record(connection.notifications())
        return pending.withLock { value in
            defer { value = false }
            return value
        }
    }

    private func readNotifications() {
        do {
            try connection.consumeInput()
        } catch {
            // Reconnecting is not built yet: the server goes on with its own changes.
            Log.warning("stopped listening for other servers' changes: \(error)")
            source?.cancel()
            source = nil
            return
        }
        if record(connection.notifications()) { onChange() }
    }

    /// Returns true when `notifications` hold another writer's and none was pending.
    @discardableResult
    private func record(_ notifications: [PostgresNotification]) -> Bool {
        guard notifications.contains(where: { $0.senderPID != ownPID }) else { return false }
        return pending.withLock { value in
            defer { value = true }
            return !value
        }
    }
}
