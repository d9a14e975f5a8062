/// The rules every stored task keeps, with the limits the protocol documents.
/// "Characters" are Unicode scalars: what every client language can count the same way.
public enum TaskRules {
    public static let maxIDLength = 128
    public static let maxTitleLength = 1024
    public static let maxNotesLength = 65_536
    public static let maxTags = 64
    public static let maxTagLength = 64
    public static let priorities = 0...3
    public static let maxProjectLength = 256
    public static let maxProjectSegments = 8
    public static let maxProjectSegmentLength = 64
    public static let maxDependencies = 64
    /// In UTF-8 bytes of the object's compact JSON text.
    public static let maxMetaSize = 65_536
    /// A task's `version` and the change log's `seq` stay at most 2^53 − 1, the largest
    /// integer every client reads exactly (JSON numbers are doubles in many languages).
    public static let maxCounter: Int64 = 9_007_199_254_740_991
    package static let versions: ClosedRange<Int64> = 1...maxCounter
    package static let seqs: ClosedRange<Int64> = 1...maxCounter

    /// `seq`, the seq a write logs, refused when it is out of range: the log's stored
    /// numbering, which only another program can have carried there (past 2^53 − 1 clients
    /// cannot pass it back as `since`).
    package static func loggedSeq(_ seq: Int64) throws -> Int64 {
        guard seqs.contains(seq) else {
            throw TaskStoreError.outOfRange(
                """
                the change log's newest seq is \(seq), outside 1 to \(seqs.upperBound): \
                its stored data is out of range (see taskline check)
                """)
        }
        return seq
    }

    /// `through`, the newest seq pruning removed as stored (`name` names where), refused when
    /// no seq can be it.
    package static func prunedThrough(_ through: Int64, storedAs name: String) throws -> Int64 {
        guard through == 0 || seqs.contains(through) else {
            throw TaskStoreError.outOfRange(
                "\(name) is \(through), outside 0 to \(seqs.upperBound): its stored data is out of range (see taskline check)")
        }
        return through
    }
    /// The times a task carries: years 0000 to 9999, the ones RFC 3339 can write (and an
    /// import can read back).
    package static let timestamps: ClosedRange<Int64> = Timestamp.parse("0000-01-01")!...Timestamp.parse("9999-12-31T23:59:59.999Z")!

    package static func validateID(_ id: String, field: String = "id") throws {
        let facts = ScalarFacts(id)
        guard (1...maxIDLength).contains(facts.count) else {
            throw TaskStoreError.invalid(field: field, reason: "must be 1 to \(maxIDLength) characters")
        }
        guard !facts.hasControl else {
            throw TaskStoreError.invalid(field: field, reason: "must not contain control characters")
        }
    }

    package static func validateTitle(_ title: String, field: String) throws {
        let facts = ScalarFacts(title)
        guard facts.count <= maxTitleLength else {
            throw TaskStoreError.invalid(field: field, reason: "must be at most \(maxTitleLength) characters")
        }
        guard facts.hasOtherThanWhiteSpace else {
            throw TaskStoreError.invalid(field: field, reason: "must contain a character that is not white space")
        }
        guard !facts.hasControl else {
            throw TaskStoreError.invalid(field: field, reason: "must not contain control characters")
        }
    }

    package static func validateNotes(_ notes: String, field: String) throws {
        guard notes.utf8.count <= maxNotesLength || notes.unicodeScalars.count <= maxNotesLength else {
            throw TaskStoreError.invalid(field: field, reason: "must be at most \(maxNotesLength) characters")
        }
        try refuseNUL(notes, field: field)
    }

    /// A text filter: at most `TaskFilter.maxTextLength` characters, no U+0000.
    package static func validateFilterText(_ text: String, field: String) throws {
        guard text.unicodeScalars.count <= TaskFilter.maxTextLength else {
            throw TaskStoreError.invalid(field: field, reason: "must be at most \(TaskFilter.maxTextLength) characters")
        }
        try refuseNUL(text, field: field)
    }

    /// PostgreSQL's text cannot hold U+0000, so no store keeps one in notes or searches for
    /// one: the protocol has one answer on both. (Ids, titles, tags and projects refuse
    /// every control character.)
    private static func refuseNUL(_ text: String, field: String) throws {
        guard !text.utf8.contains(0) else {
            throw TaskStoreError.invalid(field: field, reason: "must not contain U+0000")
        }
    }

    package static func validatePriority(_ priority: Int, field: String) throws {
        guard priorities.contains(priority) else {
            throw TaskStoreError.invalid(field: field, reason: "must be 0 (none), 1 (low), 2 (medium) or 3 (high)")
        }
    }

    /// Checks each tag and returns the set, sorted by code point.
    package static func normalizeTags(_ tags: [String], field: String) throws -> [String] {
        try validateTags(tags, field: field)
        return codePointSet(tags)
    }

    /// At most `maxTags` as sent, duplicates counted: the limit is on the request, so that
    /// a schema can check it. The same for a task's tags and a filter's.
    package static func validateTags(_ tags: [String], field: String) throws {
        guard tags.count <= maxTags else {
            throw TaskStoreError.invalid(field: field, reason: "must have at most \(maxTags) tags")
        }
        for (index, tag) in tags.enumerated() {
            try validateTag(tag, field: "\(field)[\(index)]")
        }
    }

    package static func validateTag(_ tag: String, field: String) throws {
        let facts = ScalarFacts(tag)
        guard (1...maxTagLength).contains(facts.count) else {
            throw TaskStoreError.invalid(field: field, reason: "a tag must be 1 to \(maxTagLength) characters")
        }
        guard !facts.hasControl && !facts.hasWhiteSpace else {
            throw TaskStoreError.invalid(field: field, reason: "a tag must not contain white space or control characters")
        }
    }

    /// A dot-separated path of 1 to `maxProjectSegments` segments, each 1 to
    /// `maxProjectSegmentLength` characters without white space, control characters or dots.
    package static func validateProject(_ project: String, field: String) throws {
        let facts = ScalarFacts(project)
        guard facts.count <= maxProjectLength else {
            throw TaskStoreError.invalid(field: field, reason: "must be at most \(maxProjectLength) characters")
        }
        // Each segment's length in scalars, and whether it has white space or a control
        // character: over the bytes when every scalar is ASCII (a dot is one of each).
        let excluded = { (scalar: Unicode.Scalar) in isControl(scalar) || isWhiteSpace(scalar) }
        let segments =
            facts.isASCII
            ? project.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
                .map { (length: $0.count, excluded: $0.contains { excluded(Unicode.Scalar($0)) }) }
            : project.unicodeScalars.split(separator: ".", omittingEmptySubsequences: false)
                .map { (length: $0.count, excluded: $0.contains(where: excluded)) }
        guard segments.count <= maxProjectSegments else {
            throw TaskStoreError.invalid(field: field, reason: "must have at most \(maxProjectSegments) dot-separated segments")
        }
        for segment in segments {
            guard (1...maxProjectSegmentLength).contains(segment.length) else {
                throw TaskStoreError.invalid(field: field, reason: "each dot-separated segment must be 1 to \(maxProjectSegmentLength) characters")
            }
            guard !segment.excluded else {
                throw TaskStoreError.invalid(field: field, reason: "must not contain white space or control characters")
            }
        }
    }

    /// Checks each id and returns the set, sorted by code point.
    package static func normalizeDependencies(_ ids: [String], field: String) throws -> [String] {
        guard ids.count <= maxDependencies else {
            throw TaskStoreError.invalid(field: field, reason: "must have at most \(maxDependencies) ids")
        }
        for (index, id) in ids.enumerated() {
            try validateID(id, field: "\(field)[\(index)]")
        }
        return codePointSet(ids)
    }

    package static func validateMeta(_ meta: String, field: String) throws {
        guard meta.utf8.count <= maxMetaSize else {
            throw TaskStoreError.invalid(field: field, reason: "must be at most \(maxMetaSize) bytes as compact JSON")
        }
    }

    package static func validateVersion(_ version: Int64, field: String) throws {
        guard version >= versions.lowerBound else { throw TaskStoreError.invalid(field: field, reason: "must be 1 or more") }
        guard version <= versions.upperBound else {
            throw TaskStoreError.invalid(field: field, reason: "must be at most \(versions.upperBound) (2^53 − 1)")
        }
    }

    package static func validateTimestamp(_ milliseconds: Int64?, field: String) throws {
        guard let milliseconds, !timestamps.contains(milliseconds) else { return }
        throw TaskStoreError.invalid(field: field, reason: "must be a time in the years 0000 to 9999")
    }

    /// Returns a due date's or wait time's sort key in milliseconds.
    package static func dueMilliseconds(_ due: String, field: String) throws -> Int64 {
        guard let milliseconds = Timestamp.parse(due) else {
            throw TaskStoreError.invalid(field: field, reason: "must be an RFC 3339 date-time with an offset, or a date (YYYY-MM-DD)")
        }
        return milliseconds
    }

    /// The form titles and notes are compared in for sorting and the text filter.
    package static func folded(_ text: String) -> String {
        text.lowercased()
    }

    /// White space, as protocol/task.md §4 lists it: Unicode's White_Space property
    /// (Unicode 16) and U+FEFF, which ECMA-262 counts as white space too. A fixed list, so
    /// that it does not move with the Unicode version of whoever checks it.
    package static let whiteSpace: [ClosedRange<UInt32>] = [
        0x09...0x0D, 0x20...0x20, 0x85...0x85, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
        0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF,
    ]

    public static func isWhiteSpace(_ scalar: Unicode.Scalar) -> Bool {
        whiteSpace.contains { $0.contains(scalar.value) }
    }

    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// What the checks ask of a text's scalars, found in one pass: over its bytes when
    /// they are all ASCII (each one scalar), the common case, else over its scalars.
    struct ScalarFacts {
        var count = 0
        var isASCII = true
        var hasControl = false
        var hasWhiteSpace = false
        var hasOtherThanWhiteSpace = false

        init(_ text: String) {
            var text = text
            var facts = self
            let ascii = text.withUTF8 { bytes in
                for byte in bytes {
                    guard byte < 0x80 else { return false }
                    // isControl and isWhiteSpace, for the ASCII scalars.
                    if byte < 0x20 || byte == 0x7F { facts.hasControl = true }
                    if byte == 0x20 || (0x09...0x0D).contains(byte) { facts.hasWhiteSpace = true } else { facts.hasOtherThanWhiteSpace = true }
                }
                facts.count = bytes.count
                return true
            }
            if ascii {
                self = facts
            } else {
                isASCII = false
                for scalar in text.unicodeScalars {
                    count += 1
                    if TaskRules.isControl(scalar) { hasControl = true }
                    if TaskRules.isWhiteSpace(scalar) { hasWhiteSpace = true } else { hasOtherThanWhiteSpace = true }
                }
            }
        }
    }

    /// `strings` without duplicates, sorted by code point. Compared by code point, as the
    /// stores compare them: Swift's `==` would take two canonically equivalent texts for one.
    package static func codePointSet(_ strings: [String]) -> [String] {
        var set: [String] = []
        for string in strings.sorted(by: codePointOrder) where !(set.last.map { $0.utf8.elementsEqual(string.utf8) } ?? false) {
            set.append(string)
        }
        return set
    }

    package static func codePointOrder(_ a: String, _ b: String) -> Bool {
        a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
    }
}
