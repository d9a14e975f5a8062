import TaskModel

/// A task as it was before a change group, as the store kept it (`StorageDriver.snapshot`),
/// with the instants as stored, so that a restore writes back what the row held.
package struct TaskSnapshot {
    package var task: TaskItem
    package var dueAt: Int64?
    package var waitAt: Int64?
    /// The next occurrence it had made, when the snapshot kept it (nil: it did not, and the
    /// row's is left as it is).
    package var successor: String??

    package init(task: TaskItem, dueAt: Int64?, waitAt: Int64?, successor: String??) {
        self.task = task
        self.dueAt = dueAt
        self.waitAt = waitAt
        self.successor = successor
    }
}

/// What undo and redo ask of a store's database beyond the write primitives.
package protocol UndoDriver: StorageDriver where RowKey: Comparable {
    /// The group that an undo (`kind` .undo) or a redo reverts in `scope`, if any: undo
    /// reverts the newest group of the scope that is a write or a redo and not reverted yet;
    /// redo the newest undo of the scope that is not reverted yet and is newer than the
    /// scope's newest write. A group pruning cut into is none.
    func newestGroup(to kind: ChangeGroup.Kind, scope: UndoScope) throws -> ChangeGroup?
    /// The tasks `group` changed, in the order of their first change in it (`GroupTask.Collector`).
    func tasks(of group: ChangeGroup) throws -> [GroupTask]
    /// The snapshots the store took for `group`, by id bytes.
    func snapshots(of group: ChangeGroup) throws -> [[UInt8]: TaskSnapshot]
    /// The ids among `ids` that a change after seq `after` touched and counts for (`LaterGroups`).
    func changedSince(_ after: Int64, among ids: Set<[UInt8]>) throws -> Set<[UInt8]>
    /// For task `id` of series `series`, an occurrence that made it and has made another
    /// next occurrence since, one that exists: that maker and the id of what it made last.
    func makerMovedOn(id: String, series: String) throws -> (maker: TaskItem, made: String)?
    /// The version task `id` was last deleted at, if the log holds its deletion.
    func versionDeleted(id: String) throws -> Int64?
    /// The ids among `ids` of tasks that exist, by bytes.
    func existing(_ ids: [String]) throws -> Set<[UInt8]>
    /// Row `key` made `successor` as its next occurrence (nil: none).
    func setSuccessor(of key: RowKey, to successor: String?) throws
    /// Takes out every dependency of row `key`, before `replaceDependencies` sets them.
    func clearDependencies(of key: RowKey) throws
    /// Runs `body` as the change group of a reversal of `kind` that reverts `target`, and
    /// records that `target` is reverted.
    func recordingReversal<T>(of target: ChangeGroup, kind: ChangeGroup.Kind, _ body: (Group) throws -> T) throws -> T
}

/// Undo and redo, on any store: reverting a change group as a new group (protocol/methods-history.md
/// §5 gives the rules). Undoing an undo is a redo, and a redo can be undone again, as in an
/// editor.
extension UndoDriver {
    package func revert(_ kind: ChangeGroup.Kind, scope: UndoScope, force: Bool) throws -> Reversal? {
        try writeTransaction(large: true) {
            guard let target = try newestGroup(to: kind, scope: scope) else { return nil }
            let tasks = try tasks(of: target)
            var before: Rows = [:]
            for task in tasks {
                if let row = try loadForWrite(id: task.id) { before[Array(task.id.utf8)] = row }
            }
            let snapshots = GroupTask.statesBefore(tasks, snapshots: try snapshots(of: target))
            if !force,
                let conflict = try GroupTask.conflict(
                    of: tasks, before: { snapshots[$0]?.task }, load: { before[Array($0.utf8)]?.task },
                    changedSince: { try changedSince(target.lastSeq, among: $0) }, makerMovedOn: makerMovedOn)
            {
                throw conflict
            }
            let changes = try recordingReversal(of: target, kind: kind) { try restore(tasks, to: snapshots, rows: before, group: $0) }
            // Each change carries its task as the reversal left it; a task it left alone is
            // as it was loaded before.
            var reversal = Reversal(group: target, tasks: [], deleted: [], changes: Self.withTasksAsTheyAre(changes))
            var after: [[UInt8]: TaskItem?] = [:]
            for change in reversal.changes { after[Array(change.id.utf8)] = change.task }
            for task in tasks {
                let id = Array(task.id.utf8)
                if let now = after[id] ?? before[id]?.task { reversal.tasks.append(now) } else { reversal.deleted.append(task.id) }
            }
            return reversal
        }
    }

    /// Tasks with their rows' keys, by id bytes.
    private typealias Rows = [[UInt8]: (key: RowKey, task: TaskItem)]

    /// Puts `tasks` back as `snapshots` hold them, in the caller's group `group`, and returns
    /// the changes, in §6's order: deletes those that have none (the group created them),
    /// recreates those that are gone with their ids, then rewrites the others, in the order
    /// of their rows' keys (SQLite's text index then does work in proportion to the group),
    /// and sets dependencies last, once every task they name exists again. A dependency on
    /// a task that no longer exists is left out. Each task that changes is at its next
    /// version (a recreated one, past the version it was deleted at); one already as its
    /// snapshot is left alone. `rows`: the tasks' rows that exist.
    private func restore(_ tasks: [GroupTask], to snapshots: [[UInt8]: TaskSnapshot], rows: Rows, group: Group) throws -> [TaskChange] {
        var changes: [TaskChange] = []
        let created = tasks.compactMap { snapshots[Array($0.id.utf8)] == nil ? rows[Array($0.id.utf8)] : nil }
        // Those it deletes too keep the dependency to the end: it goes with them, unlogged,
        // and each is kept as it was before any of them goes.
        let deleting = Set(created.map { Array($0.task.id.utf8) })
        for (key, _) in created { try snapshot(key, group: group) }
        for (key, task) in created {
            let (change, dependents) = try delete(key, task: task, group: group, sparing: deleting)
            changes += dependents + [change]
        }
        // A deletion took the task out of its dependents' dependencies, a new version of each.
        var rows = rows
        if !created.isEmpty {
            for task in tasks { rows[Array(task.id.utf8)] = try loadForWrite(id: task.id) }
        }
        // A dependency is kept when its task exists now or the reversal brings it back.
        let present = try existing(tasks.flatMap { snapshots[Array($0.id.utf8)]?.task.dependsOn ?? [] })
        func wanted(_ snapshot: TaskSnapshot) -> [String] {
            snapshot.task.dependsOn.filter { snapshots[Array($0.utf8)] != nil || present.contains(Array($0.utf8)) }
        }
        let now = now()
        var restored: [(key: RowKey, snapshot: TaskSnapshot, current: TaskItem?)] = []
        for task in tasks {
            guard let snapshot = snapshots[Array(task.id.utf8)] else { continue }
            if let (key, current) = rows[Array(task.id.utf8)] {
                restored.append((key, snapshot, current))
                continue
            }
            var row = snapshot.task
            row.dependsOn = wanted(snapshot)
            row.version = max(row.version, try versionDeleted(id: task.id) ?? row.version)
            row = try row.atNextVersion(changedAt: now)
            guard let key = try insert(row, dueAt: snapshot.dueAt, waitAt: snapshot.waitAt) else { throw TaskStoreError.alreadyExists(id: row.id) }
            changes.append(try logged(.created, task: row, group: group))
            restored.append((key, snapshot, nil))
        }
        var dependencies: [(key: RowKey, ids: [String])] = []
        for (key, snapshot, current) in restored.sorted(by: { $0.key < $1.key }) {
            var next = snapshot.task
            next.dependsOn = wanted(snapshot)
            if let current {
                next.version = current.version
                next.updatedAt = current.updatedAt
                if !next.isIdentical(to: current) {
                    try self.snapshot(key, group: group)
                    next = try next.atNextVersion(changedAt: now)
                    try replace(key, with: next, dueAt: snapshot.dueAt, waitAt: snapshot.waitAt, current: current)
                    changes.append(try logged(.updated, task: next, group: group))
                }
            }
            if !TaskItem.identical(next.dependsOn, current?.dependsOn ?? []) { dependencies.append((key, next.dependsOn)) }
            // Which next occurrence it made is part of its state: §4's one per occurrence holds.
            // Only an occurrence of a series can have made one that outlives the reversal.
            if let successor = snapshot.successor, snapshot.task.seriesId != nil { try setSuccessor(of: key, to: successor) }
        }
        // All taken out first: tasks that swapped who depends on whom close no cycle midway.
        for (key, _) in dependencies { try clearDependencies(of: key) }
        for (key, ids) in dependencies { try replaceDependencies(of: key, requested: ids, field: "dependsOn") }
        return changes
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
