import SQLite
import TaskModel

/// Undo and redo: change groups, each task's state before a group changed it, and reverting
/// a group as a new group (schema 20 says how they are stored).
///
/// Undo reverts the newest group of the scope that is a write or a redo and not reverted
/// yet; redo reverts the newest undo of the scope that is not reverted yet and is newer than
/// the scope's newest write, so that a new write ends what can be redone. Undoing an undo is
/// a redo, and a redo can be undone again, as in an editor.
extension TaskStore {
    public func undo(scope: UndoScope = .connection, force: Bool = false) throws -> Reversal? {
        try revert(.undo, scope: scope, force: force)
    }

    public func redo(scope: UndoScope = .connection, force: Bool = false) throws -> Reversal? {
        try revert(.redo, scope: scope, force: force)
    }

    // MARK: Recording

    /// Runs `body` inside the caller's transaction or savepoint as one change group by this
    /// store's origin: each change it logs is marked with the group (`markedSeq`).
    package func recordingGroup<T>(_ body: (GroupRecorder) throws -> T) throws -> T {
        let group = GroupRecorder()
        let value = try body(group)
        if firstOwnGroup == nil, let first = group.first { firstOwnGroup = first }
        return value
    }

    /// The seq of the change a write just logged (`loggedSeq`), marked as one of `group`'s.
    /// `markedByInsert`: the change is a creation by this store, which the insert trigger
    /// marked as starting a group (schema 20); as the group's first change it needs no more.
    /// Otherwise the mark rewrites the row, on a page the commit writes anyway (marking it in
    /// the statement that reads its seq, UPDATE … RETURNING, cost more than two statements).
    func markedSeq(_ group: GroupRecorder, markedByInsert: Bool = false) throws -> Int64 {
        let seq = try loggedSeq()
        if markedByInsert, group.first == nil {
            group.first = seq
            return seq
        }
        let first = group.first ?? seq
        try database.cachedStatement("UPDATE change SET group_first = ?, group_origin = ? WHERE seq = ?")
            .run([.integer(first), .integer(origin), .integer(seq)])
        group.first = first
        return seq
    }

    /// Marks the changes from seq `first` through `last` as one group of this store's: those
    /// a reversal wrote row by row.
    private func markGroup(first: Int64, last: Int64) throws {
        try database.run(
            "UPDATE change SET group_first = ?, group_origin = ? WHERE seq BETWEEN ? AND ?",
            [.integer(first), .integer(origin), .integer(first), .integer(last)])
        if firstOwnGroup == nil { firstOwnGroup = first }
    }

    /// The group's key, the seq of its first change, for the snapshots taken before that
    /// change is logged: SQLite numbers a change after the largest seq in the log, and the
    /// write lock keeps other writers out until the transaction ends. A savepoint that is
    /// rolled back frees its seqs for the next operation of the group, so the key holds.
    func key(of group: GroupRecorder) throws -> Int64 {
        if let first = group.first { return first }
        let first = try Schema.newestSeq(in: database) &+ 1
        group.first = first
        return first
    }

    package func snapshot(_ key: Int64, group: GroupRecorder) throws {
        try database.cachedStatement(Self.snapshotSQL).run([.integer(try self.key(of: group)), .integer(key)])
    }

    package func snapshotDependents(of key: Int64, group: GroupRecorder) throws {
        try database.cachedStatement(Self.snapshotDependentsSQL).run([.integer(try self.key(of: group)), .integer(key)])
    }

    /// A task's row as a JSON object keyed by column name. An object rather than a copy of
    /// the task table's columns: a column that a later schema adds goes into the object
    /// without a change to change_before, and an object written before it reads as the
    /// column's default. The instants (`due_at`, `wait_at`) are kept as stored, so that a
    /// restore writes back what the row held.
    private static let snapshotObject = """
        json_object('id', id, 'title', title, 'notes', notes, 'done', done, 'priority', priority, 'tags', tags,
                    'due', due, 'due_at', due_at, 'project', project, 'depends_on', depends_on, 'wait', wait,
                    'wait_at', wait_at, 'meta', meta, 'created_at', created_at, 'updated_at', updated_at,
                    'completed_at', completed_at, 'version', version, 'recurrence', recurrence, 'series_id', series_id,
                    'remind', remind, 'successor_id', successor_id, 'annotations', annotations, 'started_at', started_at)
        """
    private static let snapshotSQL =
        "INSERT OR IGNORE INTO change_before (group_seq, task_id, task) SELECT ?, id, \(snapshotObject) FROM task WHERE pk = ?"
    private static let snapshotDependentsSQL = """
        INSERT OR IGNORE INTO change_before (group_seq, task_id, task) SELECT ?, id, \(snapshotObject) FROM task
        WHERE pk IN (SELECT task_pk FROM task_dependency WHERE depends_on_pk = ?)
        """

    /// The snapshots of group `?`, in `TaskColumns`' names, with the stored instants.
    private static let snapshotsSQL = """
        SELECT NULL AS pk, task ->> 'id' AS id, task ->> 'title' AS title, task ->> 'notes' AS notes,
               task ->> 'done' AS done, task ->> 'priority' AS priority, task ->> 'tags' AS tags, task ->> 'due' AS due,
               task ->> 'due_at' AS due_at, task ->> 'project' AS project, task ->> 'depends_on' AS depends_on,
               task ->> 'wait' AS wait, task ->> 'wait_at' AS wait_at, task ->> 'meta' AS meta,
               task ->> 'created_at' AS created_at, task ->> 'updated_at' AS updated_at,
               task ->> 'completed_at' AS completed_at, task ->> 'version' AS version,
               task ->> 'recurrence' AS recurrence, task ->> 'series_id' AS series_id, task ->> 'remind' AS remind,
               task ->> 'successor_id' AS successor_id, json_type(task, '$.successor_id') IS NOT NULL AS successor_kept,
               coalesce(task ->> 'annotations', '') AS annotations, task ->> 'started_at' AS started_at
        FROM change_before WHERE group_seq = ?
        """

    /// Removes what belongs to the groups whose changes pruning removed (all or some of them)
    /// through `seq`; the marks went with the changes.
    func pruneGroups(through seq: Int64) throws {
        try database.run("DELETE FROM change_before WHERE group_seq <= ?", [.integer(seq)])
        try database.run("DELETE FROM change_reversal WHERE seq <= ?1 OR (seq IS NULL AND reverts <= ?1)", [.integer(seq)])
    }

    // MARK: Reverting

    private func revert(_ kind: ChangeGroup.Kind, scope: UndoScope, force: Bool) throws -> Reversal? {
        try translatingSQLiteErrors {
            // A group may hold thousands of changes.
            try withBulkWriteSettings {
                try writeTransaction {
                    guard let target = try newestGroup(to: kind, scope: scope) else { return nil }
                    let tasks = try tasks(of: target)
                    let before = try rows(of: tasks)
                    let snapshots = GroupTask.statesBefore(tasks, snapshots: try snapshots(of: target))
                    if !force, let conflict = try conflict(with: target, tasks: tasks, rows: before, snapshots: snapshots) { throw conflict }
                    let group = GroupRecorder()
                    let first = try key(of: group)
                    try restore(tasks, to: snapshots, rows: before, group: group)
                    let last = try Schema.newestSeq(in: database)
                    if last >= first { try markGroup(first: first, last: last) }
                    try database.run(
                        "INSERT INTO change_reversal (seq, kind, reverts) VALUES (?, ?, ?)",
                        [last >= first ? .integer(first) : .null, .text(kind.rawValue), .integer(target.seq)])
                    var reversal = Reversal(group: try describe(target), tasks: [], deleted: [], changes: [])
                    if last >= first { reversal.changes = try changes(from: first, through: last) }
                    // Each change carries its task as it is now; a task the reversal left alone is
                    // as it was loaded before.
                    var changed: [[UInt8]: TaskItem?] = [:]
                    for change in reversal.changes { changed[Array(change.id.utf8)] = change.task }
                    for task in tasks {
                        let id = Array(task.id.utf8)
                        let now = changed[id] ?? before[id]?.task
                        if let now { reversal.tasks.append(now) } else { reversal.deleted.append(task.id) }
                    }
                    return reversal
                }
            }
        }
    }

    /// A group as the change log marks it.
    private struct StoredGroup {
        var seq: Int64
        var lastSeq: Int64
        var origin: Int64
        var kind: ChangeGroup.Kind
    }

    /// The group that an undo (`kind` .undo) or a redo reverts in `scope`, if any: read from
    /// the change log backwards, where a group's newest change is its last. A group pruning
    /// cut into is none.
    private func newestGroup(to kind: ChangeGroup.Kind, scope: UndoScope) throws -> StoredGroup? {
        var mine = ""
        var bound: Int64 = 0
        if scope == .connection {
            mine = "AND c.group_origin = ?1 AND c.seq >= ?2"
            if origin != WriteOrigin.commandLine {
                guard let first = firstOwnGroup else { return nil }
                bound = first
            }
        }
        let notReverted = "NOT EXISTS (SELECT 1 FROM change_reversal x WHERE x.reverts = coalesce(c.group_first, c.seq))"
        let sql =
            kind == .undo
            ? """
            SELECT coalesce(c.group_first, c.seq), c.seq, c.group_origin, coalesce(r.kind, 'write') FROM change c
            LEFT JOIN change_reversal r ON r.seq = coalesce(c.group_first, c.seq)
            WHERE c.group_origin IS NOT NULL \(mine) AND coalesce(c.group_first, c.seq) > ?3
              AND (r.kind IS NULL OR r.kind = 'redo') AND \(notReverted)
            ORDER BY c.seq DESC LIMIT 1
            """
            : """
            SELECT coalesce(c.group_first, c.seq), c.seq, c.group_origin, r.kind FROM change c
            JOIN change_reversal r ON r.seq = coalesce(c.group_first, c.seq)
            WHERE c.group_origin IS NOT NULL \(mine) AND coalesce(c.group_first, c.seq) > ?3 AND r.kind = 'undo' AND \(notReverted)
              AND c.seq > coalesce((SELECT c.seq FROM change c WHERE c.group_origin IS NOT NULL \(mine)
                                    AND NOT EXISTS (SELECT 1 FROM change_reversal r WHERE r.seq = coalesce(c.group_first, c.seq))
                                    ORDER BY c.seq DESC LIMIT 1), 0)
            ORDER BY c.seq DESC LIMIT 1
            """
        let values: [SQLValue] = [.integer(origin), .integer(bound), .integer(try Schema.prunedThrough(in: database))]
        return try database.cachedStatement(sql).firstRow(values) { row in
            StoredGroup(
                seq: row.int64(0), lastSeq: row.int64(1), origin: row.int64(2),
                kind: ChangeGroup.Kind(rawValue: row.text(3)) ?? .write)
        }
    }

    private func describe(_ group: StoredGroup) throws -> ChangeGroup {
        let at = try database.integer("SELECT at FROM change WHERE seq = ?", [.integer(group.seq)]) ?? 0
        return ChangeGroup(firstSeq: group.seq, lastSeq: group.lastSeq, kind: group.kind, own: group.origin == origin, at: at)
    }

    /// The tasks `group` changed, in the order of their first change in it.
    private func tasks(of group: StoredGroup) throws -> [GroupTask] {
        var tasks = GroupTask.Collector()
        try database.cachedStatement("SELECT kind, task_id FROM change WHERE seq BETWEEN ? AND ? ORDER BY seq")
            .forEachRow([.integer(group.seq), .integer(group.lastSeq)]) { row in
                tasks.add(kind: TaskChange.Kind(rawValue: row.text(0)) ?? .updated, id: row.text(1))
            }
        return tasks.tasks
    }

    /// A task as it was before a group, with its stored instants.
    private struct Snapshot {
        var task: TaskItem
        var dueAt: Int64?
        var waitAt: Int64?
        /// The next occurrence it had made (`successor_id`), when the snapshot kept it: one
        /// taken before snapshots did has none, and the row's is left as it is.
        var successor: String??
    }

    private struct SnapshotColumns: RowLayout {
        let task: TaskColumns
        let dueAt, waitAt, successor, successorKept: Int32

        init(_ statement: Statement) {
            task = TaskColumns(statement)
            dueAt = statement.columnIndex("due_at")
            waitAt = statement.columnIndex("wait_at")
            successor = statement.columnIndex("successor_id")
            successorKept = statement.columnIndex("successor_kept")
        }
    }

    /// The states before `group` of the tasks it updated or deleted, by id bytes. A task it
    /// created has none: reverting the group deletes it.
    private func snapshots(of group: StoredGroup) throws -> [[UInt8]: Snapshot] {
        var snapshots: [[UInt8]: Snapshot] = [:]
        let statement = try database.cachedStatement(Self.snapshotsSQL)
        let columns = statement.layout(SnapshotColumns.self)
        try statement.forEachRow([.integer(group.seq)]) { row in
            let task = columns.task.task(in: row)
            snapshots[Array(task.id.utf8)] = Snapshot(
                task: task, dueAt: row.optionalInt64(columns.dueAt),
                waitAt: row.optionalInt64(columns.waitAt),
                successor: row.int64(columns.successorKept) == 1 ? .some(row.optionalText(columns.successor)) : nil)
        }
        return snapshots
    }

    /// Tasks with their rows' keys, by id bytes.
    private typealias Rows = [[UInt8]: (key: Int64, task: TaskItem)]

    /// The rows of `tasks` that exist.
    private func rows(of tasks: [GroupTask]) throws -> Rows {
        var rows: Rows = [:]
        for task in tasks {
            if let row = try loadForWrite(id: task.id) { rows[Array(task.id.utf8)] = row }
        }
        return rows
    }

    /// The undo conflict `group` meets, if any (`GroupTask.conflict`); `rows`: its tasks as they
    /// are; `snapshots`: as they were before it.
    private func conflict(
        with group: StoredGroup, tasks: [GroupTask], rows: Rows,
        snapshots: [[UInt8]: Snapshot]
    ) throws -> TaskStoreError? {
        try GroupTask.conflict(
            of: tasks, before: { snapshots[$0]?.task }, load: { rows[Array($0.utf8)]?.task },
            changedSince: { try changedSince(group.lastSeq, among: $0) },
            makerMovedOn: { id, series in
                // A successor's creation is logged just before its maker's completion (`makeSuccessor`).
                try database.cachedStatement(
                    """
                    SELECT maker.id, maker.successor_id FROM change c JOIN task maker ON maker.id = c.task_id
                    WHERE c.seq = (SELECT min(seq) FROM change WHERE task_id = ?1 AND kind = 'created') + 1
                      AND c.kind = 'updated' AND maker.series_id = ?2 AND maker.successor_id <> ?1
                      AND EXISTS (SELECT 1 FROM task made WHERE made.id = maker.successor_id)
                    """
                ).firstRow([.text(id), .text(series)]) { ($0.text(0), $0.text(1)) }
                    .flatMap { maker, made in try load(id: maker).map { ($0, made) } }
            })
    }

    /// The ids among `ids` that a change after seq `after` touched and counts for (`LaterGroups`).
    private func changedSince(_ after: Int64, among ids: Set<[UInt8]>) throws -> Set<[UInt8]> {
        var groups: [LaterGroups.Group] = []
        try database.cachedStatement(
            """
            SELECT coalesce(c.group_first, c.seq) AS first, max(c.seq), r.reverts FROM change c
            LEFT JOIN change_reversal r ON r.seq = coalesce(c.group_first, c.seq)
            WHERE c.seq > ? AND c.group_origin IS NOT NULL GROUP BY first ORDER BY first
            """
        )
        .forEachRow([.integer(after)]) { row in
            groups.append(LaterGroups.Group(first: row.int64(0), last: row.int64(1), reverts: row.isNull(2) ? nil : row.int64(2)))
        }
        let later = LaterGroups(groups)
        var changed: Set<[UInt8]> = []
        try database.cachedStatement("SELECT seq, task_id FROM change WHERE seq > ? ORDER BY seq").forEachRow([.integer(after)]) { row in
            let id = Array(row.text(1).utf8)
            guard ids.contains(id), !changed.contains(id) else { return }
            if later.counts(row.int64(0)) { changed.insert(id) }
        }
        return changed
    }

    /// Puts `tasks` back as `snapshots` hold them, in the caller's group `group`: deletes those
    /// that have none (the group created them), writes back the others, recreating those
    /// that are gone with their ids, and sets their dependencies last, once every task they
    /// name exists again. A dependency on a task that no longer exists is left out. Each task
    /// that changes is at its next version (a recreated one, past the version it was deleted
    /// at); one already as its snapshot is left alone. `rows`: the tasks' rows that exist.
    private func restore(
        _ tasks: [GroupTask], to snapshots: [[UInt8]: Snapshot],
        rows: Rows, group: GroupRecorder
    ) throws {
        let now = clock()
        // Rows are written in the order of their keys: FTS5 writes the terms it holds out as
        // a segment whenever a row's key is below the previous one's, so writes in random
        // order would cost the text index a segment each.
        var created: [(key: Int64, task: TaskItem)] = []
        for task in tasks where snapshots[Array(task.id.utf8)] == nil {
            if let row = rows[Array(task.id.utf8)] { created.append(row) }
        }
        // Those it deletes too keep the dependency to the end: it goes with them, unlogged, and
        // each is kept as it was before any of them goes.
        let deleting = Set(created.map { Array($0.task.id.utf8) })
        created.sort { $0.key < $1.key }
        for (pk, _) in created { try snapshot(pk, group: group) }
        for (pk, task) in created { _ = try delete(pk, task: task, group: group, sparing: deleting) }
        // A deletion took the task out of its dependents' dependencies, a new version of each.
        let rows = created.isEmpty ? rows : try self.rows(of: tasks)
        var restored: [(pk: Int64, snapshot: Snapshot, current: TaskItem?)] = []
        for task in tasks {
            guard let snapshot = snapshots[Array(task.id.utf8)] else { continue }
            if let (pk, current) = rows[Array(task.id.utf8)] {
                restored.append((pk, snapshot, current))
                continue
            }
            var row = snapshot.task
            row.dependsOn = []
            row.version = max(row.version, try versionDeleted(id: task.id) ?? row.version)
            row = try row.atNextVersion(changedAt: now)
            guard let pk = try insertRow(row, dueAt: snapshot.dueAt, waitAt: snapshot.waitAt, origin: origin) else { continue }
            restored.append((pk, snapshot, nil))
        }
        let exists = try database.cachedStatement("SELECT 1 FROM task WHERE id = ?")
        var dependencies: [(pk: Int64, ids: [String])] = []
        for (pk, snapshot, current) in restored.sorted(by: { $0.pk < $1.pk }) {
            let wanted = try snapshot.task.dependsOn.filter { try exists.firstRow([.text($0)]) { _ in true } != nil }
            if let current {
                var next = snapshot.task
                next.dependsOn = wanted
                next.version = current.version
                next.updatedAt = current.updatedAt
                if !next.isIdentical(to: current) {
                    try self.snapshot(pk, group: group)
                    try replace(
                        pk, with: try next.atNextVersion(changedAt: now), dueAt: snapshot.dueAt,
                        waitAt: snapshot.waitAt, current: current)
                }
            }
            if !TaskItem.identical(wanted, current?.dependsOn ?? []) { dependencies.append((pk, wanted)) }
            // Which next occurrence it made is part of its state: §4's one per occurrence holds.
            // Only an occurrence of a series can have made one that outlives the reversal.
            if let successor = snapshot.successor, snapshot.task.seriesId != nil {
                try database.cachedStatement("UPDATE task SET successor_id = ?1 WHERE pk = ?2 AND successor_id IS NOT ?1")
                    .run([SQLValue(successor), .integer(pk)])
            }
        }
        // All taken out first: tasks that swapped who depends on whom close no cycle midway.
        for (pk, _) in dependencies { try database.run("DELETE FROM task_dependency WHERE task_pk = ?", [.integer(pk)]) }
        for (pk, ids) in dependencies { try setDependencies(of: pk, to: ids, field: "dependsOn") }
    }

    /// The version task `id` was last deleted at, if the log holds its deletion.
    private func versionDeleted(id: String) throws -> Int64? {
        try database.cachedStatement("SELECT version FROM change WHERE task_id = ? AND kind = 'deleted' ORDER BY seq DESC LIMIT 1")
            .firstRow([.text(id)]) { $0.int64(0) }
    }

    /// The changes from seq `first` through `last`, each with its task as it is now.
    private func changes(from first: Int64, through last: Int64) throws -> [TaskChange] {
        var changes: [TaskChange] = []
        let statement = try database.cachedStatement(Self.changesSQL)
        let columns = statement.layout(ChangeColumns.self)
        try statement.forEachRow([.integer(first - 1), .integer(last - first + 1)]) { row in changes.append(columns.change(in: row)) }
        return changes
    }
}

/// A change group being written.
package final class GroupRecorder {
    /// The seq of its first change, once known (`TaskStore.key(of:)` knows it before that
    /// change is logged).
    var first: Int64?
}
