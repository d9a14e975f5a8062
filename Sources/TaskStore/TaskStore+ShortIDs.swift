import SQLite

/// Short ids (see `ShortID`) on SQLite.
extension ShortID {
    /// `key(of: id)` in SQL, for the queries that look for keys: the same rule, checked
    /// against `key(of:)` by a test. GLOB's `?` is one character, as `key(of:)` counts.
    static let keySQL = "CASE WHEN id GLOB '????????-????-7???-????-????????????' THEN substr(id, 25) ELSE id END"
}

/// Short ids and its history for the command line, where the commands for people use the store.
extension TaskStore: CommandLineStoring {
    /// The short id of the task `id`. Finding the keys that start as its does is a pass over
    /// every id, so it costs in proportion to the number of tasks.
    public func shortID(for id: String) throws -> String {
        try translatingSQLiteErrors {
            try ShortID.shortID(for: id) { head in
                var ids: [String] = []
                try database.cachedStatement("SELECT id FROM task WHERE substr(\(ShortID.keySQL), 1, ?) = ?")
                    .forEachRow([.integer(Int64(ShortID.minimumLength)), .text(head)]) { ids.append($0.text(0)) }
                return ids
            }
        }
    }

    /// What it takes to give every task its short id: the ids whose keys share their first
    /// `ShortID.minimumLength` characters with another's, found by grouping every key: it
    /// costs more than a pass over every id, and seconds at a million tasks.
    public func shortIDs() throws -> ShortIDs {
        try translatingSQLiteErrors {
            var ids: [String] = []
            try database.cachedStatement("""
                SELECT id FROM task WHERE substr(\(ShortID.keySQL), 1, ?1)
                    IN (SELECT substr(\(ShortID.keySQL), 1, ?1) FROM task GROUP BY 1 HAVING count(*) > 1)
                """).forEachRow([.integer(Int64(ShortID.minimumLength))]) { ids.append($0.text(0)) }
            return ShortIDs(crowdedIDs: ids)
        }
    }

    /// The id of the task whose id is `text`, or else of the one task whose key starts with
    /// it. Throws `ShortID.LookupError` when there is no such task, or more than one, or
    /// when `text` is shorter than `ShortID.minimumPrefixLength` and not a whole id.
    public func resolveID(_ text: String) throws -> String {
        try translatingSQLiteErrors {
            try ShortID.resolve(text, isID: { try database.integer("SELECT 1 FROM task WHERE id = ?", [.text(text)]) != nil }) {
                var candidates: [String] = []
                try database.cachedStatement("SELECT id FROM task WHERE substr(\(ShortID.keySQL), 1, ?) = ? ORDER BY id LIMIT ?")
                    .forEachRow([.integer(Int64(text.unicodeScalars.count)), .text(text), .integer(Int64(ShortID.maxCandidates))]) {
                        candidates.append($0.text(0))
                    }
                return candidates
            }
        }
    }
}
