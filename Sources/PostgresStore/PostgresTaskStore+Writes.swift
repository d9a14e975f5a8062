import PostgreSQL
import TaskModel

/// Writes. Each writing transaction runs at READ COMMITTED and first locks the one row of
/// `change_counter`, which it holds until it commits or rolls back: writers run one at a
/// time across every server on the database, each statement sees every commit before it
/// (so `ifVersion` and dependency checks are exact), and the seqs a transaction hands out
/// follow the last one committed, without gaps (a rollback hands none out) and in commit
/// order. It ends by storing the newest seq and a payload-free `NOTIFY`, both delivered
/// by its commit. Each write request, and each apply, is one change group (see
/// PostgresTaskStore+Undo.swift).
extension PostgresTaskStore {
    public func perform(_ operation: TaskOperation) throws -> OperationOutcome {
        let prepared = try PreparedOperation(operation)
        return try writing { try recordingGroup { try run(prepared, group: $0) } }
    }

    public func performEach(_ operations: [TaskOperation]) throws -> [Result<OperationOutcome, TaskStoreError>] {
        let prepared = operations.map { operation in Result { try PreparedOperation(operation) }.mapError(Self.storeError) }
        return try writing { try runEach(prepared, atomic: false, locatingFields: false, group: nil) }
    }

    public func apply(_ operations: [Result<TaskOperation, TaskStoreError>], atomic: Bool) throws -> [Result<OperationOutcome, TaskStoreError>] {
        let prepared = operations.enumerated().map { index, operation in
            operation.flatMap { operation in
                Result { try PreparedOperation(operation) }.mapError { Self.storeError($0).located(in: operation.path(index: index)) }
            }
        }
        if atomic, let index = prepared.firstIndex(where: { (try? $0.get()) == nil }), case .failure(let error) = prepared[index] {
            throw TaskStoreError.operationFailed(index: index, error: error)
        }
        do {
            return try writing { try recordingGroup { try runEach(prepared, atomic: atomic, locatingFields: true, group: $0) } }
        } catch TaskStoreError.operationFailed(let index, .versionConflict(let seen)) {
            // Seen inside the transaction just undone, perhaps after an earlier operation
            // changed the task: report the task as it is committed.
            let current = try translatingErrors { try load(id: seen.id) }
            throw TaskStoreError.operationFailed(index: index, error: current.map { .versionConflict(current: $0) } ?? .notFound(id: seen.id))
        }
    }

    private static func storeError(_ error: any Error) -> TaskStoreError {
        error as? TaskStoreError ?? .invalid(field: "", reason: "\(error)")
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

    /// The operations inside the caller's writing transaction, in change group `group`, or
    /// each in a group of its own when it is nil (independent requests committed together).
    private func runEach(
        _ prepared: [Result<PreparedOperation, TaskStoreError>], atomic: Bool,
        locatingFields: Bool, group: Int64?
    ) throws -> [Result<OperationOutcome, TaskStoreError>] {
        try PreparedOperation.runEach(
            prepared, atomic: atomic, locatingFields: locatingFields,
            run: { operation in
                if let group { return try run(operation, group: group) }
                return try recordingGroup { try run(operation, group: $0) }
            },
            isolated: { body in
                let seqBefore = lastSeq
                let countsBefore = countDeltas
                try connection.execute("SAVEPOINT operation")
                do {
                    let outcome = try body()
                    try connection.execute("RELEASE SAVEPOINT operation")
                    return outcome
                } catch let error as TaskStoreError {
                    try connection.execute("ROLLBACK TO SAVEPOINT operation")
                    lastSeq = seqBefore
                    countDeltas = countsBefore
                    throw error
                }
            })
    }

    /// One checked operation inside the caller's writing transaction, as part of change
    /// group `group`.
    private func run(_ operation: PreparedOperation, group: Int64) throws -> OperationOutcome {
        switch operation.action {
        case .create(let draft, let id, let tags, let dueAt, let dependsOn, let waitAt):
            let now = clock()
            let task = TaskItem(
                id: id, title: draft.title, notes: draft.notes, done: draft.done, priority: draft.priority,
                tags: tags, due: draft.due, project: draft.project, dependsOn: dependsOn, wait: draft.wait, meta: draft.meta,
                recurrence: draft.recurrence, seriesId: draft.recurrence == nil ? nil : id, createdAt: now, updatedAt: now,
                completedAt: draft.done ? now : nil, version: 1, remindAt: draft.remindAt,
                annotations: draft.annotationsMade(at: now), startedAt: draft.startedAt)
            // The task itself first (1003), then its dependencies (§5's order of errors).
            guard try insert(task, dueAt: dueAt, waitAt: waitAt) else { throw TaskStoreError.alreadyExists(id: id) }
            try checkExist(draft.dependsOn, field: "dependsOn")
            // Nothing depends on a new task: the one cycle it can close is through itself.
            if dependsOn.contains(where: { $0.utf8.elementsEqual(id.utf8) }) { throw TaskStoreError.dependencyCycle(ids: [id]) }
            return OperationOutcome(result: .task(task), change: try log(.created, task: task))

        case .update(let id, let changes, let tags, let dueAt, let dependsOn, let waitAt, let ifVersion):
            guard let current = try load(id: id) else { throw TaskStoreError.notFound(id: id) }
            if let ifVersion, ifVersion != current.version { throw TaskStoreError.versionConflict(current: current) }
            let now = clock()
            var next = try current.changed(by: changes, tags: tags, dependsOn: dependsOn, now: now)
            try next.keepSeries(changes: changes)
            guard !next.isIdentical(to: current) else { return OperationOutcome(result: .task(current), change: nil) }
            if next.done != current.done { next.completedAt = next.done ? now : nil }
            next = try next.atNextVersion(changedAt: now)
            try snapshot(id: id, group: group)
            let successor = next.done && !current.done ? try makeSuccessor(of: next, at: now) : nil
            try replace(next, dueAt: dueAt ?? storedTime(current.due, of: current), waitAt: waitAt ?? storedTime(current.wait, of: current))
            if let requested = changes.dependsOn, !TaskItem.identical(next.dependsOn, current.dependsOn) {
                try checkExist(requested, field: "changes.dependsOn")
                if let cycle = try cycle(from: id) { throw TaskStoreError.dependencyCycle(ids: cycle) }
            }
            return OperationOutcome(
                result: .task(next), change: try log(.updated, task: next),
                otherChanges: successor.map { [$0] } ?? [])

        case .delete(let id, let ifVersion):
            guard let current = try load(id: id) else { throw TaskStoreError.notFound(id: id) }
            if let ifVersion, ifVersion != current.version { throw TaskStoreError.versionConflict(current: current) }
            let (change, dependents) = try delete(current, group: group)
            return OperationOutcome(result: .deleted(id: id), change: change, otherChanges: dependents)
        }
    }

    /// Deletes `task`, taking it out of every task that depends on it but those in `sparing`
    /// (which the caller deletes next), in change group `group`; returns the deletion's change
    /// and the dependents' updates.
    func delete(_ task: TaskItem, group: Int64, sparing: Set<[UInt8]> = []) throws -> (TaskChange, dependents: [TaskChange]) {
        let dependents = try removeFromDependents(task.id, group: group, sparing: sparing)
        try snapshot(id: task.id, group: group)
        for row in try connection.query(
            "DELETE FROM task WHERE id = $1 RETURNING done, project, array_to_string(tags, chr(31)) AS tags", [.text(task.id)])
        {
            try countDeltas.add(row, -1)
        }
        return (try log(.deleted, id: task.id, version: task.version, task: nil), dependents)
    }

    /// Creates the next occurrence of `task`, just completed, and returns its change; nil when
    /// the task does not recur, its rule makes no further occurrence, or the next occurrence it
    /// made before still exists (it was completed, reopened, and is completed again).
    private func makeSuccessor(of task: TaskItem, at now: Int64) throws -> TaskChange? {
        guard let rule = task.recurrence else { return nil }
        let parsed: RecurrenceRule
        do {
            parsed = try RecurrenceRule(rule, field: "recurrence.rule")
        } catch {
            throw TaskStoreError.outOfRange(
                "task \(task.id)'s stored recurrence \(rule) is not a rule Taskline reads: its stored data is out of range (see taskline check)")
        }
        guard let successor = task.successor(by: parsed, id: TaskItem.newID(), at: now) else { return nil }
        let claimed = try connection.run(
            """
            UPDATE task SET successor_id = $1
            WHERE id = $2 AND (successor_id IS NULL OR NOT EXISTS (SELECT 1 FROM task AS made WHERE made.id = task.successor_id))
            """, [.text(successor.id), .text(task.id)])
        guard claimed == 1 else { return nil }
        guard try insert(successor, dueAt: try storedTime(successor.due, of: successor), waitAt: nil) else {
            throw TaskStoreError.alreadyExists(id: successor.id)
        }
        return try log(.created, task: successor)
    }

    /// Takes `id` out of every task that depends on it but those in `sparing`, each at its
    /// next version; returns those updates' changes, in id order.
    private func removeFromDependents(_ id: String, group: Int64, sparing: Set<[UInt8]>) throws -> [TaskChange] {
        try snapshotDependents(of: id, group: group)
        // `@>`, which task_by_dependency answers; `$1 = ANY(depends_on)` reads every task.
        let rows = try connection.query("SELECT \(TaskRow.columns) FROM task WHERE depends_on @> ARRAY[$1::text] ORDER BY id", [.text(id)])
        let now = clock()
        return try rows.compactMap { row in
            let current = try TaskRow.task(in: row)
            guard !sparing.contains(Array(current.id.utf8)) else { return nil }
            var next = try current.atNextVersion(changedAt: now)
            next.dependsOn.removeAll { $0.utf8.elementsEqual(id.utf8) }
            try replace(next, dueAt: try storedTime(current.due, of: current), waitAt: try storedTime(current.wait, of: current))
            return try log(.updated, task: next)
        }
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

    /// A stored time as ms; one another program stored unreadable refuses the write.
    private func storedTime(_ text: String?, of task: TaskItem) throws -> Int64? {
        guard let text else { return nil }
        guard let milliseconds = Timestamp.parse(text) else {
            throw TaskStoreError.outOfRange(
                "task \(task.id)'s stored time \(text) is not a date: its stored data is out of range (see taskline check)")
        }
        return milliseconds
    }

    /// Inserts `task` unless its id is taken; false when it is.
    func insert(_ task: TaskItem, dueAt: Int64?, waitAt: Int64?) throws -> Bool {
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
        if inserted { countDeltas.add(done: task.done, project: task.project, tags: task.tags, 1) }
        return inserted
    }

    /// Overwrites the row of `task.id` with `task`. A reminder is sent again once its time
    /// changes or the task is reopened.
    func replace(_ task: TaskItem, dueAt: Int64?, waitAt: Int64?) throws {
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
            PostgresValue(task.seriesId), PostgresValue(task.remindAt), PostgresValue(try storedTime(task.remindAt, of: task)),
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
