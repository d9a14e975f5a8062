import CSQLite

/// An SQLite result code (https://sqlite.org/rescode.html): a primary code in the low 8 bits,
/// and the extended codes built on it (`SQLITE_BUSY_SNAPSHOT` is `SQLITE_BUSY` with more
/// said). As a pattern, a primary code matches itself and each of its extended codes, so
/// `case .busy` catches every kind of busy; an extended code matches only itself. Outside a
/// pattern, compare `primary` (`error.resultCode.primary == .readOnly`).
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code: the extended code's low 8 bits.
    public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        pattern == pattern.primary ? pattern == code.primary : pattern == code
    }

    /// SQLite's English for the code.
    public var description: String { String(cString: sqlite3_errstr(rawValue)) }

    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
    public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    public static let cantOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
    public static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
    public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)

    // Swift does not import sqlite3.h's extended codes (macros built with |): each is built
    // here as SQLite builds it.
    public static let constraintCheck = ResultCode(rawValue: SQLITE_CONSTRAINT | (1 << 8))
    public static let constraintUnique = ResultCode(rawValue: SQLITE_CONSTRAINT | (8 << 8))
    public static let busySnapshot = ResultCode(rawValue: SQLITE_BUSY | (2 << 8))
}
