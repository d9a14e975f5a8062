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
extension PostgresTaskStore {
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

    private func revert(_ kind: ChangeGroup.Kind, scope: UndoScope, force: Bool) throws -> Reversal? {
        try writing {
            guard let target = try newestGroup(to: kind, scope: scope) else { return nil }
            let tasks = try tasks(of: target)
            let snapshots = GroupTask.statesBefore(tasks, snapshots: try snapshots(of: target))
            if !force, let conflict = try conflict(with: target, tasks: tasks, snapshots: snapshots) { throw conflict }
            let changes = try recordingGroup(kind, reverting: target.firstSeq) { try restore(tasks, to: snapshots, group: $0) }
            try connection.run("UPDATE change_group SET reverted = true WHERE first_seq = $1", [.integer(target.firstSeq)])
            var reversal = Reversal(group: target, tasks: [], deleted: [], changes: Self.withTasksAsTheyAre(changes))
            for task in tasks {
                if let now = try load(id: task.id) { reversal.tasks.append(now) } else { reversal.deleted.append(task.id) }
            }
            return reversal
        }
    }

    /// The group that an undo (`kind` .undo) or a redo reverts in `scope`, if any.
    private func newestGroup(to kind: ChangeGroup.Kind, scope: UndoScope) throws -> ChangeGroup? {
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

    /// The tasks `group` changed, in the order of their first change in it.
    private func tasks(of group: ChangeGroup) throws -> [GroupTask] {
        var tasks = GroupTask.Collector()
        for row in try connection.query(
            "SELECT kind, task_id FROM change_log WHERE seq BETWEEN $1 AND $2 ORDER BY seq",
            [.integer(group.firstSeq), .integer(group.lastSeq)])
        {
            tasks.add(kind: TaskChange.Kind(rawValue: try row.text("kind")) ?? .updated, id: try row.text("task_id"))
        }
        return tasks.tasks
    }

    /// The undo conflict `group` meets, if any (`GroupTask.conflict`); `snapshots`: its tasks
    /// as they were before it.
    private func conflict(with group: ChangeGroup, tasks: [GroupTask], snapshots: [[UInt8]: Snapshot]) throws -> TaskStoreError? {
        try GroupTask.conflict(
            of: tasks, before: { snapshots[$0]?.task }, load: load(id:),
            changedSince: { try changedSince(group.lastSeq, among: $0) },
            makerMovedOn: { id, series in
                // A successor's creation is logged just before its maker's completion (`makeSuccessor`).
                try connection.query(
                    """
                    SELECT maker.id, maker.successor_id FROM change_log c JOIN task maker ON maker.id = c.task_id
                    WHERE c.seq = (SELECT min(seq) FROM change_log WHERE task_id = $1 AND kind = 'created') + 1
                      AND c.kind = 'updated' AND maker.series_id = $2 AND maker.successor_id <> $1
                      AND EXISTS (SELECT 1 FROM task made WHERE made.id = maker.successor_id)
                    """, [.text(id), .text(series)]
                ).first.map { (try $0.text("id"), try $0.text("successor_id")) }
                    .flatMap { maker, made in try load(id: maker).map { ($0, made) } }
            })
    }

    /// The ids among `ids` that a change after seq `after` touched and counts for (`LaterGroups`).
    private func changedSince(_ after: Int64, among ids: Set<[UInt8]>) throws -> Set<[UInt8]> {
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

    /// A task as it was before a group, with its stored instants.
    private struct Snapshot {
        var task: TaskItem
        var dueAt: Int64?
        var waitAt: Int64?
        /// The next occurrence it had made (`successor_id`).
        var successor: String?
    }

    /// The rows before `group` of the tasks it updated or deleted, by id bytes.
    private func snapshots(of group: ChangeGroup) throws -> [[UInt8]: Snapshot] {
        var snapshots: [[UInt8]: Snapshot] = [:]
        for row in try connection.query(
            """
            SELECT \(TaskRow.columns), task.due_at, task.wait_at, task.successor_id
            FROM change_before CROSS JOIN LATERAL jsonb_populate_record(NULL::task, change_before.task) AS task
            WHERE change_before.group_seq = $1
            """, [.integer(group.firstSeq)])
        {
            let task = try TaskRow.task(in: row)
            snapshots[Array(task.id.utf8)] = Snapshot(
                task: task, dueAt: try row.optionalInt64("due_at"),
                waitAt: try row.optionalInt64("wait_at"), successor: row.optionalText("successor_id"))
        }
        return snapshots
    }

    /// Puts `tasks` back as `snapshots` hold them, in the caller's group `group`, and returns
    /// the changes: deletes those that have none (the group created them), in the order of
    /// their first change in it, recreates
    /// those that are gone with their ids, then writes back the others. A dependency on a task
    /// that no longer exists is left out; one that closes a cycle fails the reversal. Each
    /// task that changes is at its next version (a recreated one, past the version it was
    /// deleted at); one already as its snapshot is left alone.
    private func restore(_ tasks: [GroupTask], to snapshots: [[UInt8]: Snapshot], group: Int64) throws -> [TaskChange] {
        var changes: [TaskChange] = []
        // Those it deletes too keep the dependency to the end: it goes with them, unlogged.
        let deleting = Set(tasks.filter { snapshots[Array($0.id.utf8)] == nil }.map { Array($0.id.utf8) })
        for task in tasks where snapshots[Array(task.id.utf8)] == nil {
            guard let current = try load(id: task.id) else { continue }
            let (change, dependents) = try delete(current.id, task: current, group: group, sparing: deleting)
            changes += dependents + [change]
        }
        let now = clock()
        var dependenciesChanged: [String] = []
        var present: [(snapshot: Snapshot, current: TaskItem)] = []
        for task in tasks {
            guard let snapshot = snapshots[Array(task.id.utf8)] else { continue }
            if let current = try load(id: task.id) {
                present.append((snapshot, current))
                continue
            }
            var next = snapshot.task
            next.dependsOn = try existing(next.dependsOn, restoring: snapshots)
            next.version = max(next.version, try versionDeleted(id: next.id) ?? next.version)
            next = try next.atNextVersion(changedAt: now)
            guard try insert(next, dueAt: snapshot.dueAt, waitAt: snapshot.waitAt) != nil else { throw TaskStoreError.alreadyExists(id: next.id) }
            changes.append(try log(.created, task: next))
            if !next.dependsOn.isEmpty { dependenciesChanged.append(next.id) }
        }
        for (snapshot, current) in present {
            var next = snapshot.task
            next.dependsOn = try existing(next.dependsOn, restoring: snapshots)
            next.version = current.version
            next.updatedAt = current.updatedAt
            guard !next.isIdentical(to: current) else { continue }
            try self.snapshot(next.id, group: group)
            next = try next.atNextVersion(changedAt: now)
            try replace(next.id, with: next, dueAt: snapshot.dueAt, waitAt: snapshot.waitAt, current: current)
            changes.append(try log(.updated, task: next))
            if !TaskItem.identical(next.dependsOn, current.dependsOn) { dependenciesChanged.append(next.id) }
        }
        // Which next occurrence it made is part of its state: §4's one per occurrence holds.
        // Only an occurrence of a series can have made one that outlives the reversal.
        for task in tasks {
            guard let snapshot = snapshots[Array(task.id.utf8)], snapshot.task.seriesId != nil else { continue }
            try connection.run(
                "UPDATE task SET successor_id = $1 WHERE id = $2 AND successor_id IS DISTINCT FROM $1",
                [PostgresValue(snapshot.successor), .text(task.id)])
        }
        for id in dependenciesChanged {
            if let cycle = try cycle(from: id) { throw TaskStoreError.dependencyCycle(ids: cycle) }
        }
        try recountBlockers(of: dependenciesChanged)
        return changes
    }

    /// The ids among `ids` of tasks that exist, or that the reversal brings back (`snapshots`).
    private func existing(_ ids: [String], restoring snapshots: [[UInt8]: Snapshot]) throws -> [String] {
        let missing = ids.filter { snapshots[Array($0.utf8)] == nil }
        guard !missing.isEmpty else { return ids }
        let present = Set(
            try connection.query("SELECT id FROM task WHERE id = ANY(string_to_array($1, chr(31)))", [TaskRow.list(missing)])
                .map { Array(try $0.text("id").utf8) })
        return ids.filter { snapshots[Array($0.utf8)] != nil || present.contains(Array($0.utf8)) }
    }

    /// The version task `id` was last deleted at, if the log holds its deletion.
    private func versionDeleted(id: String) throws -> Int64? {
        try connection.query(
            "SELECT version FROM change_log WHERE task_id = $1 AND kind = 'deleted' ORDER BY seq DESC LIMIT 1",
            [.text(id)]
        ).first.map { try $0.int64("version") }
    }

    /// `changes` with each task as the last of them left it, as a reader of the log finds it.
    private static func withTasksAsTheyAre(_ changes: [TaskChange]) -> [TaskChange] {
        var last: [[UInt8]: TaskItem?] = [:]
        for change in changes { last[Array(change.id.utf8)] = change.kind == .deleted ? nil : change.task }
        return changes.map { change in
            var change = change
            if change.kind != .deleted { change.task = last[Array(change.id.utf8)] ?? nil }
            return change
        }
    }
}
