import CLibPQ

/// A parameter of a statement. Sent in libpq's text format; each case but `text` and `null`
/// with its type, so `SELECT $1` with `.integer(1)` is an `int8`. A `text` parameter takes the
/// type the statement gives it (`uuid`, `timestamptz`, `text`, …).
public enum PostgresValue: Sendable, Hashable {
    case null
    case text(String)
    case integer(Int64)
    case double(Double)
    case boolean(Bool)
    case bytes([UInt8])
}

extension PostgresValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral, ExpressibleByBooleanLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
}

extension PostgresValue {
    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: String?) { self = value.map(PostgresValue.text) ?? .null }
    public init(_ value: Int64?) { self = value.map(PostgresValue.integer) ?? .null }

    /// The type sent with the parameter: 0 lets the server infer it from the statement.
    var typeOID: Oid {
        switch self {
        case .null, .text: 0
        case .integer: 20  // int8
        case .double: 701  // float8
        case .boolean: 16  // bool
        case .bytes: 17  // bytea
        }
    }

    /// The parameter in PostgreSQL's text format; nil for NULL.
    func textFormat(sql: String) throws -> String? {
        switch self {
        case .null: return nil
        case .text(let string):
            // libpq takes a text parameter as a C string: a NUL would silently cut it short.
            // PostgreSQL's text cannot hold a NUL anyway.
            guard !string.utf8.contains(0) else {
                throw PostgresError(message: "text parameters cannot contain NUL (U+0000): PostgreSQL's text cannot hold it", sql: sql)
            }
            return string
        case .integer(let value): return String(value)
        case .double(let value):
            if value.isNaN { return "NaN" }
            if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
            // Swift's description is the shortest text that reads back as the same Double.
            return value.description
        case .boolean(let value): return value ? "true" : "false"
        case .bytes(let bytes): return "\\x" + hex(bytes)
        }
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: text, as: UTF8.self)
}
