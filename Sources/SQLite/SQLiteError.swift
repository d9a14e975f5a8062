import CSQLite

/// An error reported by SQLite, carrying everything needed to understand it later:
/// the primary result code, the extended code, SQLite's message, and the SQL that failed.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_BUSY_SNAPSHOT`, `SQLITE_IOERR_FSYNC`, …); as a
    /// pattern, `.busy` matches every busy code (see `ResultCode`).
    public let resultCode: ResultCode
    public let message: String
    public let sql: String?

    /// The primary result code's raw value (`SQLITE_FULL`, `SQLITE_BUSY`, …).
    public var code: Int32 { resultCode.primary.rawValue }
    /// The extended result code's raw value.
    public var extendedCode: Int32 { resultCode.rawValue }

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.resultCode = ResultCode(rawValue: extendedCode)
        self.message = message
        self.sql = sql
    }

    /// Reads the error state of `connection` after a call returned `resultCode`.
    init(resultCode: Int32, connection: OpaquePointer?, sql: String? = nil) {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? resultCode
        // The connection's error code can be stale when the failing call did not set it
        // (some sqlite3_open paths); the returned code is authoritative for the primary part.
        let code = (extended & 0xFF) == (resultCode & 0xFF) ? extended : resultCode
        let message =
            connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(resultCode))
        self.init(extendedCode: code, message: message, sql: sql)
    }

    public var description: String {
        var text = "SQLite error \(code)"
        if extendedCode != code { text += " (extended \(extendedCode))" }
        text += ": \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }
}
