import SQLite
import TaskModel

/// Short ids (see `ShortID`) on SQLite.
extension ShortID {
    static let isVersion7SQL = "id GLOB '????????-????-7???-????-????????????'"
    /// `key(of: id)` in SQL: the same rule, checked against `key(of:)` by a test. GLOB's `?`
    /// is one character, as `key(of:)` counts.
    static let keySQL = "CASE WHEN \(isVersion7SQL) THEN substr(id, 25) ELSE id END"

    /// `condition` of the key's first `?1` characters, as `condition("substr(\(keySQL), 1, ?1)")`
    /// is, but a pass over every id with it reads an id's shape only where the characters
    /// match: about half the cost of computing every key.
    static func keyStartSQL(_ condition: (String) -> String) -> String {
        "(\(condition("substr(id, 25, ?1)")) AND \(isVersion7SQL) OR \(condition("substr(id, 1, ?1)")) AND NOT \(isVersion7SQL))"
    }
}

/// Short ids and its history for the command line, where the commands for people use the store.
extension TaskStore: CommandLineStoring {
    /// A pass over every id; past `ShortIDs.mostHeads` heads, a grouping of every key, which
    /// costs more: seconds at a million tasks.
    public func shortIDs(for ids: some Sequence<String>) throws -> ShortIDs {
        try translatingSQLiteErrors {
            var crowded: [String] = []
            let collect: (Row) -> Void = { crowded.append($0.text(0)) }
            let length = SQLValue.integer(Int64(ShortID.minimumLength))
            if let heads = ShortIDs.heads(of: ids) {
                guard !heads.isEmpty else { return ShortIDs(crowdedIDs: []) }
                let list = heads.indices.map { "?\($0 + 2)" }.joined(separator: ", ")
                let keyStart = ShortID.keyStartSQL { "\($0) IN (\(list))" }
                try database.cachedStatement("SELECT id FROM task WHERE \(keyStart)")
                    .forEachRow([length] + heads.map { .text($0) }, collect)
            } else {
                let keyHead = "substr(\(ShortID.keySQL), 1, ?1)"
                try database.cachedStatement("SELECT id FROM task WHERE \(keyHead) IN (SELECT \(keyHead) FROM task GROUP BY 1 HAVING count(*) > 1)")
                    .forEachRow([length], collect)
            }
            return ShortIDs(crowdedIDs: crowded)
        }
    }

    /// The id of the task whose id is `text`, or else of the one task whose key starts with
    /// it. Throws `ShortID.LookupError` when there is no such task, or more than one, or
    /// when `text` is shorter than `ShortID.minimumPrefixLength` and not a whole id.
    public func resolveID(_ text: String) throws -> String {
        try translatingSQLiteErrors {
            try ShortID.resolve(text, isID: { try database.integer("SELECT 1 FROM task WHERE id = ?", [.text(text)]) != nil }) {
                var candidates: [String] = []
                try database.cachedStatement("SELECT id FROM task WHERE \(ShortID.keyStartSQL { "\($0) = ?2" }) ORDER BY id LIMIT ?3")
                    .forEachRow([.integer(Int64(text.unicodeScalars.count)), .text(text), .integer(Int64(ShortID.maxCandidates))]) {
                        candidates.append($0.text(0))
                    }
                return candidates
            }
        }
    }
}
