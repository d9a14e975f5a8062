import SQLite

/// How many tasks have each tag and project, for `taskline tags` and `projects`: for every
/// task, the kept counts (`project_total`, which holds no project with none) or the tag
/// index alone; for the open ones, a pass over their rows.
extension TaskStore {
    public func tagCounts(all: Bool) throws -> [String: Int] {
        try counts(all ? "SELECT tag, count(*) FROM task_tag GROUP BY tag"
                       : "SELECT tag, count(*) FROM task_tag JOIN task ON task.pk = task_tag.task_pk WHERE task.done = 0 GROUP BY tag")
    }

    public func projectCounts(all: Bool) throws -> [String: Int] {
        try counts(all ? "SELECT project, count FROM project_total"
                       : "SELECT project, count(*) FROM task WHERE done = 0 AND project IS NOT NULL GROUP BY project")
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
