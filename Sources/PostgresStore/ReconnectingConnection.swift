import EventLoop
import Logging
import PostgreSQL

#if canImport(Glibc)
import Glibc
#endif

/// A connection that the loop watches while it is open and opens again, without blocking
/// the loop, once it is lost: the store's own and the listener's. Its owner reports a loss
/// that a statement met (`lost`); one that happens while the connection is idle (the server
/// shut down or ended the session) shows on the socket, which the loop watches for reading.
///
/// Reopening: `PQresetStart`, then a step of `PQconnectPoll` each time the socket is ready,
/// within a time limit (libpq's `connect_timeout` does not apply there: the connection
/// string's, else `defaultTimeLimit`); then `setUp` (a new session has nothing of the old
/// one) and `onReopened`. An attempt that fails is tried again at once the first time, then
/// after 0.1 s, and twice as long each time after, up to 5 s: from timers of the loop, not
/// from requests. Meanwhile `isOpen` is false and the owner answers at once that the
/// database is unreachable (`lastError` says why).
final class ReconnectingConnection: @unchecked Sendable {  // @unchecked: used on the loop's thread only
    let connection: PostgresConnection
    /// What the connection is for, in logs: "the store's connection".
    private let role: String
    private let loop: EventLoop
    private let setUp: (PostgresConnection) throws -> Void
    /// Called on the loop's thread after the loop found the socket readable and read it
    /// without error (notifications).
    var onInput: () -> Void = {}
    /// Called on the loop's thread once the connection is open again and set up.
    var onReopened: () -> Void = {}

    private(set) var isOpen = true
    /// Why the connection was lost, or why the latest attempt to reopen it failed.
    private(set) var lastError: (any Error)?
    /// The socket, watched for reading while open, and for what the connecting step waits
    /// for while reopening.
    private var source: EventLoop.Source?
    private var retryTimer: EventLoop.Timer?
    private var timeLimitTimer: EventLoop.Timer?
    private var nextDelay: UInt64 = 0

    /// In ns.
    private static let firstDelay: UInt64 = 100_000_000
    private static let longestDelay: UInt64 = 5_000_000_000
    static let defaultTimeLimit: UInt64 = 10_000_000_000

    /// `connection` is open. Call `start()` on the loop's thread before anything else.
    init(_ connection: PostgresConnection, role: String, loop: EventLoop, setUp: @escaping (PostgresConnection) throws -> Void) {
        self.connection = connection
        self.role = role
        self.loop = loop
        self.setUp = setUp
    }

    deinit {
        source?.cancel()
        retryTimer?.cancel()
        timeLimitTimer?.cancel()
    }

    /// Starts watching the socket, unless a loss was reported already.
    func start() {
        if isOpen { watch(events: Int16(POLLIN)) }
    }

    /// Reads what the server sent, without waiting; false (and reopening) when the
    /// connection is lost.
    @discardableResult
    func readInput() -> Bool {
        guard isOpen else { return false }
        do {
            try connection.consumeInput()
        } catch {
            lost(error)
            return false
        }
        return true
    }

    /// The connection was found lost: reopen it. Nothing happens while it is being reopened.
    func lost(_ error: any Error) {
        guard isOpen else { return }
        Log.warning("lost \(role) to \(connection.redactedConnectionString), reconnecting: \(error)")
        isOpen = false
        lastError = error
        nextDelay = 0
        scheduleAttempt()
    }

    private func scheduleAttempt() {
        stopWatching()
        let timer = retryTimer ?? loop.makeTimer { [weak self] in self?.attempt() }
        retryTimer = timer
        timer.schedule(after: nextDelay)
        nextDelay = nextDelay == 0 ? Self.firstDelay : min(nextDelay * 2, Self.longestDelay)
    }

    private func attempt() {
        do {
            try connection.startReset()
        } catch {
            return failed(error)
        }
        let limit = connection.connectTimeoutSeconds.map { UInt64($0) * 1_000_000_000 } ?? Self.defaultTimeLimit
        let timer =
            timeLimitTimer
            ?? loop.makeTimer { [weak self] in
                self?.failed(PostgresError(message: "connecting took longer than its time limit", connectionLost: true))
            }
        timeLimitTimer = timer
        timer.schedule(after: limit)
        // libpq: before the first step, wait as if it had asked to write.
        watch(events: Int16(POLLOUT))
    }

    /// One step of connecting, when the socket is ready for what the last step asked.
    private func step() {
        let progress: PostgresConnection.ConnectingProgress
        do {
            progress = try connection.continueConnecting()
        } catch {
            return failed(error)
        }
        switch progress {
        case .waitingToRead: watch(events: Int16(POLLIN))
        case .waitingToWrite: watch(events: Int16(POLLOUT))
        case .connected: connected()
        }
    }

    private func connected() {
        timeLimitTimer?.cancel()
        do {
            try setUp(connection)
        } catch {
            return failed(error)
        }
        Log.info("reconnected \(role) to \(connection.redactedConnectionString)")
        isOpen = true
        lastError = nil
        watch(events: Int16(POLLIN))
        onReopened()
    }

    private func failed(_ error: any Error) {
        Log.info("cannot reconnect \(role) yet: \(error)")
        timeLimitTimer?.cancel()
        lastError = error
        scheduleAttempt()
    }

    /// Polls the connection's socket (which a reset may have changed) for `events`.
    private func watch(events: Int16) {
        let fd = connection.socket
        if let source, source.fd == fd {
            source.events = events
            return
        }
        stopWatching()
        guard fd >= 0 else { return failed(PostgresError(message: "libpq has no socket for \(role)", connectionLost: true)) }
        source = loop.addSource(fd: fd, events: events) { [unowned self] _ in
            if !isOpen {
                step()
            } else if readInput() {
                onInput()
            }
        }
    }

    private func stopWatching() {
        source?.cancel()
        source = nil
    }
}
