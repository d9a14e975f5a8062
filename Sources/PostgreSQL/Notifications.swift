import CLibPQ

/// A notification from `NOTIFY` or `pg_notify` on a channel this connection listens to.
public struct PostgresNotification: Sendable, Hashable {
    public let channel: String
    public let payload: String
    /// The server process that sent it; the connection's own `backendPID` for its own.
    public let senderPID: Int32
}

/// LISTEN/NOTIFY for an event loop: wait until `socket` is readable, call `consumeInput()`,
/// then take `notifications()`. A notification arrives only when the sender's transaction
/// commits, once per listening connection.
extension PostgresConnection {
    /// The connection's socket, for an event loop to wait on for reading. A reset opens
    /// another; -1 when there is no connection.
    public var socket: Int32 { PQsocket(handle) }

    public func listen(_ channel: String) throws {
        try execute("LISTEN " + quotedIdentifier(channel))
    }

    public func unlisten(_ channel: String) throws {
        try execute("UNLISTEN " + quotedIdentifier(channel))
    }

    /// Sends `payload` to every connection listening on `channel`, when the current
    /// transaction commits (at once outside one). Notifications with the same channel and
    /// payload in one transaction are delivered once.
    public func notify(_ channel: String, payload: String = "") throws {
        try query("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
    }

    /// Reads whatever the server has sent, without waiting for more. Throws when the
    /// connection is lost.
    public func consumeInput() throws {
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(message: scrub(trimmed(errorMessage)), connectionLost: status == .bad)
        }
    }

    /// The notifications read so far, by `consumeInput()` or by any statement, oldest first;
    /// each is returned once.
    public func notifications() -> [PostgresNotification] {
        var notifications: [PostgresNotification] = []
        while let notify = PQnotifies(handle) {
            notifications.append(
                PostgresNotification(
                    channel: String(cString: notify.pointee.relname),
                    payload: String(cString: notify.pointee.extra),
                    senderPID: notify.pointee.be_pid
                ))
            PQfreemem(notify)
        }
        return notifications
    }

    /// `name` quoted as an SQL identifier, by libpq's rules.
    public func quotedIdentifier(_ name: String) throws -> String {
        guard let quoted = PQescapeIdentifier(handle, name, name.utf8.count) else {
            throw PostgresError(message: scrub(trimmed(errorMessage)), connectionLost: status == .bad)
        }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }
}
