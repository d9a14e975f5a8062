import CLibPQ

/// The result of one statement: its rows, in libpq's text format, and its command tag.
/// Owns libpq's result and frees it when the value goes away.
public final class PostgresRows: RandomAccessCollection {
    let result: OpaquePointer
    public let sql: String
    /// Each column's index by name; a name that two columns share maps to nil.
    private lazy var columnIndexes: [String: Int32?] = {
        var indexes: [String: Int32?] = [:]
        for (index, name) in columnNames.enumerated() {
            indexes[name] = indexes[name] == nil ? Int32(index) : .some(nil)
        }
        return indexes
    }()

    init(result: OpaquePointer, sql: String) {
        self.result = result
        self.sql = sql
    }

    deinit {
        PQclear(result)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(PQntuples(result)) }
    public subscript(position: Int) -> PostgresRow {
        precondition(indices.contains(position), "row \(position) of \(count)")
        return PostgresRow(rows: self, index: Int32(position))
    }

    /// The result columns' names, in order: a column's alias, or else its name.
    public var columnNames: [String] {
        (0..<PQnfields(result)).map { String(cString: PQfname(result, $0)) }
    }

    /// The command tag: `INSERT 0 1`, `UPDATE 3`, `SELECT 2`, `COMMIT`, …
    public var commandTag: String { String(cString: PQcmdStatus(result)) }

    /// How many rows the statement inserted, updated, deleted, merged, selected or copied;
    /// 0 for any other statement.
    public var affectedRows: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    /// The index of the column named exactly `name` (unlike libpq's `PQfnumber`, which folds
    /// case). Asking for a name the result has not, or has twice, is a programming error.
    func columnIndex(_ name: String) -> Int32 {
        guard let entry = columnIndexes[name] else { preconditionFailure("no column named \(name) in: \(sql)") }
        guard let index = entry else { preconditionFailure("two columns named \(name) in: \(sql)") }
        return index
    }
}

/// One row of a result, read by column name. Each typed read parses PostgreSQL's text form of
/// the value and throws when it is NULL (use the optional reads for nullable columns) or
/// cannot be read as that type.
public struct PostgresRow {
    let rows: PostgresRows
    let index: Int32

    public func isNull(_ column: String) -> Bool {
        PQgetisnull(rows.result, index, rows.columnIndex(column)) == 1
    }

    public func optionalText(_ column: String) -> String? {
        let field = rows.columnIndex(column)
        guard PQgetisnull(rows.result, index, field) == 0, let pointer = PQgetvalue(rows.result, index, field) else { return nil }
        let count = Int(PQgetlength(rows.result, index, field))
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    public func text(_ column: String) throws -> String { try required(column, optionalText(column)) }

    public func optionalInt64(_ column: String) throws -> Int64? { try parse(column, "an integer") { Int64($0) } }
    public func int64(_ column: String) throws -> Int64 { try required(column, optionalInt64(column)) }
    public func int(_ column: String) throws -> Int { Int(try int64(column)) }

    public func optionalDouble(_ column: String) throws -> Double? {
        try parse(column, "a floating-point number") { text in
            switch text {
            case "NaN": .nan
            case "Infinity": .infinity
            case "-Infinity": -.infinity
            default: Double(text)
            }
        }
    }
    public func double(_ column: String) throws -> Double { try required(column, optionalDouble(column)) }

    public func optionalBool(_ column: String) throws -> Bool? {
        try parse(column, "a boolean") { text in
            switch text {
            case "t": true
            case "f": false
            default: nil
            }
        }
    }
    public func bool(_ column: String) throws -> Bool { try required(column, optionalBool(column)) }

    /// A `bytea` column, in either of its output formats (`hex`, `escape`), decoded by libpq.
    public func optionalBytes(_ column: String) throws -> [UInt8]? {
        try parse(column, "bytea") { text in
            var count = 0
            guard let bytes = PQunescapeBytea(text, &count) else { return nil }
            defer { PQfreemem(bytes) }
            return Array(UnsafeBufferPointer(start: bytes, count: count))
        }
    }
    public func bytes(_ column: String) throws -> [UInt8] { try required(column, optionalBytes(column)) }

    private func parse<T>(_ column: String, _ kind: String, _ read: (String) -> T?) throws -> T? {
        guard let text = optionalText(column) else { return nil }
        guard let value = read(text) else {
            throw PostgresError(message: "column \(column) holds \(text.prefix(40).debugDescription), not \(kind)", sql: rows.sql)
        }
        return value
    }

    private func required<T>(_ column: String, _ value: T?) throws -> T {
        guard let value else { throw PostgresError(message: "column \(column) is NULL", sql: rows.sql) }
        return value
    }
}
