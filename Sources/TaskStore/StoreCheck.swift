import Glibc
import SQLite
import TaskModel

extension TaskStore {
    /// Checks the database at `path` without writing to it: the schema objects against those
    /// Taskline made, SQLite's integrity and foreign key checks, the schema version, every
    /// task against the task rules (and its derived columns against its fields), the change
    /// log's numbering, and counts.
    ///
    /// Throws `StoreOpenError` when the file cannot be used at all (missing, not SQLite,
    /// another application's, a newer schema): what makes the server exit with code 3.
    /// Damage found past that point is reported, not thrown.
    public static func check(path: String, maxListed: Int = 20) throws -> StoreCheckReport {
        let database = try StoreFile.openReadable(path: path, mode: .readOnly, busyTimeoutMilliseconds: 5000)
        var report = StoreCheckReport(path: path, supportedSchemaVersion: Schema.migrator.latestVersion)
        report.unexpectedObjects = try StoreFile.inspect(database, path: path).unexpectedObjects
        // SQLite's integrity check reads every page on one core and is most of a check's
        // time: it runs on a connection and a thread of its own, beside the passes below.
        let integrity = OnItsOwnThread { integrityProblems(path: path) }
        /// The report, the integrity check's findings first, once that check has ended.
        func finished() -> StoreCheckReport {
            report.integrityProblems = integrity.value() + report.integrityProblems
            return report
        }
        /// A check that fails (SQLite may give up on a damaged file) is itself a problem found.
        func attempt(
            _ what: String, into problems: WritableKeyPath<StoreCheckReport, [String]> = \.integrityProblems,
            _ body: () throws -> Void
        ) {
            do {
                try body()
            } catch {
                report[keyPath: problems].append("\(what) failed: \((error as? SQLiteError)?.message ?? "\(error)")")
            }
        }
        attempt("reading the schema version") {
            report.schemaVersion = try database.userVersion()
        }
        // From schema 10 the taggings' pass below reads every tagging with its task, and
        // finds those whose task is missing in the same pass: task_tag's foreign key is not
        // checked twice (two million lookups at a million tasks).
        let taggingsPass = report.schemaVersion >= 10
        attempt("PRAGMA foreign_key_check", into: \.foreignKeyProblems) {
            try database.cachedStatement(
                """
                SELECT fk.* FROM sqlite_schema AS s, pragma_foreign_key_check(s.name) AS fk
                WHERE s.type = 'table' AND s.name IS NOT ? ORDER BY s.name
                """
            ).forEachRow([taggingsPass ? .text("task_tag") : .null]) { row in
                let rowid = row.isNull(1) ? "" : " \(row.int64(1))"
                report.foreignKeyProblems.append("a row\(rowid) of \(row.text(0)) refers to a missing row of \(row.text(2))")
            }
        }
        guard report.schemaVersion > 0 else { return finished() }  // a new file: no tables yet

        func rule(_ problem: String) { report.rule(problem, maxListed: maxListed) }
        attempt("counting") {
            let counts = try counts(database, schemaVersion: report.schemaVersion)
            report.counts = counts
            if report.schemaVersion >= 12 {
                let problems = StoreCheckReport.seqProblems(
                    prunedThrough: try Schema.storedPrunedThrough(in: database), prunedThroughName: "meta's \(Schema.prunedThroughKey)",
                    oldest: try database.integer("SELECT min(seq) FROM change"), newest: counts.newestSeq)
                for problem in problems { rule(problem) }
            } else {
                let newest = try Schema.newestSeq(in: database)
                if newest > counts.newestSeq {
                    rule("the change log holds seq \(newest), beyond the newest handed out (\(counts.newestSeq))")
                }
            }
            if report.schemaVersion >= 9 {
                let open = try database.integer("SELECT count FROM task_total WHERE done = 0")
                let done = try database.integer("SELECT count FROM task_total WHERE done = 1")
                if open != Int64(counts.tasks - counts.doneTasks) || done != Int64(counts.doneTasks) {
                    rule(
                        "task_total says \(open ?? 0) open and \(done ?? 0) done; the tasks are \(counts.tasks - counts.doneTasks) and \(counts.doneTasks)"
                    )
                }
            }
            if report.schemaVersion >= 35 {
                try database.cachedStatement(
                    """
                    WITH kept AS (SELECT project, count, open FROM project_total),
                         counted AS (SELECT project, count(*), count(*) FILTER (WHERE done = 0) FROM task WHERE project IS NOT NULL GROUP BY project)
                    SELECT project FROM (SELECT * FROM kept EXCEPT SELECT * FROM counted)
                    UNION SELECT project FROM (SELECT * FROM counted EXCEPT SELECT * FROM kept) ORDER BY project
                    """
                ).forEachRow { row in
                    rule("project_total's counts of project \(row.text(0)) do not match its tasks")
                }
            } else if report.schemaVersion >= 22 {
                try database.cachedStatement(
                    """
                    WITH kept AS (SELECT project, count FROM project_total),
                         counted AS (SELECT project, count(*) FROM task WHERE project IS NOT NULL GROUP BY project)
                    SELECT project FROM (SELECT * FROM kept EXCEPT SELECT * FROM counted)
                    UNION SELECT project FROM (SELECT * FROM counted EXCEPT SELECT * FROM kept) ORDER BY project
                    """
                ).forEachRow { row in
                    rule("project_total's count of project \(row.text(0)) does not match its tasks")
                }
            }
            if report.schemaVersion >= 35 {
                try database.cachedStatement(
                    """
                    WITH kept AS (SELECT tag, other, count, open FROM tag_pair_total),
                         counted AS (SELECT a.tag AS tag, b.tag AS other, count(*), count(*) FILTER (WHERE task.done = 0)
                                     FROM task_tag a JOIN task_tag b ON b.task_pk = a.task_pk AND b.tag > a.tag JOIN task ON task.pk = a.task_pk
                                     GROUP BY 1, 2)
                    SELECT tag, other FROM (SELECT * FROM kept EXCEPT SELECT * FROM counted)
                    UNION SELECT tag, other FROM (SELECT * FROM counted EXCEPT SELECT * FROM kept) ORDER BY 1, 2
                    """
                ).forEachRow { row in
                    rule("tag_pair_total's counts of the tasks tagged \(row.text(0)) and \(row.text(1)) do not match their tags")
                }
            } else if report.schemaVersion >= 31 {
                try database.cachedStatement(
                    """
                    WITH kept AS (SELECT tag, other, count FROM tag_pair_total),
                         counted AS (SELECT a.tag AS tag, b.tag AS other, count(*) FROM task_tag a JOIN task_tag b ON b.task_pk = a.task_pk AND b.tag > a.tag GROUP BY 1, 2)
                    SELECT tag, other FROM (SELECT * FROM kept EXCEPT SELECT * FROM counted)
                    UNION SELECT tag, other FROM (SELECT * FROM counted EXCEPT SELECT * FROM kept) ORDER BY 1, 2
                    """
                ).forEachRow { row in
                    rule("tag_pair_total's count of the tasks tagged \(row.text(0)) and \(row.text(1)) does not match their tags")
                }
            }
            if report.schemaVersion >= 34 {
                try database.cachedStatement(
                    """
                    WITH kept AS (SELECT tag, count, open FROM tag_total WHERE count IS NOT 0 OR open IS NOT 0),
                         counted AS (SELECT task_tag.tag AS tag, count(*), count(*) FILTER (WHERE task.done = 0)
                                     FROM task_tag JOIN task ON task.pk = task_tag.task_pk GROUP BY 1)
                    SELECT tag FROM (SELECT * FROM kept EXCEPT SELECT * FROM counted)
                    UNION SELECT tag FROM (SELECT * FROM counted EXCEPT SELECT * FROM kept) ORDER BY 1
                    """
                ).forEachRow { row in
                    rule("tag_total's counts of the tasks tagged \(row.text(0)) do not match their tags")
                }
            }
        }
        if taggingsPass {
            attempt("checking the taggings") {
                var mismatched: Set<String> = []
                try database.cachedStatement(
                    """
                    SELECT task.id FROM task_tag LEFT JOIN task ON task.pk = task_tag.task_pk
                    WHERE task.pk IS NULL OR task_tag.created_at IS NOT task.created_at OR task_tag.task_id IS NOT task.id
                    """
                ).forEachRow { row in
                    if row.isNull(0) {
                        report.foreignKeyProblems.append("a row of task_tag refers to a missing row of task")
                    } else {
                        mismatched.insert(row.text(0))
                    }
                }
                // In SQLite's order of the ids (their bytes), as the other problems come.
                for id in mismatched.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                    rule("task \(id): its taggings' copy of its sort key does not match it")
                }
            }
        }
        attempt("checking the tasks") {
            try checkRules(database, schemaVersion: report.schemaVersion, note: rule)
        }
        return finished()
    }

    /// What `PRAGMA integrity_check` finds, read on a connection of its own; a check that
    /// fails (SQLite may give up on a damaged file) is itself a problem found.
    private static func integrityProblems(path: String) -> [String] {
        let check = "PRAGMA integrity_check"
        // What it found before it failed is kept: SQLite may report damage, then give up.
        var problems: [String] = []
        do {
            let database = try StoreFile.openReadable(path: path, mode: .readOnly, busyTimeoutMilliseconds: 5000)
            try database.cachedStatement(check).forEachRow { row in
                // A row may hold several lines, under a heading naming the database.
                for line in row.text(0).split(separator: "\n") where line != "ok" && !line.hasPrefix("*** in database") {
                    problems.append(String(line))
                }
            }
        } catch {
            problems.append("\(check) failed: \((error as? SQLiteError)?.message ?? "\(error)")")
        }
        return problems
    }

    private static func counts(_ database: Database, schemaVersion: Int) throws -> StoreCheckReport.Counts {
        var counts = StoreCheckReport.Counts()
        try database.cachedStatement("SELECT count(*), coalesce(sum(done), 0) FROM task").forEachRow { row in
            counts.tasks = row.int(0)
            counts.doneTasks = row.int(1)
        }
        try database.cachedStatement("SELECT count(*), count(DISTINCT tag) FROM task_tag").forEachRow { row in
            counts.taggings = row.int(0)
            counts.distinctTags = row.int(1)
        }
        counts.changes = Int(try database.integer("SELECT count(*) FROM change") ?? 0)
        // A file at a version before 12 keeps the newest seq in sqlite_sequence (AUTOINCREMENT).
        counts.newestSeq =
            schemaVersion >= 12
            ? try Schema.newestSeq(in: database)
            : try database.integer("SELECT seq FROM sqlite_sequence WHERE name = 'change'") ?? 0
        return counts
    }

    /// Every task against the rules a write would hold it to, and its derived columns
    /// (folded title and notes, due date and wait time in ms, the copies of its tags and
    /// dependencies, how many of these are open) against its fields. Tags and dependencies
    /// are read from their tables, which every file has, one from before the copies too.
    private static func checkRules(_ database: Database, schemaVersion: Int, note: (String) -> Void) throws {
        let keepsTags = schemaVersion >= 8
        let hasSchema17 = schemaVersion >= 17
        let hasSchema18 = schemaVersion >= 18
        let hasReminders = schemaVersion >= 19
        let hasSchema41 = schemaVersion >= 41
        // Most tasks have no dependencies: one look at task_dependency's key says so, where
        // building the list sets up a sort for each task.
        let hasDependencies = "EXISTS (SELECT 1 FROM task_dependency WHERE task_pk = task.pk)"
        let statement = try database.cachedStatement(
            """
            SELECT \(FetchPlan.columnsBeforeSchema17), \(Schema.tagsOf("task.pk")) AS tags,
                   \(hasSchema17 ? "task.project, task.wait, task.meta, CASE WHEN \(hasDependencies) THEN \(Schema.dependsOnOf("task.pk")) ELSE '' END AS depends_on"
                                 : "NULL AS project, NULL AS wait, '{}' AS meta, '' AS depends_on"),
                   \(hasSchema18 ? FetchPlan.columnsOfSchema18 : "NULL AS recurrence, NULL AS series_id"),
                   title_fold, notes_fold, due_at, \(keepsTags ? "task.tags" : "NULL") AS kept_tags,
                   \(hasSchema17 ? "wait_at" : "NULL") AS wait_at,
                   \(hasSchema17 ? "task.depends_on" : "NULL") AS kept_depends_on,
                   \(hasSchema17 ? "task.blocked_by = CASE WHEN \(hasDependencies) THEN \(Schema.blockedByOf("task.pk")) ELSE 0 END" : "1") AS blocked_by_matches,
                   \(hasReminders ? "task.remind, task.remind_at" : "NULL AS remind, NULL AS remind_at"),
                   \(hasSchema41 ? FetchPlan.columnsOfSchema41 : "'' AS annotations, NULL AS started_at"),
                   \(hasSchema17 ? "CASE WHEN json_valid(task.meta) THEN json_type(task.meta) = 'object' ELSE 0 END" : "1") AS meta_is_object
            FROM task ORDER BY pk
            """)
        let columns = statement.layout(CheckColumns.self)
        try statement.forEachRow { row in
            let task = columns.task.task(in: row)
            if !row.isNull(columns.keptTags), row.text(columns.keptTags) != row.text(columns.task.tags) {
                note("task \(task.id): its tags column does not match task_tag")
            }
            if !row.isNull(columns.keptDependsOn), row.text(columns.keptDependsOn) != row.text(columns.task.dependsOn) {
                note("task \(task.id): its depends_on column does not match task_dependency")
            }
            if !row.bool(columns.blockedByMatches) {
                note("task \(task.id): blocked_by does not count its dependencies that are not done")
            }
            if !row.bool(columns.metaIsObject) {
                note("task \(task.id): meta is not a JSON object")
            }
            let derived = DerivedColumns(
                titleFold: row.text(columns.titleFold), notesFold: row.text(columns.notesFold), dueAt: row.optionalInt64(columns.dueAt),
                waitAt: row.optionalInt64(columns.waitAt), remindAt: row.optionalInt64(columns.remindAt),
                storedAnnotations: row.text(columns.task.annotations))
            for problem in try CheckedTask.problems(of: task, derived: derived) { note(problem) }
        }
        guard hasSchema17 else { return }
        // Tasks that depend on themselves, directly or through others: found on the edges in
        // memory, in linear time (a recursive query's reachable pairs grow with the square).
        let idOf = try database.cachedStatement("SELECT id FROM task WHERE pk = ?")
        let onCycles = try DependencyGraph.tasksOnCycles(dependencyEdges(in: database)).compactMap { pk in
            try idOf.firstRow([.integer(pk)]) { $0.text(0) }
        }
        for id in onCycles.sorted(by: TaskRules.codePointOrder) {
            note("task \(id): its dependencies lead back to it (a dependency cycle)")
        }
    }
}

extension TaskStore {
    /// Every dependency in `database`: a task's row key, and the row key of one it depends on.
    static func dependencyEdges(in database: Database) throws -> [(task: Int64, dependsOn: Int64)] {
        var edges: [(task: Int64, dependsOn: Int64)] = []
        try database.cachedStatement("SELECT task_pk, depends_on_pk FROM task_dependency").forEachRow { row in
            edges.append((row.int64(0), row.int64(1)))
        }
        return edges
    }
}

/// `checkRules`' columns: a task's, its tags and dependencies as their tables hold them,
/// the columns derived from its fields, and its own copies (NULL in a file from before them).
private struct CheckColumns: RowLayout {
    let task: TaskColumns
    let titleFold, notesFold, dueAt, keptTags, waitAt, keptDependsOn, blockedByMatches, metaIsObject: Int32
    let remindAt: Int32

    init(_ statement: Statement) {
        task = TaskColumns(statement)
        titleFold = statement.columnIndex("title_fold")
        notesFold = statement.columnIndex("notes_fold")
        dueAt = statement.columnIndex("due_at")
        keptTags = statement.columnIndex("kept_tags")
        waitAt = statement.columnIndex("wait_at")
        keptDependsOn = statement.columnIndex("kept_depends_on")
        blockedByMatches = statement.columnIndex("blocked_by_matches")
        metaIsObject = statement.columnIndex("meta_is_object")
        remindAt = statement.columnIndex("remind_at")
    }
}

/// `body`'s value, worked out on a thread of its own while the caller goes on; `value()`
/// waits for it. Worked out by the caller, in `value()`, when no thread can be started.
private final class OnItsOwnThread: @unchecked Sendable {
    private let body: @Sendable () -> [String]
    private var result: [String]?
    private var thread: pthread_t?

    init(_ body: @escaping @Sendable () -> [String]) {
        self.body = body
        thread = Self.start(self)
    }

    private static func start(_ task: OnItsOwnThread) -> pthread_t? {
        let context = Unmanaged.passRetained(task).toOpaque()
        var thread = pthread_t()
        guard
            pthread_create(
                &thread, nil,
                { context in
                    let task = Unmanaged<OnItsOwnThread>.fromOpaque(context!).takeRetainedValue()
                    task.result = task.body()
                    return nil
                }, context) == 0
        else {
            Unmanaged<OnItsOwnThread>.fromOpaque(context).release()
            return nil
        }
        return thread
    }

    /// Joined once: the caller asks once.
    func value() -> [String] {
        if let thread { pthread_join(thread, nil) }
        return result ?? body()
    }
}
