import PostgreSQL
import TaskModel

/// Short ids (see `ShortID`) on PostgreSQL: the same answers as on SQLite, each found by a
/// pass over every id.
extension PostgresTaskStore {
    /// `ShortID.key(of:)` in SQL, as SQLite's `ShortID.keySQL` is: LIKE's `_` is one
    /// character, as `key(of:)` counts, and `substr` counts characters.
    static let keySQL = "CASE WHEN id LIKE '________-____-7___-____-____________' THEN substr(id, 25) ELSE id END"

    public func shortID(for id: String) throws -> String {
        try translatingErrors {
            try ShortID.shortID(for: id) { head in
                try connection.query("SELECT id FROM task WHERE substr(\(Self.keySQL), 1, $1::integer) = $2",
                                     [PostgresValue(ShortID.minimumLength), .text(head)]).map { try $0.text("id") }
            }
        }
    }

    public func shortIDs() throws -> ShortIDs {
        try translatingErrors {
            let ids = try connection.query("""
                SELECT id FROM task WHERE substr(\(Self.keySQL), 1, $1::integer)
                    IN (SELECT substr(\(Self.keySQL), 1, $1::integer) FROM task GROUP BY 1 HAVING count(*) > 1)
                """, [PostgresValue(ShortID.minimumLength)]).map { try $0.text("id") }
            return ShortIDs(crowdedIDs: ids)
        }
    }

    public func resolveID(_ text: String) throws -> String {
        try translatingErrors {
            try ShortID.resolve(text, isID: { try !connection.query("SELECT 1 FROM task WHERE id = $1", [.text(text)]).isEmpty }) {
                try connection.query("SELECT id FROM task WHERE substr(\(Self.keySQL), 1, $1::integer) = $2 ORDER BY id LIMIT $3",
                                     [PostgresValue(text.unicodeScalars.count), .text(text), PostgresValue(ShortID.maxCandidates)])
                    .map { try $0.text("id") }
            }
        }
    }
}
