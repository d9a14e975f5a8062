import CLibPQ

/// An error from PostgreSQL or libpq, carrying everything needed to understand it later: the
/// SQLSTATE, libpq's message (never a password: see `redactPasswords(in:)`), the server's
/// detail, and the SQL that failed.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The server's five-character code; nil when the error arose in libpq or in this layer
    /// (a lost connection often has none: the server had no chance to say anything).
    public let sqlstate: SQLState?
    public let message: String
    public let detail: String?
    public let sql: String?
    /// True when the connection was unusable right after the error: the statement may or may
    /// not have run, and only `PostgresConnection.reset()` makes the connection work again.
    public let connectionLost: Bool

    public init(sqlstate: SQLState? = nil, message: String, detail: String? = nil, sql: String? = nil, connectionLost: Bool = false) {
        self.sqlstate = sqlstate
        self.message = message
        self.detail = detail
        self.sql = sql
        self.connectionLost = connectionLost
    }

    /// True when running the same work again may succeed: the connection was lost or the
    /// server is shutting down or starting (class 08, 57P01–57P03), the transaction lost
    /// a race with another (40001 serialization failure, 40P01 deadlock) and must be run again
    /// from its start, or it waited for a lock longer than `lock_timeout` (55P03).
    public var isRetryable: Bool {
        if connectionLost { return true }
        guard let sqlstate else { return false }
        return sqlstate.errorClass == "08"
            || [
                .adminShutdown, .crashShutdown, .cannotConnectNow,
                .serializationFailure, .deadlockDetected, .lockNotAvailable,
            ].contains(sqlstate)
    }

    public var description: String {
        var text = "PostgreSQL error"
        if let sqlstate { text += " \(sqlstate.rawValue)" }
        text += ": \(message)"
        if let detail { text += " (\(detail))" }
        if let sql { text += " — while running: \(sql)" }
        return text
    }
}

/// A SQLSTATE code (https://www.postgresql.org/docs/current/errcodes-appendix.html): a class
/// in its first two characters, the condition in the other three.
public struct SQLState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `23` for every integrity constraint violation, `08` for every connection exception, …
    public var errorClass: Substring { rawValue.prefix(2) }
    public var description: String { rawValue }

    public static let uniqueViolation = SQLState(rawValue: "23505")
    public static let foreignKeyViolation = SQLState(rawValue: "23503")
    public static let checkViolation = SQLState(rawValue: "23514")
    public static let notNullViolation = SQLState(rawValue: "23502")
    public static let serializationFailure = SQLState(rawValue: "40001")
    public static let deadlockDetected = SQLState(rawValue: "40P01")
    public static let lockNotAvailable = SQLState(rawValue: "55P03")
    public static let undefinedTable = SQLState(rawValue: "42P01")
    public static let insufficientPrivilege = SQLState(rawValue: "42501")
    public static let adminShutdown = SQLState(rawValue: "57P01")
    public static let crashShutdown = SQLState(rawValue: "57P02")
    public static let cannotConnectNow = SQLState(rawValue: "57P03")
    public static let readOnlySQLTransaction = SQLState(rawValue: "25006")
    public static let diskFull = SQLState(rawValue: "53100")
    public static let dataCorrupted = SQLState(rawValue: "XX001")
    public static let indexCorrupted = SQLState(rawValue: "XX002")
}

extension PostgresError {
    /// The error a failed statement's result reports; `result` nil when libpq could not even
    /// send it (then the connection says why).
    init(result: OpaquePointer?, connection: PostgresConnection, sql: String) {
        func field(_ code: UInt8) -> String? {
            guard let result, let value = PQresultErrorField(result, Int32(code)) else { return nil }
            return String(cString: value)
        }
        let primary =
            field(UInt8(ascii: "M"))
            ?? result.map { String(cString: PQresultErrorMessage($0)) }.flatMap(nonEmpty)
            ?? connection.errorMessage
        self.init(
            sqlstate: field(UInt8(ascii: "C")).map(SQLState.init(rawValue:)),
            message: connection.scrub(trimmed(primary)),
            detail: field(UInt8(ascii: "D")).map { connection.scrub($0) },
            sql: sql,
            connectionLost: PQstatus(connection.handle) != CONNECTION_OK
        )
    }
}

func trimmed(_ message: String) -> String {
    String(message.reversed().drop { $0.isWhitespace }.reversed())
}

private func nonEmpty(_ text: String) -> String? {
    text.isEmpty ? nil : text
}
