import TaskModel

/// What undo and redo decide the same way on every store: which tasks a group changed, and
/// whether reverting it meets a conflict.

/// One task a change group changed.
package struct GroupTask: Sendable {
    package var id: String
    /// Its first change in the group created it: before the group it did not exist, whatever
    /// the group did to it after.
    package var created: Bool

    /// The tasks of a group's changes, read in seq order: each once, in the order of its
    /// first change.
    package struct Collector {
        package private(set) var tasks: [GroupTask] = []
        private var index: [[UInt8]: Int] = [:]  // by bytes: Swift's == holds canonically equivalent ids equal

        package init() {}

        package mutating func add(kind: TaskChange.Kind, id: String) {
            guard index[Array(id.utf8)] == nil else { return }
            index[Array(id.utf8)] = tasks.count
            tasks.append(GroupTask(id: id, created: kind == .created))
        }
    }

    /// Each task's state before the group, from the snapshots a store took before each task's
    /// first change in the group: none for a task the group created (a later change of it in
    /// the same group snapshots what the creation made, which is not the state before).
    package static func statesBefore<Snapshot>(_ tasks: [GroupTask], snapshots: [[UInt8]: Snapshot]) -> [[UInt8]: Snapshot] {
        var before = snapshots
        for task in tasks where task.created { before[Array(task.id.utf8)] = nil }
        return before
    }

    /// The undo conflict reverting the group of `tasks` meets, if any: some of them changed
    /// after it, other than by groups that later reversals cancel out, as the log after the
    /// group tells (`changedSince`: those among them that a change counts for, by
    /// `LaterGroups.counts`), since every change is logged, also another program's that kept
    /// the version; or an occurrence it would bring back (`before`: its state before the
    /// group) was made by an occurrence that has made another next occurrence since, one the
    /// reversal keeps (`makerMovedOn`: the maker and the id of the occurrence it made last),
    /// and bringing it back would give that one two. `load` reads a task as it is now.
    package static func conflict(
        of tasks: [GroupTask], before: ([UInt8]) -> TaskItem?, load: (String) throws -> TaskItem?,
        changedSince: (Set<[UInt8]>) throws -> Set<[UInt8]>,
        makerMovedOn: (_ id: String, _ series: String) throws -> (maker: TaskItem, made: String)?
    ) throws -> TaskStoreError? {
        let created = Set(tasks.filter(\.created).map { Array($0.id.utf8) })
        let changed = try changedSince(Set(tasks.map { Array($0.id.utf8) }))
        var now: [TaskItem] = []
        var gone: [String] = []
        for task in tasks where changed.contains(Array(task.id.utf8)) {
            if let current = try load(task.id) { now.append(current) } else { gone.append(task.id) }
        }
        for task in tasks where !changed.contains(Array(task.id.utf8)) {
            guard let state = before(Array(task.id.utf8)), let series = state.seriesId, !series.utf8.elementsEqual(state.id.utf8),
                try load(task.id) == nil, let (maker, made) = try makerMovedOn(task.id, series), !created.contains(Array(made.utf8)),
                !now.contains(where: { $0.id.utf8.elementsEqual(maker.id.utf8) })
            else { continue }
            now.append(maker)
        }
        return now.isEmpty && gone.isEmpty ? nil : .undoConflict(tasks: now, deleted: gone)
    }
}

/// The change groups logged after the group an undo or a redo reverts, which tell whether a
/// later change counts as a change of its tasks: groups that a chain of later reversals
/// cancels (a group, its undo, that undo's redo, … when there is an even number of them)
/// do not count; any other change does, also one in no group (another program's).
package struct LaterGroups {
    package struct Group {
        package var first: Int64
        package var last: Int64
        /// The group it reverts, for an undo or a redo.
        package var reverts: Int64?

        package init(first: Int64, last: Int64, reverts: Int64?) {
            self.first = first
            self.last = last
            self.reverts = reverts
        }
    }

    /// In the order of their first seqs.
    private let groups: [Group]
    private let cancelled: Set<Int64>

    /// `groups`: every group after the reverted one, in seq order.
    package init(_ groups: [Group]) {
        self.groups = groups
        let later = Set(groups.map(\.first))
        var revertedBy: [Int64: Int64] = [:]
        for group in groups { if let target = group.reverts, later.contains(target) { revertedBy[target] = group.first } }
        var cancelled: Set<Int64> = []
        for group in groups where !(group.reverts.map(later.contains) ?? false) {
            var chain = [group.first]
            while let next = revertedBy[chain[chain.count - 1]] { chain.append(next) }
            if chain.count % 2 == 0 { cancelled.formUnion(chain) }
        }
        self.cancelled = cancelled
    }

    /// Whether the change at `seq` counts as a change of its task.
    package func counts(_ seq: Int64) -> Bool {
        // The last group that starts at or before the change.
        var low = 0
        var high = groups.count
        while low < high {
            let middle = (low + high) / 2
            if groups[middle].first <= seq { low = middle + 1 } else { high = middle }
        }
        let inGroup = low > 0 && groups[low - 1].last >= seq
        return !inGroup || !cancelled.contains(groups[low - 1].first)
    }
}
