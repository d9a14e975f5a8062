import CLibPQ

/// Opening a connection without blocking, for an event loop that must go on meanwhile
/// (`PQconnectStart`, `PQresetStart`, `PQconnectPoll`): wait until `socket` is writable, call
/// `continueConnecting()`, and wait as it says until it answers `.connected`. The socket may
/// change between calls: ask for it each time. libpq's `connect_timeout` does not apply: the
/// caller gives up when it likes (`connectTimeoutSeconds` says what the connection string
/// asks for). Resolving a host name may still block: `hostaddr` avoids it.
extension PostgresConnection {
    public enum ConnectingProgress: Sendable {
        case waitingToRead
        case waitingToWrite
        case connected
    }

    /// Starts opening a connection; throws at once when libpq can tell already that it cannot.
    public static func startConnecting(_ connectionString: String) throws -> PostgresConnection {
        try PostgresConnection(connectionString: connectionString, connect: { PQconnectStart($0) })
    }

    /// Starts replacing the connection with a new one, as `reset()` does, without blocking.
    public func startReset() throws {
        guard PQresetStart(handle) == 1 else { throw connectionError("cannot reconnect to") }
    }

    /// Takes the connecting one step further, as far as the socket allows without blocking.
    public func continueConnecting() throws -> ConnectingProgress {
        // PQconnectPoll serves both a new connection and a reset: PQresetPoll only adds the
        // event procedures' reset callbacks, which this layer registers none of.
        switch PQconnectPoll(handle) {
        case PGRES_POLLING_READING: return .waitingToRead
        case PGRES_POLLING_WRITING: return .waitingToWrite
        case PGRES_POLLING_OK: return .connected
        default: throw connectionError("cannot connect to")
        }
    }

    /// The connection string's `connect_timeout` in seconds, nil when it sets none (or 0:
    /// wait for ever). libpq waits at least 2 s, and so does this.
    public var connectTimeoutSeconds: Int? {
        guard let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "connect_timeout" {
                guard let value = option.pointee.val, let seconds = Int(String(cString: value)), seconds > 0 else { return nil }
                return max(seconds, 2)
            }
            option += 1
        }
        return nil
    }
}
