import SQLite

/// How many tasks (or open tasks) have each tag and project, for `taskline tags` and
/// `projects`: the kept counts (`tag_total`, whose counts of 0 are passed over, and
/// `project_total`, which holds no project with none).
extension TaskStore {
    public func tagCounts(all: Bool) throws -> [String: Int] {
        try counts(all ? "SELECT tag, count FROM tag_total WHERE count > 0" : "SELECT tag, open FROM tag_total WHERE open > 0")
    }

    public func projectCounts(all: Bool) throws -> [String: Int] {
        try counts(all ? "SELECT project, count FROM project_total" : "SELECT project, open FROM project_total WHERE open > 0")
    }

    /// The names and counts `sql` gives, each row a name and its count.
    private func counts(_ sql: String) throws -> [String: Int] {
        try translatingSQLiteErrors {
            var counts: [String: Int] = [:]
            try database.cachedStatement(sql).forEachRow { counts[$0.text(0)] = $0.int(1) }
            return counts
        }
    }
}
