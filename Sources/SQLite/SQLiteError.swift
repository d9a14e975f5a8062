import CSQLite

/// An error reported by SQLite, carrying everything needed to understand it later:
/// the primary result code, the extended code, SQLite's message, and the SQL that failed.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The primary result code (`SQLITE_FULL`, `SQLITE_BUSY`, …).
    public let code: Int32
    /// The extended result code (`SQLITE_BUSY_SNAPSHOT`, `SQLITE_IOERR_FSYNC`, …).
    public let extendedCode: Int32
    public let message: String
    public let sql: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.code = extendedCode & 0xFF
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// Reads the error state of `connection` after a call returned `resultCode`.
    init(resultCode: Int32, connection: OpaquePointer?, sql: String? = nil) {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? resultCode
        // The connection's error code can be stale when the failing call did not set it
        // (some sqlite3_open paths); the returned code is authoritative for the primary part.
        let code = (extended & 0xFF) == (resultCode & 0xFF) ? extended : resultCode
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
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

    public static let busy = SQLITE_BUSY
    public static let locked = SQLITE_LOCKED
    public static let readOnly = SQLITE_READONLY
    public static let full = SQLITE_FULL
    public static let corrupt = SQLITE_CORRUPT
    public static let notADatabase = SQLITE_NOTADB
    public static let constraint = SQLITE_CONSTRAINT
    public static let cantOpen = SQLITE_CANTOPEN
}
