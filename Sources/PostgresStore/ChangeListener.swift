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
///
/// A lost connection is opened again after 0.1 s, then after twice as long each time it
/// fails, up to 5 s; once it listens again, `onChange` is called, since notifications sent
/// meanwhile are lost: the owner reads the change log from where it was.
final class ChangeListener: @unchecked Sendable {  // @unchecked: used on the loop's thread only
    private let connectionString: String
    private let channel: String
    private var connection: PostgresConnection?
    private let ownPID: Int32
    private let onChange: @Sendable () -> Void
    private let loop: EventLoop
    private var source: EventLoop.Source?
    private var reconnectTimer: EventLoop.Timer?
    private var reconnectDelay = ChangeListener.firstReconnectDelay
    /// Another writer committed since `takeChanges()` last looked.
    private let pending = Mutex(false)

    /// In ns.
    private static let firstReconnectDelay: UInt64 = 100_000_000
    private static let longestReconnectDelay: UInt64 = 5_000_000_000

    /// Called on the loop's thread (the store's executor).
    init(connectionString: String, channel: String, ownPID: Int32, loop: EventLoop,
         onChange: @escaping @Sendable () -> Void) throws {
        self.connectionString = connectionString
        self.channel = channel
        self.ownPID = ownPID
        self.onChange = onChange
        self.loop = loop
        try listen()
    }

    deinit {
        source?.cancel()
        reconnectTimer?.cancel()
    }

    private func listen() throws {
        let connection = try PostgresConnection(connectionString)
        try connection.listen(channel)
        self.connection = connection
        source = loop.addSource(fd: connection.socket, events: Int16(POLLIN)) { [unowned self] _ in readNotifications() }
    }

    /// True when another writer committed since the last call, or the connection was lost
    /// (commits may have gone unheard).
    func takeChanges() -> Bool {
        if let connection {
            do {
                try connection.consumeInput()
                record(connection.notifications())
            } catch {
                lost(error)
            }
        }
        return pending.withLock { value in
            defer { value = false }
            return value
        }
    }

    private func readNotifications() {
        guard let connection else { return }
        do {
            try connection.consumeInput()
        } catch {
            lost(error)
            return
        }
        if record(connection.notifications()) { onChange() }
    }

    private func lost(_ error: any Error) {
        Log.warning("lost the connection that listens for other servers' changes, reconnecting: \(error)")
        source?.cancel()
        source = nil
        connection = nil
        pending.withLock { $0 = true }
        scheduleReconnect()
    }

    private func scheduleReconnect() {
        let timer = reconnectTimer ?? loop.makeTimer { [unowned self] in reconnect() }
        reconnectTimer = timer
        timer.schedule(after: reconnectDelay)
        reconnectDelay = min(reconnectDelay * 2, Self.longestReconnectDelay)
    }

    private func reconnect() {
        do {
            try listen()
        } catch {
            Log.info("cannot listen for other servers' changes yet: \(error)")
            scheduleReconnect()
            return
        }
        Log.info("listening for other servers' changes again")
        reconnectDelay = Self.firstReconnectDelay
        pending.withLock { $0 = true }
        onChange()
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
