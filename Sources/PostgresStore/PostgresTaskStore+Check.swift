import PostgreSQL
import TaskModel

/// `taskline check` on PostgreSQL.
extension PostgresTaskStore {
    /// Checks the database without writing to it, from one read-only snapshot: the schema
    /// version, every task against the task rules (and its derived columns against its
    /// fields), its dependencies (on tasks that exist, in no cycle), the change log's
    /// numbering, and counts. SQLite's check of its file has no counterpart here: the
    /// server keeps its own files (see docs/postgresql.md).
    ///
    /// Throws `StoreOpenError` when the database cannot be used at all (unreachable, without
    /// Taskline's tables, a newer schema). Damage found past that point is reported, not thrown.
    public static func check(connectionString: String, maxListed: Int = 20) throws -> StoreCheckReport {
        let name = redactPasswords(in: connectionString)
        var report = StoreCheckReport(path: name, supportedSchemaVersion: PostgresSchema.version)
        report.integrityNotChecked = "PostgreSQL has no counterpart of SQLite's; see docs/postgresql.md"
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(connectionString)
        } catch let error as PostgresError {
            throw StoreOpenError.cannotOpen(path: name, detail: error.description)
        }
        do {
            try connection.transaction(.repeatableRead) {
                try connection.execute("SET TRANSACTION READ ONLY")
                let prunedThrough = try openSchema(connection, name: name, into: &report)
                try check(connection, prunedThrough: prunedThrough, into: &report, maxListed: maxListed)
            }
        } catch let error as PostgresError {
            report.rule("checking failed: \(error)", maxListed: maxListed)
        }
        return report
    }

    /// Reads the schema version into `report`, and returns how far the change log was pruned.
    private static func openSchema(_ connection: PostgresConnection, name: String, into report: inout StoreCheckReport) throws -> Int64 {
        let rows: PostgresRows
        do {
            rows = try connection.query("SELECT version, pruned_through FROM taskline_schema")
        } catch let error as PostgresError where error.sqlstate == .undefinedTable {
            throw StoreOpenError.cannotOpen(path: name, detail: "it holds no Taskline tables (in its search_path)")
        }
        guard rows.count == 1 else {
            throw StoreOpenError.unexpectedObjects(path: name, objects: ["taskline_schema has \(rows.count) rows, not 1"])
        }
        report.schemaVersion = try rows[0].int("version")
        guard report.schemaVersion <= PostgresSchema.version else {
            throw StoreOpenError.newerSchema(path: name, version: report.schemaVersion, supported: PostgresSchema.version)
        }
        return try rows[0].int64("pruned_through")
    }

    private static func check(
        _ connection: PostgresConnection, prunedThrough: Int64, into report: inout StoreCheckReport,
        maxListed: Int
    ) throws {
        func rule(_ problem: String) { report.rule(problem, maxListed: maxListed) }
        var counts = StoreCheckReport.Counts()
        let totals = try connection.query(
            """
            SELECT count(*) AS tasks, count(*) FILTER (WHERE done) AS done, coalesce(sum(cardinality(tags)), 0) AS taggings,
                   (SELECT count(DISTINCT tag) FROM task, unnest(tags) AS tag) AS distinct_tags,
                   (SELECT count(*) FROM change_log) AS changes, (SELECT min(seq) FROM change_log) AS oldest,
                   (SELECT max(seq) FROM change_log) AS newest_logged, (SELECT seq FROM change_counter) AS newest
            FROM task
            """)[0]
        counts.tasks = try totals.int("tasks")
        counts.doneTasks = try totals.int("done")
        counts.taggings = try totals.int("taggings")
        counts.distinctTags = try totals.int("distinct_tags")
        counts.changes = try totals.int("changes")
        counts.newestSeq = try totals.optionalInt64("newest") ?? 0
        report.counts = counts
        let problems = StoreCheckReport.seqProblems(
            prunedThrough: prunedThrough, prunedThroughName: "taskline_schema's pruned_through",
            oldest: try totals.optionalInt64("oldest"), newest: counts.newestSeq)
        for problem in problems { rule(problem) }
        if let logged = try totals.optionalInt64("newest_logged"), logged > counts.newestSeq {
            rule("the change log holds seq \(logged), beyond the newest handed out (\(counts.newestSeq))")
        }

        try connection.execute(
            """
            DECLARE checked NO SCROLL CURSOR FOR
            SELECT \(TaskRow.columns), task.title_fold, task.notes_fold, task.due_at, task.wait_at, task.remind_at
            FROM task ORDER BY created_at, id
            """)
        while true {
            let rows = try connection.query("FETCH 500 FROM checked")
            for row in rows {
                let task = try TaskRow.task(in: row)
                let derived = DerivedColumns(
                    titleFold: try row.text("title_fold"), notesFold: try row.text("notes_fold"), dueAt: try row.optionalInt64("due_at"),
                    waitAt: try row.optionalInt64("wait_at"), remindAt: try row.optionalInt64("remind_at"),
                    storedAnnotations: try row.text("annotations"))
                for problem in try CheckedTask.problems(of: task, derived: derived) { rule(problem) }
            }
            if rows.count < 500 { break }
        }

        if report.schemaVersion >= 5 {
            for problem in try keptCountProblems(connection) { rule(problem) }
        }
        if report.schemaVersion >= 7 {
            for problem in try blockedByProblems(connection) { rule(problem) }
        }

        for id in try tasksWhoseMetaIsNotAnObject(connection) { rule("task \(id): meta is not a JSON object") }

        // What SQLite's foreign keys hold: a dependency is on a task that exists.
        for row in try connection.query(
            """
            SELECT task.id, dependency FROM task, unnest(task.depends_on) AS dependency
            WHERE NOT EXISTS (SELECT 1 FROM task AS other WHERE other.id = dependency) ORDER BY task.id, dependency
            """)
        {
            report.foreignKeyProblems.append("task \(try row.text("id")) depends on \(try row.text("dependency")), which no task has")
        }
        // Tasks that depend on themselves, directly or through others: found on the edges in
        // memory, in linear time (a recursive query's reachable pairs grow with the square).
        for id in DependencyGraph.tasksOnCycles(try dependencyEdges(connection)).map(\.text).sorted(by: TaskRules.codePointOrder) {
            rule("task \(id): its dependencies lead back to it (a dependency cycle)")
        }
    }

    /// Every dependency: a task's id, and the id of one it depends on.
    static func dependencyEdges(_ connection: PostgresConnection) throws -> [(task: ExactID, dependsOn: ExactID)] {
        try connection.query("SELECT task.id, dependency FROM task, unnest(task.depends_on) AS dependency").map { row in
            (task: ExactID(try row.text("id")), dependsOn: ExactID(try row.text("dependency")))
        }
    }

    /// The ids of the tasks whose meta is not a JSON object. PostgreSQL 15 cannot test text
    /// for JSON without failing the query: one query finds them when every meta is JSON,
    /// and only when some is not does each task get a query (and a savepoint) of its own.
    private static func tasksWhoseMetaIsNotAnObject(_ connection: PostgresConnection) throws -> [String] {
        let notJSON = SQLState(rawValue: "22P02")
        /// `body` in a savepoint: false when it failed because some meta is not JSON.
        func parsing(_ body: () throws -> Void) throws -> Bool {
            try connection.execute("SAVEPOINT meta")
            do {
                try body()
            } catch let error as PostgresError where error.sqlstate == notJSON {
                try connection.execute("ROLLBACK TO SAVEPOINT meta; RELEASE SAVEPOINT meta")
                return false
            }
            try connection.execute("RELEASE SAVEPOINT meta")
            return true
        }
        var ids: [String] = []
        let allJSON = try parsing {
            ids = try connection.query("SELECT id FROM task WHERE jsonb_typeof(meta::jsonb) <> 'object' ORDER BY created_at, id")
                .map { try $0.text("id") }
        }
        guard !allJSON else { return ids }
        for id in try connection.query("SELECT id FROM task ORDER BY created_at, id").map({ try $0.text("id") }) {
            var isObject = false
            let isJSON = try parsing {
                isObject = try connection.query("SELECT jsonb_typeof(meta::jsonb) = 'object' AS object FROM task WHERE id = $1", [.text(id)])[0].bool(
                    "object")
            }
            if !isJSON || !isObject { ids.append(id) }
        }
        return ids
    }
}
