/// What undo and redo decide the same way on every store: which tasks a group changed, and
/// whether reverting it meets a conflict.

/// One task a change group changed.
package struct GroupTask: Sendable {
    package var id: String
    /// Its last change in the group deleted it.
    package var deleted: Bool
    /// Its version after the group (a deletion's: the version it was deleted at).
    package var version: Int64

    /// The tasks of a group's changes, read in seq order: each once, in the order of its
    /// first change, as its last change left it.
    package struct Collector {
        package private(set) var tasks: [GroupTask] = []
        private var index: [[UInt8]: Int] = [:]  // by bytes: Swift's == holds canonically equivalent ids equal

        package init() {}

        package mutating func add(kind: TaskChange.Kind, id: String, version: Int64) {
            let task = GroupTask(id: id, deleted: kind == .deleted, version: version)
            if let at = index[Array(id.utf8)] {
                tasks[at] = task
            } else {
                index[Array(id.utf8)] = tasks.count
                tasks.append(task)
            }
        }
    }

    /// The undo conflict reverting the group of `tasks` meets, if any: some of them changed
    /// after it, other than by groups that later reversals cancel out. A task is unchanged
    /// when it is as the group left it: absent after a deletion, otherwise at the version the
    /// group left it at and not deleted since (`deletedSince`); for the others, `changedSince`
    /// reads the log after the group and returns those among them that a change counts for
    /// (`LaterGroups.counts`). `load` reads a task as it is now.
    package static func conflict(
        of tasks: [GroupTask], load: (String) throws -> TaskItem?, deletedSince: (String) throws -> Bool,
        changedSince: (Set<[UInt8]>) throws -> Set<[UInt8]>
    ) throws -> TaskStoreError? {
        var suspects: Set<[UInt8]> = []
        for task in tasks {
            let current = try load(task.id)
            let unchanged = task.deleted ? current == nil : try current?.version == task.version && !deletedSince(task.id)
            if !unchanged { suspects.insert(Array(task.id.utf8)) }
        }
        guard !suspects.isEmpty else { return nil }
        let changed = try changedSince(suspects)
        guard !changed.isEmpty else { return nil }
        var now: [TaskItem] = []
        var gone: [String] = []
        for task in tasks where changed.contains(Array(task.id.utf8)) {
            if let current = try load(task.id) { now.append(current) } else { gone.append(task.id) }
        }
        return .undoConflict(tasks: now, deleted: gone)
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
        var low = 0, high = groups.count
        while low < high {
            let middle = (low + high) / 2
            if groups[middle].first <= seq { low = middle + 1 } else { high = middle }
        }
        let inGroup = low > 0 && groups[low - 1].last >= seq
        return !inGroup || !cancelled.contains(groups[low - 1].first)
    }
}
