import PostgreSQL
import TaskEngine
import TaskModel

/// Undo and redo: change groups, each task's row before a group changed it, and reverting a
/// group as a new group (the tables: `PostgresSchema`, version 3).
///
/// A group is the run of seqs one write request, apply, undo or redo logged: a writer holds
/// the counter row (see `writing`), so the seqs are its alone and follow the last one
/// committed, which also makes the conflict check exact across servers. Undo reverts the
/// newest group of the scope that is a write or a redo and not reverted yet; redo reverts
/// the newest undo of the scope that is not reverted yet and is newer than the scope's
/// newest write, so that a new write ends what can be redone.
extension PostgresTaskStore: UndoDriver {
    public func undo(scope: UndoScope, force: Bool) throws -> Reversal? {
        try revert(.undo, scope: scope, force: force)
    }

    public func redo(scope: UndoScope, force: Bool) throws -> Reversal? {
        try revert(.redo, scope: scope, force: force)
    }

    // MARK: Recording

    /// Runs `body` inside the caller's writing transaction as one change group of this
    /// store's, passing it the group's key: the seq its first change gets, the next one (seqs
    /// have no gaps, and a savepoint rolled back gives its seqs back). The group is recorded
    /// when it logged a change.
    package func recordingGroup<T>(_ body: (Int64) throws -> T) throws -> T {
        try recordingGroup(.write, reverting: nil, body)
    }

    /// The same for a group of `kind`, which reverts group `target` when it is an undo or a redo.
    func recordingGroup<T>(_ kind: ChangeGroup.Kind, reverting target: Int64?, _ body: (Int64) throws -> T) throws -> T {
        let first = lastSeq + 1
        let value = try body(first)
        if lastSeq >= first {
            try connection.run(
                "INSERT INTO change_group (first_seq, last_seq, origin, kind, reverts) VALUES ($1, $2, $3, $4, $5)",
                [.integer(first), .integer(lastSeq), .integer(origin), .text(kind.rawValue), PostgresValue(target)])
        }
        return value
    }

    /// Keeps task `id` as it is before group `group` changes it; once per task and group.
    package func snapshot(_ id: String, group: Int64) throws {
        try connection.run(
            """
            INSERT INTO change_before (group_seq, task_id, task) SELECT $1, id, to_jsonb(task) FROM task WHERE id = $2
            ON CONFLICT DO NOTHING
            """, [.integer(group), .text(id)])
    }

    /// The same for every task that depends on task `id`.
    package func snapshotDependents(of id: String, group: Int64) throws {
        try connection.run(
            """
            INSERT INTO change_before (group_seq, task_id, task) SELECT $1, id, to_jsonb(task) FROM task WHERE depends_on @> ARRAY[$2::text]
            ON CONFLICT DO NOTHING
            """, [.integer(group), .text(id)])
    }

    /// Removes the groups whose changes pruning removed, all or some: those before seq
    /// `firstKept`.
    func pruneGroups(before firstKept: Int64) throws {
        try connection.run("DELETE FROM change_group WHERE first_seq < $1", [.integer(firstKept)])
        try connection.run("DELETE FROM change_before WHERE group_seq < $1", [.integer(firstKept)])
    }

    // MARK: Reverting

    /// A reversal writes its tasks' rows before every task they name is back: the tasks it
    /// wrote are counted again once all are (`recountBlockers`).
    package func recordingReversal<T>(of target: ChangeGroup, kind: ChangeGroup.Kind, _ body: (Int64) throws -> T) throws -> T {
        let first = lastSeq + 1
        let value = try recordingGroup(kind, reverting: target.firstSeq, body)
        if lastSeq >= first {
            let written = try connection.query(
                "SELECT DISTINCT task_id FROM change_log WHERE seq BETWEEN $1 AND $2", [.integer(first), .integer(lastSeq)])
            try recountBlockers(of: try written.map { try $0.text("task_id") })
        }
        try connection.run("UPDATE change_group SET reverted = true WHERE first_seq = $1", [.integer(target.firstSeq)])
        return value
    }

    package func newestGroup(to kind: ChangeGroup.Kind, scope: UndoScope) throws -> ChangeGroup? {
        let values: [PostgresValue] = scope == .connection ? [.integer(origin)] : []
        func inScope(_ alias: String) -> String { scope == .connection ? "AND \(alias).origin = $1" : "" }
        let reverting =
            kind == .undo
            ? "g.kind <> 'undo'"
            : """
            g.kind = 'undo' AND g.first_seq > coalesce((SELECT max(w.first_seq) FROM change_group w WHERE w.kind = 'write' \(inScope("w"))), 0)
            """
        let rows = try connection.query(
            """
            SELECT g.first_seq, g.last_seq, g.origin, g.kind, c.at FROM change_group g JOIN change_log c ON c.seq = g.first_seq
            WHERE NOT g.reverted AND \(reverting) \(inScope("g")) ORDER BY g.first_seq DESC LIMIT 1
            """, values)
        return try rows.first.map { row in
            ChangeGroup(
                firstSeq: try row.int64("first_seq"), lastSeq: try row.int64("last_seq"),
                kind: ChangeGroup.Kind(rawValue: try row.text("kind")) ?? .write,
                own: try row.int64("origin") == origin, at: try row.int64("at"))
        }
    }

    package func tasks(of group: ChangeGroup) throws -> [GroupTask] {
        var tasks = GroupTask.Collector()
        for row in try connection.query(
            "SELECT kind, task_id FROM change_log WHERE seq BETWEEN $1 AND $2 ORDER BY seq",
            [.integer(group.firstSeq), .integer(group.lastSeq)])
        {
            tasks.add(kind: TaskChange.Kind(rawValue: try row.text("kind")) ?? .updated, id: try row.text("task_id"))
        }
        return tasks.tasks
    }

    /// A successor's creation is logged just before its maker's completion (TaskEngine's
    /// `makeSuccessor`).
    package func makerMovedOn(id: String, series: String) throws -> (maker: TaskItem, made: String)? {
        try connection.query(
            """
            SELECT maker.id, maker.successor_id FROM change_log c JOIN task maker ON maker.id = c.task_id
            WHERE c.seq = (SELECT min(seq) FROM change_log WHERE task_id = $1 AND kind = 'created') + 1
              AND c.kind = 'updated' AND maker.series_id = $2 AND maker.successor_id <> $1
              AND EXISTS (SELECT 1 FROM task made WHERE made.id = maker.successor_id)
            """, [.text(id), .text(series)]
        ).first.map { (try $0.text("id"), try $0.text("successor_id")) }
            .flatMap { maker, made in try load(id: maker).map { ($0, made) } }
    }

    package func changedSince(_ after: Int64, among ids: Set<[UInt8]>) throws -> Set<[UInt8]> {
        let later = LaterGroups(
            try connection.query(
                "SELECT first_seq, last_seq, reverts FROM change_group WHERE first_seq > $1 ORDER BY first_seq", [.integer(after)]
            ).map { row in
                LaterGroups.Group(first: try row.int64("first_seq"), last: try row.int64("last_seq"), reverts: try row.optionalInt64("reverts"))
            })
        var changed: Set<[UInt8]> = []
        for row in try connection.query(
            """
            SELECT seq, task_id FROM change_log WHERE seq > $1 AND task_id = ANY(string_to_array($2, chr(31))) ORDER BY seq
            """, [.integer(after), TaskRow.list(ids.map { String(decoding: $0, as: UTF8.self) })])
        {
            if later.counts(try row.int64("seq")) { changed.insert(Array(try row.text("task_id").utf8)) }
        }
        return changed
    }

    /// Every snapshot keeps the next occurrence its task had made (`successor_id`).
    package func snapshots(of group: ChangeGroup) throws -> [[UInt8]: TaskSnapshot] {
        var snapshots: [[UInt8]: TaskSnapshot] = [:]
        for row in try connection.query(
            """
            SELECT \(TaskRow.columns), task.due_at, task.wait_at, task.successor_id
            FROM change_before CROSS JOIN LATERAL jsonb_populate_record(NULL::task, change_before.task) AS task
            WHERE change_before.group_seq = $1
            """, [.integer(group.firstSeq)])
        {
            let task = try TaskRow.task(in: row)
            snapshots[Array(task.id.utf8)] = TaskSnapshot(
                task: task, dueAt: try row.optionalInt64("due_at"), waitAt: try row.optionalInt64("wait_at"),
                successor: .some(row.optionalText("successor_id")))
        }
        return snapshots
    }

    package func existing(_ ids: [String]) throws -> Set<[UInt8]> {
        guard !ids.isEmpty else { return [] }
        return Set(
            try connection.query("SELECT id FROM task WHERE id = ANY(string_to_array($1, chr(31)))", [TaskRow.list(ids)])
                .map { Array(try $0.text("id").utf8) })
    }

    package func versionDeleted(id: String) throws -> Int64? {
        try connection.query(
            "SELECT version FROM change_log WHERE task_id = $1 AND kind = 'deleted' ORDER BY seq DESC LIMIT 1",
            [.text(id)]
        ).first.map { try $0.int64("version") }
    }

    package func setSuccessor(of key: String, to successor: String?) throws {
        try connection.run(
            "UPDATE task SET successor_id = $1 WHERE id = $2 AND successor_id IS DISTINCT FROM $1", [PostgresValue(successor), .text(key)])
    }

    /// A task's row holds its dependencies, which its `insert` or `replace` wrote.
    package func clearDependencies(of key: String) throws {}
}
