/// A JSON value.
///
/// Taskline parses JSON itself rather than through Foundation: it needs to tell `1` from
/// `1.0` from `true` and to keep a number's text (request ids are echoed exactly as sent),
/// to reject duplicate member names and excessive nesting, and to keep member order for
/// readable output.
public enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in 64 bits (`-0` does not:
    /// it would be written back as `0`).
    case integer(Int64)
    /// Any other number, as its JSON text: written back exactly as it came, and equal only
    /// to the same text (`1.5` is not `1.50`). Within an IEEE double's range.
    case number(String)
    case string(String)
    case array([JSON])
    case object(JSONObject)
    /// JSON text made elsewhere and written out as it is. The parser never makes one; the
    /// server does for the tasks on its responses, where building a tree first would cost
    /// more than everything else together.
    case raw([UInt8])

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// A number's value as a double (rounded, for text with more digits than a double holds).
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let text): Double(text)
        default: nil
        }
    }

    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public subscript(key: String) -> JSON? {
        objectValue?[key]
    }

    /// The JSON type's name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        case .raw: "JSON text"
        }
    }
}

/// A JSON object that keeps its members in order.
///
/// Members live in two parallel arrays and are found by a linear search, which for the
/// small objects of this protocol beats hashing; past `indexThreshold` members (only
/// possible in hostile input) a dictionary index keeps lookups and duplicate checks fast.
/// Names are compared code point by code point, as JSON compares them: Swift's `String`
/// equality would take "é" and "e\u{301}" for one name.
public struct JSONObject: Sendable, Hashable, Sequence {
    public private(set) var keys: [String] = []
    private var values: [JSON] = []
    private var index: [Name: Int]?
    private static let indexThreshold = 16

    public init() {}

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    private struct Name: Hashable {
        let text: String

        static func == (a: Name, b: Name) -> Bool {
            JSONObject.sameName(a.text, b.text)
        }

        func hash(into hasher: inout Hasher) {
            for byte in text.utf8 { hasher.combine(byte) }
        }
    }

    private func position(of key: String) -> Int? {
        if let index { return index[Name(text: key)] }
        return keys.firstIndex { Self.sameName($0, key) }
    }

    /// The same UTF-8 bytes. A native string's bytes are compared in place; `elementsEqual`
    /// of two `UTF8View`s steps an iterator per byte, over a thousand instructions for a
    /// name, and every request looks its members up.
    static func sameName(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        let same = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in a.elementsEqual(b) }
        }
        return (same ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }

    /// Setting `nil` removes the member.
    public subscript(key: String) -> JSON? {
        get { position(of: key).map { values[$0] } }
        set {
            if let position = position(of: key) {
                if let newValue {
                    values[position] = newValue
                } else {
                    keys.remove(at: position)
                    values.remove(at: position)
                    rebuildIndex()
                }
            } else if let newValue {
                append(key, newValue)
            }
        }
    }

    /// Adds a member; returns false (and changes nothing) when the name is taken.
    mutating func insertNew(_ key: String, _ value: JSON) -> Bool {
        guard position(of: key) == nil else { return false }
        append(key, value)
        return true
    }

    private mutating func append(_ key: String, _ value: JSON) {
        if keys.capacity == 0 {
            // Messages are objects of a few members: one allocation each, not growth 1, 2, 4.
            keys.reserveCapacity(6)
            values.reserveCapacity(6)
        }
        keys.append(key)
        values.append(value)
        if index != nil {
            index?[Name(text: key)] = keys.count - 1
        } else if keys.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    private mutating func rebuildIndex() {
        index = keys.count > Self.indexThreshold ? Dictionary(uniqueKeysWithValues: keys.enumerated().map { (Name(text: $1), $0) }) : nil
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.count == b.count && a.keys.allSatisfy { a[$0] == b[$0] }
    }

    /// Members in the order of their names' code points, as `==` tells names apart: `String`'s
    /// order leaves "é" and "e\u{301}" as they came, and equal objects would hash apart.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for key in keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            hasher.combine(key)
            hasher.combine(self[key])
        }
    }

    public func makeIterator() -> Zip2Sequence<[String], [JSON]>.Iterator {
        zip(keys, values).makeIterator()
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSON)...) {
        for (key, value) in elements { self[key] = value }
    }
}
