import PostgreSQL
import TaskModel

/// How many tasks (or open tasks) have each tag and project, as on SQLite: the kept counts
/// (`tag_total`, `project_total`, which hold no name with none).
extension PostgresTaskStore {
    public func tagCounts(all: Bool) throws -> [String: Int] {
        try counts(all ? "SELECT tag AS name, n FROM tag_total" : "SELECT tag AS name, open AS n FROM tag_total WHERE open > 0")
    }

    public func projectCounts(all: Bool) throws -> [String: Int] {
        try counts(all ? "SELECT project AS name, n FROM project_total" : "SELECT project AS name, open AS n FROM project_total WHERE open > 0")
    }

    /// The names and counts `sql` gives, in columns `name` and `n`.
    private func counts(_ sql: String) throws -> [String: Int] {
        try translatingErrors {
            var counts: [String: Int] = [:]
            for row in try connection.query(sql) { counts[try row.text("name")] = try row.int("n") }
            return counts
        }
    }
}
