import PostgreSQL
import TaskEngine
import TaskModel

/// Writes. Each writing transaction runs at READ COMMITTED and first locks the one row of
/// `change_counter`, which it holds until it commits or rolls back: writers run one at a
/// time across every server on the database, each statement sees every commit before it
/// (so `ifVersion` and dependency checks are exact), and the seqs a transaction hands out
/// follow the last one committed, without gaps (a rollback hands none out) and in commit
/// order. It ends by storing the newest seq and a payload-free `NOTIFY`, both delivered
/// by its commit. Each write request, and each apply, is one change group (see
/// PostgresTaskStore+Undo.swift).
extension PostgresTaskStore: StorageDriver {
    public func perform(_ operation: TaskOperation) throws -> OperationOutcome {
        try performWrite(operation)
    }

    public func performEach(_ operations: [TaskOperation]) throws -> [Result<OperationOutcome, TaskStoreError>] {
        try performEachWrite(operations)
    }

    public func apply(_ operations: [Result<TaskOperation, TaskStoreError>], atomic: Bool) throws -> [Result<OperationOutcome, TaskStoreError>] {
        try applyWrites(operations, atomic: atomic)
    }

    // MARK: StorageDriver

    package func now() -> Int64 { clock() }

    package func writeTransaction<T>(large: Bool, _ body: () throws -> T) throws -> T {
        try writing(body)
    }

    /// Runs `body` in a writing transaction (see above).
    func writing<T>(_ body: () throws -> T) throws -> T {
        try translatingErrors {
            try connection.transaction(.readCommitted) {
                let start = try connection.query("SELECT seq FROM change_counter FOR UPDATE")[0].int64("seq")
                lastSeq = start
                countDeltas = CountDeltas()
                let value = try body()
                try countDeltas.write(to: connection)
                if lastSeq != start {
                    try connection.run("UPDATE change_counter SET seq = $1", [.integer(lastSeq)])
                    try connection.execute("NOTIFY \(channel)")
                }
                return value
            }
        }
    }

    /// A savepoint gives back the seqs and the count deltas of what it undoes. A database
    /// error aborts the whole transaction, which the caller's rollback ends.
    package func savepoint<T>(_ body: () throws -> T) throws -> T {
        let seqBefore = lastSeq
        let countsBefore = countDeltas
        try connection.execute("SAVEPOINT operation")
        do {
            let value = try body()
            try connection.execute("RELEASE SAVEPOINT operation")
            return value
        } catch let error as TaskStoreError {
            try connection.execute("ROLLBACK TO SAVEPOINT operation")
            lastSeq = seqBefore
            countDeltas = countsBefore
            throw error
        }
    }

    package func committedTask(id: String) throws -> TaskItem? {
        try translatingErrors { try load(id: id) }
    }

    /// A task's row is addressed by its id.
    package func loadForWrite(id: String) throws -> (key: String, task: TaskItem)? {
        try load(id: id).map { (id, $0) }
    }

    /// The row holds the dependencies (`depends_on`): `insert` wrote them.
    package func writeDependencies(of key: String, requested: [String], field: String) throws {
        try checkExist(requested, field: field)
    }

    /// `insert` or `replace` wrote the dependencies; here they are checked.
    package func replaceDependencies(of key: String, requested: [String], field: String) throws {
        try checkExist(requested, field: field)
        if let cycle = try cycle(from: key) { throw TaskStoreError.dependencyCycle(ids: cycle) }
    }

    package func delete(_ key: String) throws {
        for row in try connection.query(
            "DELETE FROM task WHERE id = $1 RETURNING done, project, array_to_string(tags, chr(31)) AS tags", [.text(key)])
        {
            try countDeltas.add(row, -1)
        }
    }

    package func dependents(of key: String) throws -> [(key: String, task: TaskItem)] {
        // `@>`, which task_by_dependency answers; `$1 = ANY(depends_on)` reads every task.
        try connection.query("SELECT \(TaskRow.columns) FROM task WHERE depends_on @> ARRAY[$1::text] ORDER BY id", [.text(key)])
            .map { row in
                let task = try TaskRow.task(in: row)
                return (task.id, task)
            }
    }

    /// Each dependent's row holds its dependencies, which its `replace` writes.
    package func dropDependencies(on key: String) throws {}

    /// The counter row the transaction holds (see above) makes the claim one writer's.
    package func claimSuccessor(of key: String, successor: String) throws -> Bool {
        try connection.run(
            """
            UPDATE task SET successor_id = $1
            WHERE id = $2 AND (successor_id IS NULL OR NOT EXISTS (SELECT 1 FROM task AS made WHERE made.id = task.successor_id))
            """, [.text(successor), .text(key)]) == 1
    }

    package func logged(_ kind: TaskChange.Kind, id: String, version: Int64, task: TaskItem?, group: Int64) throws -> TaskChange {
        try log(kind, id: id, version: version, task: task)
    }

    /// Counts again the dependencies not done of tasks `ids`, inserted or given dependencies
    /// before other tasks they name were inserted in the same transaction (an import's record
    /// may name a later one; an undo recreates its tasks in turn): when a task's
    /// dependencies are written, its count takes in the tasks that exist (schema 7).
    func recountBlockers(of ids: [String]) throws {
        guard !ids.isEmpty else { return }
        try connection.run(
            """
            UPDATE task SET blocked_by = counted.n
            FROM (SELECT id, task_blockers(depends_on) AS n FROM task WHERE id = ANY(string_to_array($1, chr(31)))) AS counted
            WHERE task.id = counted.id AND task.blocked_by <> counted.n
            """, [TaskRow.list(ids)])
    }

    /// An unknown id among `ids` is refused, naming its place in the request (`field[2]`).
    func checkExist(_ ids: [String], field: String) throws {
        guard !ids.isEmpty else { return }
        let known = Set(
            try connection.query("SELECT id FROM task WHERE id = ANY(string_to_array($1, chr(31)))", [TaskRow.list(ids)])
                .map { try $0.text("id") })
        if let index = ids.firstIndex(where: { !known.contains($0) }) {
            throw TaskStoreError.invalid(field: "\(field)[\(index)]", reason: "no task has the id \(ids[index])")
        }
    }

    /// The cycle through task `id` that its stored dependencies close (see
    /// `DependencyGraph.shortestCycle`), or nil. One query finds whether the task is among
    /// the tasks its dependencies reach, each reached once (`UNION`), and only then reads
    /// their dependencies for the walk that names the cycle.
    func cycle(from id: String) throws -> [String]? {
        // The step looks each task up by its key (OFFSET 0 keeps the subquery a lookup per
        // row): as a join, the planner guesses a small task table and scans all of it at
        // every step, which grows with the square of a chain's length.
        let rows = try connection.query(
            """
            WITH RECURSIVE reach(id) AS (
                SELECT dependency FROM task, unnest(task.depends_on) AS dependency WHERE task.id = $1
                UNION
                SELECT dependency
                FROM reach, LATERAL (SELECT depends_on FROM task WHERE task.id = reach.id OFFSET 0) AS task, unnest(task.depends_on) AS dependency
            )
            SELECT task.id, array_to_string(task.depends_on, chr(31)) AS depends_on
            FROM reach JOIN task ON task.id = reach.id
            WHERE EXISTS (SELECT 1 FROM reach WHERE reach.id = $1)
            """, [.text(id)])
        guard !rows.isEmpty else { return nil }
        var dependencies: [ExactID: [(task: ExactID, id: String)]] = [:]
        for row in rows {
            dependencies[ExactID(try row.text("id"))] = TaskRow.list(try row.text("depends_on")).map { (ExactID($0), $0) }
        }
        let task = ExactID(id)
        return DependencyGraph.shortestCycle(through: task, dependingOn: dependencies[task] ?? []) { dependencies[$0] ?? [] }?.map(\.text)
    }

    /// Inserts `task`, its dependencies with it, unless its id is taken: nil then.
    package func insert(_ task: TaskItem, dueAt: Int64?, waitAt: Int64?) throws -> String? {
        let inserted =
            try connection.run(
                """
                INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, tags, due, due_at, project,
                                  depends_on, wait, wait_at, meta, recurrence, series_id, remind, remind_at,
                                  created_at, updated_at, completed_at, version, annotations, started_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, string_to_array($8, chr(31)), $9, $10, $11,
                        string_to_array($12, chr(31)), $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)
                ON CONFLICT (id) DO NOTHING
                """, try rowValues(task, dueAt: dueAt, waitAt: waitAt)) == 1
        guard inserted else { return nil }
        countDeltas.add(done: task.done, project: task.project, tags: task.tags, 1)
        return task.id
    }

    /// Overwrites the row of `task.id` with `task`. A reminder is sent again once its time
    /// changes or the task is reopened.
    package func replace(_ key: String, with task: TaskItem, dueAt: Int64?, waitAt: Int64?, current: TaskItem) throws {
        let replaced = try connection.query(
            """
            UPDATE task SET title = $2, title_fold = $3, notes = $4, notes_fold = $5, done = $6, priority = $7,
                            tags = string_to_array($8, chr(31)), due = $9, due_at = $10, project = $11,
                            depends_on = string_to_array($12, chr(31)), wait = $13, wait_at = $14, meta = $15,
                            recurrence = $16, series_id = $17, remind = $18, remind_at = $19,
                            reminded = task.reminded AND task.remind_at IS NOT DISTINCT FROM $19 AND (NOT task.done OR $6),
                            created_at = $20, updated_at = $21, completed_at = $22, version = $23,
                            annotations = $24, started_at = $25
            FROM (SELECT id, done, project, tags FROM task WHERE id = $1 FOR UPDATE) AS before
            WHERE task.id = before.id
            RETURNING before.done, before.project, array_to_string(before.tags, chr(31)) AS tags
            """, try rowValues(task, dueAt: dueAt, waitAt: waitAt))
        for row in replaced {
            try countDeltas.add(row, -1)
            countDeltas.add(done: task.done, project: task.project, tags: task.tags, 1)
        }
    }

    private func rowValues(_ task: TaskItem, dueAt: Int64?, waitAt: Int64?) throws -> [PostgresValue] {
        [
            .text(task.id), .text(task.title), .text(TaskRules.folded(task.title)), .text(task.notes),
            .text(TaskRules.folded(task.notes)), .boolean(task.done), PostgresValue(task.priority), TaskRow.list(task.tags),
            PostgresValue(task.due), PostgresValue(dueAt), PostgresValue(task.project), TaskRow.list(task.dependsOn),
            PostgresValue(task.wait), PostgresValue(waitAt), .text(task.meta), PostgresValue(task.recurrence),
            PostgresValue(task.seriesId), PostgresValue(task.remindAt), PostgresValue(try task.storedTime(task.remindAt)),
            .integer(task.createdAt), .integer(task.updatedAt), PostgresValue(task.completedAt), .integer(task.version),
            .text(Annotation.stored(task.annotations)), PostgresValue(task.startedAt),
        ]
    }

    func log(_ kind: TaskChange.Kind, task: TaskItem) throws -> TaskChange {
        try log(kind, id: task.id, version: task.version, task: task)
    }

    /// Appends a change with the next seq of the transaction's.
    func log(_ kind: TaskChange.Kind, id: String, version: Int64, task: TaskItem?) throws -> TaskChange {
        lastSeq = try TaskRules.loggedSeq(lastSeq &+ 1)
        try connection.run(
            "INSERT INTO change_log (seq, kind, task_id, version, at) VALUES ($1, $2, $3, $4, $5)",
            [.integer(lastSeq), .text(kind.rawValue), .text(id), .integer(version), .integer(clock())])
        return TaskChange(seq: lastSeq, kind: kind, id: id, version: version, task: task)
    }
}
