import CSQLite

/// A prepared statement. It is finalized when the value goes away, so a statement
/// can never leak, whatever path the code takes.
///
/// Statements belong to their `Database` and must be used on the same isolation domain.
public final class Statement {
    @usableFromInline let handle: OpaquePointer
    public let sql: String
    private unowned let database: Database
    /// The one `RowLayout` this statement's rows were last read with (see `layout`).
    private var resolvedLayout: Any?

    init(database: Database, sql: String) throws {
        var handle: OpaquePointer?
        let result = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard result == SQLITE_OK, let handle else {
            throw SQLiteError(resultCode: result, connection: database.handle, sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Clears the previous run and binds `values` to the parameters, in order.
    public func bind(_ values: [SQLValue]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .null: result = sqlite3_bind_null(handle, index)
            case .integer(let int): result = sqlite3_bind_int64(handle, index, int)
            case .real(let double): result = sqlite3_bind_double(handle, index, double)
            case .text(let string):
                // With its length in bytes: given -1, SQLite would cut the text at its first NUL.
                var text = string
                result = text.withUTF8 { bytes in
                    guard !bytes.isEmpty else { return sqlite3_bind_text(handle, index, "", 0, taskline_sqlite_transient) }
                    return bytes.withMemoryRebound(to: CChar.self) {
                        sqlite3_bind_text64(handle, index, $0.baseAddress, UInt64($0.count), taskline_sqlite_transient, UInt8(SQLITE_UTF8))
                    }
                }
            case .blob(let bytes):
                result = bytes.withUnsafeBytes {
                    sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), taskline_sqlite_transient)
                }
            }
            guard result == SQLITE_OK else { throw error(result) }
        }
    }

    /// Advances to the next row. Returns false when the statement is done.
    public func step() throws -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let failure = error(result)
            sqlite3_reset(handle)
            throw failure
        }
    }

    /// Runs the statement to completion, ignoring any rows.
    public func run(_ values: [SQLValue] = []) throws {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Runs the statement and calls `body` for every row.
    public func forEachRow(_ values: [SQLValue] = [], _ body: (Row) throws -> Void) throws {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() { try body(Row(statement: self)) }
    }

    /// Runs the statement and maps its first row, if any.
    public func firstRow<T>(_ values: [SQLValue] = [], _ body: (Row) throws -> T) throws -> T? {
        try bind(values)
        defer { sqlite3_reset(handle) }
        return try step() ? body(Row(statement: self)) : nil
    }

    /// The names of the result columns, in order: a column's alias, or else its name
    /// (`task.title` is `title`).
    public var columnNames: [String] {
        (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
    }

    /// The index of the result column named `name`. Asking for a name the statement has not,
    /// or has twice, is a programming error.
    public func columnIndex(_ name: String) -> Int32 {
        let names = columnNames
        guard let index = names.firstIndex(of: name) else {
            preconditionFailure("no column named \(name) in: \(sql)")
        }
        precondition(names.lastIndex(of: name) == index, "two columns named \(name) in: \(sql)")
        return Int32(index)
    }

    /// `L`'s column indexes for this statement, resolved by name when first asked for and
    /// kept with the prepared statement, so that reading a row looks no name up.
    public func layout<L: RowLayout>(_: L.Type = L.self) -> L {
        if let layout = resolvedLayout as? L { return layout }
        let layout = L(self)
        resolvedLayout = layout
        return layout
    }

    private func error(_ result: Int32) -> SQLiteError {
        SQLiteError(resultCode: result, connection: database.handle, sql: sql)
    }
}

/// Where a statement's result holds the columns a type reads, resolved by name
/// (`Statement.columnIndex`) once per prepared statement: see `Statement.layout`.
public protocol RowLayout {
    init(_ statement: Statement)
}

/// The current row of a statement. Valid only until the statement steps again.
public struct Row {
    @usableFromInline let statement: Statement

    @inlinable public func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement.handle, column) == SQLITE_NULL
    }

    @inlinable public func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement.handle, column)
    }

    public func int(_ column: Int32) -> Int {
        Int(sqlite3_column_int64(statement.handle, column))
    }

    public func bool(_ column: Int32) -> Bool {
        sqlite3_column_int64(statement.handle, column) != 0
    }

    @inlinable public func optionalInt64(_ column: Int32) -> Int64? {
        isNull(column) ? nil : int64(column)
    }

    public func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement.handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement.handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The column's text as UTF-8 bytes, without making a String of it (NULL's are none);
    /// valid only in `body`.
    public func withUTF8<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        withOptionalUTF8(column) { body($0 ?? UnsafeBufferPointer(start: nil, count: 0)) }
    }

    /// The column's text as UTF-8 bytes, valid only in `body`; nil when the value is NULL
    /// (SQLite gives a text no pointer only then, or when out of memory): one call fewer
    /// than asking the type first.
    @inlinable public func withOptionalUTF8<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>?) -> T) -> T {
        guard let pointer = sqlite3_column_text(statement.handle, column) else { return body(nil) }
        return body(UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement.handle, column))))
    }

    public func optionalText(_ column: Int32) -> String? {
        isNull(column) ? nil : text(column)
    }

    public func value(_ column: Int32) -> SQLValue {
        switch sqlite3_column_type(statement.handle, column) {
        case SQLITE_INTEGER: return .integer(int64(column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement.handle, column))
        case SQLITE_TEXT: return .text(text(column))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement.handle, column))
            guard count > 0, let pointer = sqlite3_column_blob(statement.handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default: return .null
        }
    }
}
