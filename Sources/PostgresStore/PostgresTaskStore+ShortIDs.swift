import PostgreSQL
import TaskModel

/// Short ids (see `ShortID`) on PostgreSQL: the same answers as on SQLite, found the same
/// way.
extension PostgresTaskStore {
    static let isVersion7SQL = "id LIKE '________-____-7___-____-____________'"
    /// `ShortID.key(of:)` in SQL, as SQLite's `ShortID.keySQL` is: LIKE's `_` is one
    /// character, as `key(of:)` counts, and `substr` counts characters.
    static let keySQL = "CASE WHEN \(isVersion7SQL) THEN substr(id, 25) ELSE id END"

    /// `condition` of the key's first `$1` characters, without computing every key: SQLite's
    /// `ShortID.keyStartSQL`.
    static func keyStartSQL(_ condition: (String) -> String) -> String {
        "(\(condition("substr(id, 25, $1::integer)")) AND \(isVersion7SQL) OR \(condition("substr(id, 1, $1::integer)")) AND NOT \(isVersion7SQL))"
    }

    public func shortIDs(for ids: some Sequence<String>) throws -> ShortIDs {
        try translatingErrors {
            let length = PostgresValue(ShortID.minimumLength)
            let rows: PostgresRows
            if let heads = ShortIDs.heads(of: ids) {
                guard !heads.isEmpty else { return ShortIDs(crowdedIDs: []) }
                let list = heads.indices.map { "$\($0 + 2)" }.joined(separator: ", ")
                let keyStart = Self.keyStartSQL { "\($0) IN (\(list))" }
                rows = try connection.query(
                    "SELECT id FROM task WHERE \(keyStart)",
                    [length] + heads.map { .text($0) })
            } else {
                let keyHead = "substr(\(Self.keySQL), 1, $1::integer)"
                rows = try connection.query(
                    "SELECT id FROM task WHERE \(keyHead) IN (SELECT \(keyHead) FROM task GROUP BY 1 HAVING count(*) > 1)", [length])
            }
            return ShortIDs(crowdedIDs: try rows.map { try $0.text("id") })
        }
    }

    public func resolveID(_ text: String) throws -> String {
        try translatingErrors {
            try ShortID.resolve(text, isID: { try !connection.query("SELECT 1 FROM task WHERE id = $1", [.text(text)]).isEmpty }) {
                try connection.query(
                    "SELECT id FROM task WHERE \(Self.keyStartSQL { "\($0) = $2" }) ORDER BY id LIMIT $3",
                    [PostgresValue(text.unicodeScalars.count), .text(text), PostgresValue(ShortID.maxCandidates)]
                )
                .map { try $0.text("id") }
            }
        }
    }
}
