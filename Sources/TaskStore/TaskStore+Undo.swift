import SQLite
import TaskEngine
import TaskModel

/// Undo and redo: change groups, each task's state before a group changed it (schema 20
/// says how they are stored), and the engine's reversal (`UndoDriver.revert`) over them.
extension TaskStore: UndoDriver {
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
        if group.markedAtEnd { return seq }
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

    /// A reversal's changes are marked as its group at the end, all in one statement: a
    /// group may hold thousands of them.
    package func recordingReversal<T>(of target: ChangeGroup, kind: ChangeGroup.Kind, _ body: (GroupRecorder) throws -> T) throws -> T {
        let group = GroupRecorder()
        group.markedAtEnd = true
        let first = try key(of: group)
        let value = try body(group)
        let last = try Schema.newestSeq(in: database)
        if last >= first { try markGroup(first: first, last: last) }
        try database.run(
            "INSERT INTO change_reversal (seq, kind, reverts) VALUES (?, ?, ?)",
            [last >= first ? .integer(first) : .null, .text(kind.rawValue), .integer(target.firstSeq)])
        return value
    }

    /// Read from the change log backwards, where a group's newest change is its last.
    package func newestGroup(to kind: ChangeGroup.Kind, scope: UndoScope) throws -> ChangeGroup? {
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
        guard
            let (first, last, groupOrigin, groupKind) = try database.cachedStatement(sql).firstRow(
                values,
                { row in
                    (row.int64(0), row.int64(1), row.int64(2), ChangeGroup.Kind(rawValue: row.text(3)) ?? .write)
                })
        else { return nil }
        let at = try database.integer("SELECT at FROM change WHERE seq = ?", [.integer(first)]) ?? 0
        return ChangeGroup(firstSeq: first, lastSeq: last, kind: groupKind, own: groupOrigin == origin, at: at)
    }

    package func tasks(of group: ChangeGroup) throws -> [GroupTask] {
        var tasks = GroupTask.Collector()
        try database.cachedStatement("SELECT kind, task_id FROM change WHERE seq BETWEEN ? AND ? ORDER BY seq")
            .forEachRow([.integer(group.firstSeq), .integer(group.lastSeq)]) { row in
                tasks.add(kind: TaskChange.Kind(rawValue: row.text(0)) ?? .updated, id: row.text(1))
            }
        return tasks.tasks
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

    /// One taken before snapshots kept `successor_id` has none.
    package func snapshots(of group: ChangeGroup) throws -> [[UInt8]: TaskSnapshot] {
        var snapshots: [[UInt8]: TaskSnapshot] = [:]
        let statement = try database.cachedStatement(Self.snapshotsSQL)
        let columns = statement.layout(SnapshotColumns.self)
        try statement.forEachRow([.integer(group.firstSeq)]) { row in
            let task = columns.task.task(in: row)
            snapshots[Array(task.id.utf8)] = TaskSnapshot(
                task: task, dueAt: row.optionalInt64(columns.dueAt), waitAt: row.optionalInt64(columns.waitAt),
                successor: row.int64(columns.successorKept) == 1 ? .some(row.optionalText(columns.successor)) : nil)
        }
        return snapshots
    }

    /// A successor's creation is logged just before its maker's completion (TaskEngine's
    /// `makeSuccessor`).
    package func makerMovedOn(id: String, series: String) throws -> (maker: TaskItem, made: String)? {
        try database.cachedStatement(
            """
            SELECT maker.id, maker.successor_id FROM change c JOIN task maker ON maker.id = c.task_id
            WHERE c.seq = (SELECT min(seq) FROM change WHERE task_id = ?1 AND kind = 'created') + 1
              AND c.kind = 'updated' AND maker.series_id = ?2 AND maker.successor_id <> ?1
              AND EXISTS (SELECT 1 FROM task made WHERE made.id = maker.successor_id)
            """
        ).firstRow([.text(id), .text(series)]) { ($0.text(0), $0.text(1)) }
            .flatMap { maker, made in try load(id: maker).map { ($0, made) } }
    }

    package func changedSince(_ after: Int64, among ids: Set<[UInt8]>) throws -> Set<[UInt8]> {
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

    package func versionDeleted(id: String) throws -> Int64? {
        try database.cachedStatement("SELECT version FROM change WHERE task_id = ? AND kind = 'deleted' ORDER BY seq DESC LIMIT 1")
            .firstRow([.text(id)]) { $0.int64(0) }
    }

    package func existing(_ ids: [String]) throws -> Set<[UInt8]> {
        let exists = try database.cachedStatement("SELECT 1 FROM task WHERE id = ?")
        return Set(try ids.filter { try exists.firstRow([.text($0)]) { _ in true } != nil }.map { Array($0.utf8) })
    }

    package func setSuccessor(of key: Int64, to successor: String?) throws {
        try database.cachedStatement("UPDATE task SET successor_id = ?1 WHERE pk = ?2 AND successor_id IS NOT ?1")
            .run([SQLValue(successor), .integer(key)])
    }

    package func clearDependencies(of key: Int64) throws {
        try database.run("DELETE FROM task_dependency WHERE task_pk = ?", [.integer(key)])
    }
}

/// A change group being written.
package final class GroupRecorder {
    /// The seq of its first change, once known (`TaskStore.key(of:)` knows it before that
    /// change is logged).
    var first: Int64?
    /// Its changes are marked together when it ends (`recordingReversal`), not one by one.
    var markedAtEnd = false
}
