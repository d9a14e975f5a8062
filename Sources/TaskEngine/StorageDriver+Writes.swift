import TaskModel

/// Writing tasks, on any store: each operation checked before the write lock is taken
/// (`PreparedOperation`), then run in a write transaction as one change group, in the order
/// protocol/methods.md §5 gives the errors.
extension StorageDriver {
    /// One write in its own transaction.
    package func performWrite(_ operation: TaskOperation) throws -> OperationOutcome {
        let prepared = try PreparedOperation(operation)
        return try writeTransaction(large: false) { try recordingGroup { try run(prepared, group: $0) } }
    }

    /// Independent writes committed together: one transaction, each in a savepoint and a
    /// change group of its own, so each fails alone and one sync to disk serves them all
    /// (group commit).
    package func performEachWrite(_ operations: [TaskOperation]) throws -> [Result<OperationOutcome, TaskStoreError>] {
        let prepared = operations.map(Self.prepare)
        return try writeTransaction(large: false) {
            try runEach(prepared, atomic: false, locatingFields: false, group: nil)
        }
    }

    /// `tasks/apply`: one transaction and one change group. `atomic`: all or none; the first
    /// failure undoes everything and is thrown as `operationFailed`. Otherwise each runs in a
    /// savepoint and fails alone. Every operation is checked before any runs, so a params
    /// error of any operation wins over what running an earlier one would report, and the
    /// first by index wins among them; an operation that could not be read comes as its
    /// `invalid` error. Field paths name the operation (`operations[2].update.changes.title`).
    package func applyWrites(
        _ operations: [Result<TaskOperation, TaskStoreError>], atomic: Bool
    ) throws -> [Result<OperationOutcome, TaskStoreError>] {
        let prepared = operations.enumerated().map { index, operation in
            operation.flatMap { operation in Self.prepare(operation).mapError { $0.located(in: operation.path(index: index)) } }
        }
        if atomic, let index = prepared.firstIndex(where: { (try? $0.get()) == nil }), case .failure(let error) = prepared[index] {
            throw TaskStoreError.operationFailed(index: index, error: error)
        }
        do {
            return try writeTransaction(large: prepared.count >= Self.largeWrite) {
                try recordingGroup { try runEach(prepared, atomic: atomic, locatingFields: true, group: $0) }
            }
        } catch TaskStoreError.operationFailed(let index, .versionConflict(let seen)) {
            // Seen inside the transaction just undone, perhaps after an earlier operation
            // changed the task: report the task as it is committed.
            let current = try committedTask(id: seen.id)
            throw TaskStoreError.operationFailed(index: index, error: current.map { .versionConflict(current: $0) } ?? .notFound(id: seen.id))
        }
    }

    private static func prepare(_ operation: TaskOperation) -> Result<PreparedOperation, TaskStoreError> {
        Result { try PreparedOperation(operation) }.mapError { $0 as? TaskStoreError ?? .invalid(field: "", reason: "\($0)") }
    }

    /// The operations inside the caller's transaction, in group `group`, or each in a group
    /// of its own when it is nil.
    private func runEach(
        _ prepared: [Result<PreparedOperation, TaskStoreError>], atomic: Bool,
        locatingFields: Bool, group: Group?
    ) throws -> [Result<OperationOutcome, TaskStoreError>] {
        try PreparedOperation.runEach(
            prepared, atomic: atomic, locatingFields: locatingFields,
            run: { operation in
                if let group { return try run(operation, group: group) }
                return try recordingGroup { try run(operation, group: $0) }
            }, isolated: { try savepoint($0) })
    }

    /// A checked operation inside the caller's transaction, as part of group `group`.
    private func run(_ operation: PreparedOperation, group: Group) throws -> OperationOutcome {
        switch operation.action {
        case .create(let draft, let id, let tags, let dueAt, let dependsOn, let waitAt):
            let now = now()
            let task = TaskItem(
                id: id, title: draft.title, notes: draft.notes, done: draft.done, priority: draft.priority,
                tags: tags, due: draft.due, project: draft.project, dependsOn: dependsOn, wait: draft.wait, meta: draft.meta,
                recurrence: draft.recurrence, seriesId: draft.recurrence == nil ? nil : id,
                createdAt: now, updatedAt: now, completedAt: draft.done ? now : nil, version: 1, remindAt: draft.remindAt,
                annotations: draft.annotationsMade(at: now), startedAt: draft.startedAt)
            // The task itself first (1003), then its dependencies (§5's order of errors).
            guard let key = try insert(task, dueAt: dueAt, waitAt: waitAt) else { throw TaskStoreError.alreadyExists(id: id) }
            try writeDependencies(of: key, requested: draft.dependsOn, field: "dependsOn")
            // Nothing depends on a new task: the one cycle it can close is through itself.
            if dependsOn.contains(where: { $0.utf8.elementsEqual(id.utf8) }) { throw TaskStoreError.dependencyCycle(ids: [id]) }
            return OperationOutcome(result: .task(task), change: try logged(.created, task: task, group: group))

        case .update(let id, let changes, let tags, let dueAt, let dependsOn, let waitAt, let ifVersion):
            guard let (key, current) = try loadForWrite(id: id) else { throw TaskStoreError.notFound(id: id) }
            if let ifVersion, ifVersion != current.version { throw TaskStoreError.versionConflict(current: current) }
            let now = now()
            var next = try current.changed(by: changes, tags: tags, dependsOn: dependsOn, now: now)
            try next.keepSeries(changes: changes)
            guard !next.isIdentical(to: current) else { return OperationOutcome(result: .task(current), change: nil) }
            if next.done != current.done { next.completedAt = next.done ? now : nil }
            next = try next.atNextVersion(changedAt: now)
            try snapshot(key, group: group)
            // Logged before the completion that made it, which undo's conflict rule reads.
            let successor = next.done && !current.done ? try makeSuccessor(of: next, key: key, at: now, group: group) : nil
            try replace(
                key, with: next, dueAt: dueAt ?? current.storedTime(current.due),
                waitAt: waitAt ?? current.storedTime(current.wait), current: current)
            if let requested = changes.dependsOn, !TaskItem.identical(next.dependsOn, current.dependsOn) {
                try replaceDependencies(of: key, requested: requested, field: "changes.dependsOn")
            }
            return OperationOutcome(
                result: .task(next), change: try logged(.updated, task: next, group: group),
                otherChanges: successor.map { [$0] } ?? [])

        case .delete(let id, let ifVersion):
            guard let (key, current) = try loadForWrite(id: id) else { throw TaskStoreError.notFound(id: id) }
            if let ifVersion, ifVersion != current.version { throw TaskStoreError.versionConflict(current: current) }
            let (change, dependents) = try delete(key, task: current, group: group)
            return OperationOutcome(result: .deleted(id: id), change: change, otherChanges: dependents)
        }
    }

    /// Deletes row `key`, which holds `task`, taking it out of every task that depends on it
    /// but those in `sparing` (which the caller deletes next), in group `group`; returns the
    /// deletion's change and the dependents' updates, logged before it.
    package func delete(
        _ key: RowKey, task: TaskItem, group: Group, sparing: Set<[UInt8]> = []
    ) throws -> (change: TaskChange, dependents: [TaskChange]) {
        try snapshot(key, group: group)
        let dependents = try removeFromDependents(of: key, id: task.id, group: group, sparing: sparing)
        try delete(key)
        return (try logged(.deleted, id: task.id, version: task.version, task: nil, group: group), dependents)
    }

    /// Takes task `id` (row `key`) out of every task that depends on it but those in
    /// `sparing`, each at its next version; returns those updates' changes, in id order (§5).
    private func removeFromDependents(of key: RowKey, id: String, group: Group, sparing: Set<[UInt8]>) throws -> [TaskChange] {
        let dependents = try dependents(of: key).filter { !sparing.contains(Array($0.task.id.utf8)) }
        guard !dependents.isEmpty else { return [] }
        try snapshotDependents(of: key, group: group)
        try dropDependencies(on: key)
        let now = now()
        return try dependents.map { dependent, current in
            var next = try current.atNextVersion(changedAt: now)
            next.dependsOn.removeAll { $0.utf8.elementsEqual(id.utf8) }
            try replace(
                dependent, with: next, dueAt: try current.storedTime(current.due), waitAt: try current.storedTime(current.wait),
                current: current)
            return try logged(.updated, task: next, group: group)
        }
    }

    /// Creates the next occurrence of `task` (row `key`), just completed, and returns its
    /// change; nil when the task does not recur, its rule makes no further occurrence, or the
    /// next occurrence it made before still exists (it was completed, reopened, and is
    /// completed again; one deleted since, or undone, is made anew).
    private func makeSuccessor(of task: TaskItem, key: RowKey, at now: Int64, group: Group) throws -> TaskChange? {
        guard let rule = task.recurrence else { return nil }
        let parsed: RecurrenceRule
        do {
            parsed = try RecurrenceRule(rule, field: "recurrence.rule")
        } catch {
            throw TaskStoreError.outOfRange(
                "task \(task.id)'s stored recurrence \(rule) is not a rule Taskline reads: its stored data is out of range (see taskline check)")
        }
        guard let successor = task.successor(by: parsed, id: TaskItem.newID(), at: now),
            try claimSuccessor(of: key, successor: successor.id)
        else { return nil }
        guard try insert(successor, dueAt: try successor.storedTime(successor.due), waitAt: nil) != nil else {
            throw TaskStoreError.alreadyExists(id: successor.id)
        }
        return try logged(.created, task: successor, group: group)
    }
}
