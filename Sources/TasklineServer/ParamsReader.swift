import JSON
import JSONRPC
import TaskModel

/// Reads a params object member by member, turning every type or range problem into
/// `-32602` with the dotted path of the field, and refusing members nobody read, so that
/// a typo never silently drops data.
struct ParamsReader {
    private let object: JSONObject
    private let path: String
    /// The names read: a handful, so a list (a Set's hashing and growth cost a create more
    /// than the rest of reading its params).
    private var consumed: [String] = []
    /// Whether `null` reads as "absent". True for params, where a client may pass `null`
    /// for an option it does not use; false for update `changes`, where `null` would
    /// look like "clear this field" and silently do nothing instead.
    var nullMeansAbsent = true

    /// `params` must be an object, or absent (read as an empty object).
    init(_ params: JSON?, path: String = "") throws(ResponseError) {
        switch params {
        case nil: self.init(object: JSONObject(), path: path)
        case .object(let object)?: self.init(object: object, path: path)
        case let other?: throw .invalidParams(field: path, reason: "must be an object, not \(other.typeName)")
        }
    }

    private init(object: JSONObject, path: String) {
        self.object = object
        self.path = path
    }

    func field(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// The member's value; `null` reads as absent, or is refused (see `nullMeansAbsent`).
    private mutating func take(_ key: String) throws(ResponseError) -> JSON? {
        consumed.append(key)
        guard let value = object[key] else { return nil }
        guard value != .null else {
            if nullMeansAbsent { return nil }
            throw .invalidParams(field: field(key), reason: "must not be null")
        }
        return value
    }

    private func wrongType(_ key: String, _ expected: String, _ value: JSON) -> ResponseError {
        .invalidParams(field: field(key), reason: "must be \(expected), not \(value.typeName)")
    }

    mutating func string(_ key: String) throws(ResponseError) -> String? {
        guard let value = try take(key) else { return nil }
        guard case .string(let string) = value else { throw wrongType(key, "a string", value) }
        return string
    }

    mutating func requiredString(_ key: String) throws(ResponseError) -> String {
        try required(key, string(key))
    }

    /// `value`, read for `key`, which must be there; the error names the member by its full path.
    func required<Value>(_ key: String, _ value: Value?) throws(ResponseError) -> Value {
        guard let value else { throw .invalidParams(field: field(key), reason: "is required") }
        return value
    }

    /// Tells "absent" (`nil`) from "explicitly null" (`.some(nil)`), for fields null clears.
    mutating func nullableString(_ key: String) throws(ResponseError) -> String?? {
        consumed.append(key)
        guard let value = object[key] else { return nil }
        switch value {
        case .null: return .some(nil)
        case .string(let string): return .some(string)
        default: throw wrongType(key, "a string or null", value)
        }
    }

    mutating func bool(_ key: String) throws(ResponseError) -> Bool? {
        guard let value = try take(key) else { return nil }
        guard case .bool(let bool) = value else { throw wrongType(key, "a boolean", value) }
        return bool
    }

    /// An integer from −(2^53 − 1) to 2^53 − 1, the ones every JSON reader holds exactly;
    /// a number with a zero fraction (`2.0`) counts, as in JSON Schema.
    mutating func integer(_ key: String) throws(ResponseError) -> Int64? {
        guard let value = try take(key) else { return nil }
        let exact = -TaskRules.maxCounter...TaskRules.maxCounter
        switch value {
        case .integer(let int) where exact.contains(int):
            return int
        case .integer:
            break
        default:
            guard let double = value.doubleValue, double == double.rounded() else { throw wrongType(key, "an integer", value) }
            if abs(double) <= Double(TaskRules.maxCounter) { return Int64(double) }
        }
        let negative = value.doubleValue.map { $0 < 0 } ?? false
        throw .invalidParams(
            field: field(key),
            reason: negative
                ? "must be at least −\(TaskRules.maxCounter) (−(2^53 − 1))" : "must be at most \(TaskRules.maxCounter) (2^53 − 1)")
    }

    /// An integer that fits `Int`; the range check itself belongs to the caller.
    mutating func int(_ key: String) throws(ResponseError) -> Int? {
        try integer(key).map { value throws(ResponseError) in
            guard let int = Int(exactly: value) else { throw .invalidParams(field: field(key), reason: "is out of range") }
            return int
        }
    }

    mutating func stringArray(_ key: String) throws(ResponseError) -> [String]? {
        guard let value = try take(key) else { return nil }
        guard case .array(let elements) = value else { throw wrongType(key, "an array of strings", value) }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .string(let string) = element else {
                throw .invalidParams(field: "\(field(key))[\(index)]", reason: "must be a string, not \(element.typeName)")
            }
            strings.append(string)
        }
        return strings
    }

    mutating func object(_ key: String) throws(ResponseError) -> ParamsReader? {
        guard let value = try take(key) else { return nil }
        guard case .object(let object) = value else { throw wrongType(key, "an object", value) }
        return ParamsReader(object: object, path: field(key))
    }

    /// Clients' own data (`meta`): an object at most `TaskJSON.maxMetaDepth` levels deep,
    /// returned as its compact JSON text (its size is the store's to check). `null` is absent, or `{}` where null clears (`nullClears`:
    /// update `changes`).
    mutating func metaObject(_ key: String, nullClears: Bool = false) throws(ResponseError) -> String? {
        consumed.append(key)
        guard let value = object[key] else { return nil }
        switch value {
        case .null:
            return nullClears ? TaskItem.emptyMeta : nil
        case .object:
            guard TaskJSON.depth(of: value) <= TaskJSON.maxMetaDepth else {
                throw .invalidParams(field: field(key), reason: "must be at most \(TaskJSON.maxMetaDepth) levels deep")
            }
            return JSONWriter.string(value)
        default:
            throw wrongType(key, nullClears ? "an object or null" : "an object", value)
        }
    }

    /// A recurrence, `{"rule": <text>}`, read as its rule; `null` is `.some(nil)`, which
    /// ends a series in update `changes` and is absent elsewhere.
    mutating func recurrence(_ key: String) throws(ResponseError) -> String?? {
        consumed.append(key)
        guard let value = object[key] else { return nil }
        if value == .null { return .some(nil) }
        guard case .object = value else { throw wrongType(key, "an object or null", value) }
        var reader = try ParamsReader(value, path: field(key))
        let rule = try reader.requiredString("rule")
        try reader.finish()
        return .some(rule)
    }

    /// An RFC 3339 date-time (or date), in ms since the epoch; its range is the store's to check.
    mutating func timestamp(_ key: String) throws(ResponseError) -> Int64? {
        guard let text = try string(key) else { return nil }
        return try milliseconds(text, key)
    }

    /// The same, telling "absent" (`nil`) from "explicitly null" (`.some(nil)`), for fields null clears.
    mutating func nullableTimestamp(_ key: String) throws(ResponseError) -> Int64?? {
        guard case .some(let text) = try nullableString(key) else { return nil }
        guard let text else { return .some(nil) }
        return .some(try milliseconds(text, key))
    }

    private func milliseconds(_ text: String, _ key: String) throws(ResponseError) -> Int64 {
        guard let milliseconds = Timestamp.parse(text) else {
            throw .invalidParams(field: field(key), reason: "must be an RFC 3339 date-time, such as 2026-11-29T15:02:11.042Z")
        }
        return milliseconds
    }

    /// An array of annotations to add, `{"text": …, "at"?: …}`; their texts' rules are the store's to check.
    mutating func annotations(_ key: String) throws(ResponseError) -> [NewAnnotation]? {
        guard let readers = try objectArray(key) else { return nil }
        var annotations: [NewAnnotation] = []
        for var reader in readers {
            let text = try reader.requiredString("text")
            annotations.append(NewAnnotation(at: try reader.timestamp("at"), text: text))
            try reader.finish()
        }
        return annotations
    }

    /// An array of annotations as a task has them, `{"at": …, "text": …}`.
    mutating func annotationMatches(_ key: String) throws(ResponseError) -> [Annotation]? {
        guard let readers = try objectArray(key) else { return nil }
        var annotations: [Annotation] = []
        for var reader in readers {
            let text = try reader.requiredString("text")
            annotations.append(Annotation(at: try reader.required("at", reader.timestamp("at")), text: text))
            try reader.finish()
        }
        return annotations
    }

    /// An array whose elements the caller reads one by one.
    mutating func array(_ key: String) throws(ResponseError) -> [JSON]? {
        guard let value = try take(key) else { return nil }
        guard case .array(let elements) = value else { throw wrongType(key, "an array", value) }
        return elements
    }

    mutating func objectArray(_ key: String) throws(ResponseError) -> [ParamsReader]? {
        guard let value = try take(key) else { return nil }
        guard case .array(let elements) = value else { throw wrongType(key, "an array", value) }
        var readers: [ParamsReader] = []
        for (index, element) in elements.enumerated() {
            guard case .object(let object) = element else {
                throw .invalidParams(field: "\(field(key))[\(index)]", reason: "must be an object, not \(element.typeName)")
            }
            readers.append(ParamsReader(object: object, path: "\(field(key))[\(index)]"))
        }
        return readers
    }

    /// Fails on the first member that was never read.
    func finish() throws(ResponseError) {
        if let unknown = object.keys.first(where: { !consumed.contains($0) }) {
            throw .invalidParams(field: field(unknown), reason: "is not a known field")
        }
    }
}
