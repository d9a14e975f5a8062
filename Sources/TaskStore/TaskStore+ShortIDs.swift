import SQLite

/// Ids shortened the way git shortens hashes, for people typing them.
public enum ShortID {
    /// A short id has at least this many characters (or is the whole id, when shorter).
    public static let minimumLength = 7
    /// A prefix given to find a task must have at least this many characters, unless it is
    /// a whole id: git's limit, so that a slip of the finger cannot pick a task by accident.
    public static let minimumPrefixLength = 4

    public enum LookupError: Error, Sendable, Hashable, CustomStringConvertible {
        case notFound(prefix: String)
        case tooShort(prefix: String)
        /// `candidates`: the first few ids that start with the prefix.
        case ambiguous(prefix: String, candidates: [String])

        public var description: String {
            switch self {
            case .notFound(let prefix):
                "no task has an id starting with \(prefix)"
            case .tooShort(let prefix):
                "\(prefix) is too short: give at least \(ShortID.minimumPrefixLength) characters of the id"
            case .ambiguous(let prefix, let candidates):
                "\(prefix) is ambiguous: it starts the ids \(candidates.joined(separator: ", "))\(candidates.count >= ShortID.maxCandidates ? ", …" : "")"
            }
        }
    }

    static let maxCandidates = 5

    /// The number of leading characters (Unicode scalars) `a` and `b` share.
    static func commonPrefixLength(_ a: String, _ b: String) -> Int {
        zip(a.unicodeScalars, b.unicodeScalars).prefix { $0 == $1 }.count
    }

    /// The first text after every text that starts with `prefix`, in code point order (the
    /// order of SQLite's BINARY collation on UTF-8): the prefix with its last character
    /// moved one on. Nil when there is none (every character is the last one there is).
    static func upperBound(ofPrefix prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var value = last.value + 1
            if value == 0xD800 { value = 0xE000 }  // surrogates are not scalars
            if let next = Unicode.Scalar(value) {
                scalars.append(next)
                var text = ""
                text.unicodeScalars.append(contentsOf: scalars)
                return text
            }
        }
        return nil
    }
}

extension TaskStore {
    /// The shortest prefix of `id` that starts no other task's id, and at least
    /// `ShortID.minimumLength` characters long (or the whole id, when it is shorter).
    /// Only the two neighbours of `id` in sorted order can share a longer prefix with it,
    /// so this costs two index lookups.
    public func shortID(for id: String) throws -> String {
        try translatingSQLiteErrors {
            let before = try database.cachedStatement("SELECT id FROM task WHERE id < ? ORDER BY id DESC LIMIT 1")
                .firstRow([.text(id)]) { $0.text(0) }
            let after = try database.cachedStatement("SELECT id FROM task WHERE id > ? ORDER BY id LIMIT 1")
                .firstRow([.text(id)]) { $0.text(0) }
            let shared = [before, after].compactMap { $0 }.map { ShortID.commonPrefixLength(id, $0) }.max() ?? 0
            let length = min(max(shared + 1, ShortID.minimumLength), id.unicodeScalars.count)
            var short = ""
            short.unicodeScalars.append(contentsOf: id.unicodeScalars.prefix(length))
            return short
        }
    }

    /// The id of the task whose id is `text`, or else of the one task whose id starts with
    /// it. Throws `ShortID.LookupError` when there is no such task, or more than one, or
    /// when `text` is shorter than `ShortID.minimumPrefixLength` and not a whole id.
    public func resolveID(_ text: String) throws -> String {
        try translatingSQLiteErrors {
            if try database.integer("SELECT 1 FROM task WHERE id = ?", [.text(text)]) != nil { return text }
            guard text.unicodeScalars.count >= ShortID.minimumPrefixLength else { throw ShortID.LookupError.tooShort(prefix: text) }
            var candidates: [String] = []
            let limit = SQLValue.integer(Int64(ShortID.maxCandidates))
            if let upper = ShortID.upperBound(ofPrefix: text) {
                try database.cachedStatement("SELECT id FROM task WHERE id >= ? AND id < ? ORDER BY id LIMIT ?")
                    .forEachRow([.text(text), .text(upper), limit]) { candidates.append($0.text(0)) }
            } else {
                try database.cachedStatement("SELECT id FROM task WHERE id >= ? ORDER BY id LIMIT ?")
                    .forEachRow([.text(text), limit]) { candidates.append($0.text(0)) }
            }
            switch candidates.count {
            case 0: throw ShortID.LookupError.notFound(prefix: text)
            case 1: return candidates[0]
            default: throw ShortID.LookupError.ambiguous(prefix: text, candidates: candidates)
            }
        }
    }
}
