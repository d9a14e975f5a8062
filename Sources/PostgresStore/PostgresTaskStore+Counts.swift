import PostgreSQL
import TaskModel

/// The net change a writing transaction makes to the kept counts (`task_total`,
/// `project_total`, `tag_total`; PostgresSchema, schema 5), gathered as it writes tasks and
/// added to the counts once, before it commits: one statement per table, however many tasks
/// it wrote. Writers hold `change_counter`, so no other writer's addition can fall between.
struct CountDeltas {
    private var done: [Bool: Int64] = [:]
    private var projects: [String: Int64] = [:]
    /// Of `projects`, the open tasks' (schema 9).
    private var openProjects: [String: Int64] = [:]
    private var tags: [String: Int64] = [:]
    /// Of `tags`, the open tasks' (schema 8).
    private var openTags: [String: Int64] = [:]

    /// A task of these fields came (`sign` 1) or went (-1).
    mutating func add(done: Bool, project: String?, tags: [String], _ sign: Int64) {
        self.done[done, default: 0] += sign
        if let project {
            projects[project, default: 0] += sign
            if !done { openProjects[project, default: 0] += sign }
        }
        for tag in Set(tags) {
            self.tags[tag, default: 0] += sign
            if !done { openTags[tag, default: 0] += sign }
        }
    }

    /// The task of `row` (`done`, `project`, `tags` as text) came or went.
    mutating func add(_ row: PostgresRow, _ sign: Int64) throws {
        add(
            done: try row.bool("done"), project: row.optionalText("project"),
            tags: try row.text("tags").split(separator: TaskRow.separator).map(String.init), sign)
    }

    /// Adds the changes to the counts; a project or tag whose count reaches 0 loses its row.
    func write(to connection: PostgresConnection) throws {
        for (state, change) in done where change != 0 {
            try connection.run("UPDATE task_total SET n = n + $2 WHERE done = $1", [.boolean(state), .integer(change)])
        }
        // A completion changes a project's or a tag's open count alone.
        try Self.write(
            [projects, openProjects], to: connection,
            adding: """
                INSERT INTO project_total (project, n, open)
                SELECT * FROM unnest(string_to_array($1, chr(31)), string_to_array($2, ',')::bigint[], string_to_array($3, ',')::bigint[])
                ON CONFLICT (project) DO UPDATE SET n = project_total.n + excluded.n, open = project_total.open + excluded.open
                """, pruning: "DELETE FROM project_total WHERE n = 0 AND project = ANY(string_to_array($1, chr(31)))")
        try Self.write(
            [tags, openTags], to: connection,
            adding: """
                INSERT INTO tag_total (tag, n, open)
                SELECT * FROM unnest(string_to_array($1, chr(31)), string_to_array($2, ',')::bigint[], string_to_array($3, ',')::bigint[])
                ON CONFLICT (tag) DO UPDATE SET n = tag_total.n + excluded.n, open = tag_total.open + excluded.open
                """, pruning: "DELETE FROM tag_total WHERE n = 0 AND tag = ANY(string_to_array($1, chr(31)))")
    }

    /// `adding` takes the keys that changed in any of `columns` (joined by U+001F), then each
    /// column's changes to them (by commas); `pruning` the keys.
    private static func write(_ columns: [[String: Int64]], to connection: PostgresConnection, adding: String, pruning: String) throws {
        let changed = Array(Set(columns.flatMap { column in column.filter { $0.value != 0 }.keys }))
        guard !changed.isEmpty else { return }
        let keys = TaskRow.list(changed)
        let changes = columns.map { column in PostgresValue.text(changed.map { String(column[$0, default: 0]) }.joined(separator: ",")) }
        try connection.run(adding, [keys] + changes)
        try connection.run(pruning, [keys])
    }
}

/// A count `includeTotal` reads from the kept counts instead of the tasks: a filter of `done`
/// alone (or none), or of one project (with those under it) or one tag, alone or with
/// `done`.
enum KeptCount {
    case totals(done: Bool?)
    case project(String, done: Bool?)
    case tag(String, done: Bool?)

    init?(_ filter: TaskFilter) {
        var rest = filter
        rest.done = nil
        rest.project = nil
        rest.tags = []
        guard rest == TaskFilter() else { return nil }
        switch (filter.done, filter.project, Set(filter.tags).count) {
        case (_, nil, 0): self = .totals(done: filter.done)
        case (let done, let project?, 0): self = .project(project, done: done)
        case (let done, nil, 1): self = .tag(filter.tags[0], done: done)
        default: return nil
        }
    }

    var sql: String {
        switch self {
        case .totals(let done): "SELECT coalesce(sum(n), 0) AS n FROM task_total" + (done == nil ? "" : " WHERE done = $1")
        case .project(_, let done):
            "SELECT coalesce(sum(" + Self.counted(done) + "), 0) AS n FROM project_total WHERE "
                + PostgresFetchPlan.numbered(PostgresFetchPlan.projectCondition("project"), after: 0)
        case .tag(_, let done): "SELECT coalesce(sum(" + Self.counted(done) + "), 0) AS n FROM tag_total WHERE tag = $1"
        }
    }

    /// The column of a kept-count table (`n`, and `open` of it) that counts the tasks in
    /// state `done`, or all of them.
    private static func counted(_ done: Bool?) -> String {
        switch done {
        case nil: "n"
        case true?: "n - open"
        case false?: "open"
        }
    }

    var values: [PostgresValue] {
        switch self {
        case .totals(let done): done.map { [.boolean($0)] } ?? []
        case .project(let project, _): PostgresFetchPlan.projectRange(project)
        case .tag(let tag, _): [.text(tag)]
        }
    }
}

extension PostgresTaskStore {
    /// The kept counts that differ from the tasks, one line each (for `taskline check`).
    static func keptCountProblems(_ connection: PostgresConnection) throws -> [String] {
        try connection.query(
            """
            WITH kept AS (SELECT 'task_total' AS counts, done::text AS key, n FROM task_total
                          UNION ALL SELECT 'project_total', project, n FROM project_total
                          UNION ALL SELECT 'project_total (open)', project, open FROM project_total
                          UNION ALL SELECT 'tag_total', tag, n FROM tag_total
                          UNION ALL SELECT 'tag_total (open)', tag, open FROM tag_total),
                 counted AS (SELECT 'task_total' AS counts, state::text AS key, (SELECT count(*) FROM task WHERE done = state) AS n
                             FROM (VALUES (false), (true)) AS states (state)
                             UNION ALL SELECT 'project_total', project, count(*) FROM task WHERE project IS NOT NULL GROUP BY project
                             UNION ALL SELECT 'project_total (open)', project, count(*) FILTER (WHERE NOT done) FROM task WHERE project IS NOT NULL GROUP BY project
                             UNION ALL SELECT 'tag_total', tag, count(*) FROM task, unnest(tags) AS tag GROUP BY tag
                             UNION ALL SELECT 'tag_total (open)', tag, count(*) FILTER (WHERE NOT done) FROM task, unnest(tags) AS tag GROUP BY tag)
            SELECT counts, key, kept.n AS kept_n, counted.n AS counted_n
            FROM kept FULL JOIN counted USING (counts, key)
            WHERE kept.n IS DISTINCT FROM counted.n
            ORDER BY counts, key
            """
        ).map { row in
            "\(try row.text("counts"))'s count of \(try row.text("key")) is \(try row.optionalInt64("kept_n").map(String.init) ?? "missing"); its tasks are \(try row.optionalInt64("counted_n") ?? 0)"
        }
    }

    /// The tasks whose `blocked_by` (schema 7) differs from their dependencies that are not
    /// done, one line each (for `taskline check`).
    static func blockedByProblems(_ connection: PostgresConnection) throws -> [String] {
        try connection.query(
            """
            SELECT id, blocked_by, counted FROM (
                SELECT id, blocked_by, (SELECT count(*) FROM task AS dependency WHERE dependency.id = ANY(task.depends_on) AND NOT dependency.done) AS counted
                FROM task WHERE blocked_by <> 0 OR depends_on <> '{}'
            ) AS tasks
            WHERE blocked_by <> counted ORDER BY id
            """
        ).map { row in
            "task \(try row.text("id")): blocked_by is \(try row.int64("blocked_by")); \(try row.int64("counted")) of its dependencies are not done"
        }
    }
}
