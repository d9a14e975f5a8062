import SQLite
import TaskModel

/// Writing tasks: each operation checked, then run in a transaction (or a savepoint of one)
/// that the change log's triggers record.
extension TaskStore {
    /// One write in its own transaction.
    public func perform(_ operation: TaskOperation) throws -> OperationOutcome {
        let prepared = try PreparedOperation(operation)
        return try translatingSQLiteErrors { try writeTransaction { try recordingGroup { try run(prepared, group: $0) } } }
    }

    /// Several writes in one transaction. `atomic`: all or none; the first failure undoes
    /// everything and is thrown as `operationFailed`. Otherwise each runs in a savepoint
    /// and fails alone, and the results say which failed. Field paths in params errors
    /// name the operation (`operations[2].update.changes.title`).
    public func apply(_ operations: [TaskOperation], atomic: Bool) throws -> [Result<OperationOutcome, TaskStoreError>] {
        try apply(operations.map { .success($0) }, atomic: atomic)
    }

    /// The same, where some operations could not be read: each of those comes as its
    /// `invalid` error, whose field path is complete, and fails as a checked operation does.
    /// Every operation is checked before any runs, so a params error of any operation wins
    /// over what running an earlier one would report, and the first by index wins among them.
    public func apply(_ operations: [Result<TaskOperation, TaskStoreError>], atomic: Bool) throws -> [Result<OperationOutcome, TaskStoreError>] {
        let prepared = operations.enumerated().map { index, operation in
            operation.flatMap { operation in
                Self.prepare(operation).mapError { $0.located(in: operation.path(index: index)) }
            }
        }
        if atomic, let index = prepared.firstIndex(where: { (try? $0.get()) == nil }), case .failure(let error) = prepared[index] {
            throw TaskStoreError.operationFailed(index: index, error: error)
        }
        // Past a few hundred operations, their pages no longer fit the usual cache.
        guard prepared.count >= 256 else { return try run(prepared, atomic: atomic, locatingFields: true) }
        return try withBulkWriteSettings { try run(prepared, atomic: atomic, locatingFields: true) }
    }

    /// Independent writes committed together: one transaction, each in a savepoint, so each
    /// fails alone and one sync to disk serves them all (group commit).
    public func performEach(_ operations: [TaskOperation]) throws -> [Result<OperationOutcome, TaskStoreError>] {
        try run(operations.map(Self.prepare), atomic: false, locatingFields: false, groupEach: true)
    }

    private static func prepare(_ operation: TaskOperation) -> Result<PreparedOperation, TaskStoreError> {
        do {
            return .success(try PreparedOperation(operation))
        } catch let error as TaskStoreError {
            return .failure(error)
        } catch {
            return .failure(.invalid(field: "", reason: "\(error)"))
        }
    }

    /// `locatingFields`: a params error found while running (an unknown dependency) names
    /// its operation, as `apply` reports them. `groupEach`: each operation is a change group
    /// of its own (a request of its own); otherwise all of them are one.
    private func run(
        _ prepared: [Result<PreparedOperation, TaskStoreError>], atomic: Bool,
        locatingFields: Bool, groupEach: Bool = false
    ) throws -> [Result<OperationOutcome, TaskStoreError>] {
        do {
            return try runInTransaction(prepared, atomic: atomic, locatingFields: locatingFields, groupEach: groupEach)
        } catch TaskStoreError.operationFailed(let index, .versionConflict(let seen)) {
            // The conflict was seen inside the transaction just undone, perhaps after an earlier
            // operation changed the task: report the task as it is committed.
            let current = try translatingSQLiteErrors { try load(id: seen.id) }
            throw TaskStoreError.operationFailed(index: index, error: current.map { .versionConflict(current: $0) } ?? .notFound(id: seen.id))
        }
    }

    private func runInTransaction(
        _ prepared: [Result<PreparedOperation, TaskStoreError>], atomic: Bool,
        locatingFields: Bool, groupEach: Bool
    ) throws -> [Result<OperationOutcome, TaskStoreError>] {
        try translatingSQLiteErrors {
            try writeTransaction {
                if groupEach { return try runEach(prepared, atomic: atomic, locatingFields: locatingFields, group: nil) }
                return try recordingGroup { try runEach(prepared, atomic: atomic, locatingFields: locatingFields, group: $0) }
            }
        }
    }

    /// The operations inside the caller's transaction, in the group `group`, or each in a
    /// group of its own when it is nil.
    private func runEach(
        _ prepared: [Result<PreparedOperation, TaskStoreError>], atomic: Bool,
        locatingFields: Bool, group: GroupRecorder?
    ) throws -> [Result<OperationOutcome, TaskStoreError>] {
        try PreparedOperation.runEach(
            prepared, atomic: atomic, locatingFields: locatingFields,
            run: { operation in
                if let group { return try self.run(operation, group: group) }
                return try recordingGroup { try self.run(operation, group: $0) }
            }, isolated: { try database.savepoint($0) })
    }

    /// Runs a checked operation inside the caller's transaction, as part of change group
    /// `group`. The change log rows are written by triggers (see `Schema`), so writers other
    /// than Taskline are recorded too.
    private func run(_ operation: PreparedOperation, group: GroupRecorder) throws -> OperationOutcome {
        switch operation.action {
        case .create(let draft, let id, let tags, let dueAt, let dependsOn, let waitAt):
            let now = clock()
            let task = TaskItem(
                id: id, title: draft.title, notes: draft.notes, done: draft.done, priority: draft.priority,
                tags: tags, due: draft.due, project: draft.project, dependsOn: dependsOn, wait: draft.wait, meta: draft.meta,
                recurrence: draft.recurrence, seriesId: draft.recurrence == nil ? nil : id,
                createdAt: now, updatedAt: now, completedAt: draft.done ? now : nil, version: 1, remindAt: draft.remindAt,
                annotations: draft.annotationsMade(at: now), startedAt: draft.startedAt)
            // The task itself first (1003), then its dependencies (§5's order of errors).
            guard let pk = try insertRow(task, dueAt: dueAt, waitAt: waitAt, origin: origin) else { throw TaskStoreError.alreadyExists(id: id) }
            let dependencies = try dependencyKeys(draft.dependsOn, field: "dependsOn")
            // Nothing depends on a new task: the one cycle it can close is through itself.
            if dependencies.contains(pk) { throw TaskStoreError.dependencyCycle(ids: [id]) }
            try insertDependencies(dependencies, taskPK: pk)
            return OperationOutcome(result: .task(task), change: try lastChange(.created, task: task, group: group, markedByInsert: true))

        case .update(let id, let changes, let tags, let dueAt, let dependsOn, let waitAt, let ifVersion):
            guard let (pk, current) = try loadWithKey(id: id) else { throw TaskStoreError.notFound(id: id) }
            if let ifVersion, ifVersion != current.version { throw TaskStoreError.versionConflict(current: current) }
            let now = clock()
            var next = try current.changed(by: changes, tags: tags, dependsOn: dependsOn, now: now)
            try next.keepSeries(changes: changes)
            guard !next.isIdentical(to: current) else { return OperationOutcome(result: .task(current), change: nil) }

            if next.done != current.done { next.completedAt = next.done ? now : nil }
            next = try next.atNextVersion(changedAt: now)
            try snapshot(taskPK: pk, group: try key(of: group))
            let successor = next.done && !current.done ? try makeSuccessor(of: next, pk: pk, at: now, group: group) : nil
            try replaceRow(
                pk: pk, with: next, dueAt: dueAt ?? storedTime(current.due, of: current),
                waitAt: waitAt ?? storedTime(current.wait, of: current), current: current)
            if let requested = changes.dependsOn, !TaskItem.identical(next.dependsOn, current.dependsOn) {
                try replaceDependencies(of: pk, with: requested, field: "changes.dependsOn")
            }
            return OperationOutcome(
                result: .task(next), change: try lastChange(.updated, task: next, group: group),
                otherChanges: successor.map { [$0] } ?? [])

        case .delete(let id, let ifVersion):
            guard let (pk, current) = try loadWithKey(id: id) else { throw TaskStoreError.notFound(id: id) }
            if let ifVersion, ifVersion != current.version { throw TaskStoreError.versionConflict(current: current) }
            try snapshot(taskPK: pk, group: try key(of: group))
            let dependents = try removeFromDependents(taskPK: pk, id: id, group: group)
            try database.run("DELETE FROM task WHERE pk = ?", [.integer(pk)])
            let change = TaskChange(seq: try markedSeq(group), kind: .deleted, id: id, version: current.version, task: nil)
            return OperationOutcome(result: .deleted(id: id), change: change, otherChanges: dependents)
        }
    }

    /// Runs `body` with a page cache of up to 256 MiB (used only as far as the write needs
    /// it), then restores the usual size: a write that touches more pages than the cache
    /// holds spills them to the WAL mid-transaction and reads them back, and with several
    /// indexes per task that starts at a few hundred tasks. (Statement journals are already
    /// in memory: see `StoreFile.configure`.)
    func withBulkWriteSettings<T>(_ body: () throws -> T) throws -> T {
        let cacheSize = try database.integer("PRAGMA cache_size") ?? -2000
        try database.execute("PRAGMA cache_size = -262144")
        defer { try? database.execute("PRAGMA cache_size = \(cacheSize)") }
        return try body()
    }

    /// Takes the task being deleted out of every task that depends on it, each at its next
    /// version, in change group `group`; returns those updates' changes, in id order (§5).
    /// The dependents in `sparing`, which the caller deletes next, get no update.
    func removeFromDependents(taskPK: Int64, id: String, group: GroupRecorder, sparing: Set<[UInt8]> = []) throws -> [TaskChange] {
        var dependents: [String] = []
        try database.cachedStatement("SELECT t.id FROM task_dependency d JOIN task t ON t.pk = d.task_pk WHERE d.depends_on_pk = ? ORDER BY t.id")
            .forEachRow([.integer(taskPK)]) { row in
                let dependent = row.text(0)
                if !sparing.contains(Array(dependent.utf8)) { dependents.append(dependent) }
            }
        guard !dependents.isEmpty else { return [] }
        try snapshotDependents(of: taskPK, group: try key(of: group))
        try database.run("DELETE FROM task_dependency WHERE depends_on_pk = ?", [.integer(taskPK)])
        let now = clock()
        var changes: [TaskChange] = []
        for dependentID in dependents {
            guard let (pk, current) = try loadWithKey(id: dependentID) else { continue }
            let next = try current.atNextVersion(changedAt: now)
            try replaceRow(
                pk: pk, with: next, dueAt: try storedTime(current.due, of: current),
                waitAt: try storedTime(current.wait, of: current), current: current)
            changes.append(try lastChange(.updated, task: next, group: group))
        }
        return changes
    }

    /// The row keys of the tasks `ids` name, in order; an unknown one is refused, naming its
    /// place in the request (`field[2]`).
    private func dependencyKeys(_ ids: [String], field: String) throws -> [Int64] {
        let statement = try database.cachedStatement("SELECT pk FROM task WHERE id = ?")
        return try ids.enumerated().map { index, id in
            guard let pk = try statement.firstRow([.text(id)], { $0.int64(0) }) else {
                throw TaskStoreError.invalid(field: "\(field)[\(index)]", reason: "no task has the id \(id)")
            }
            return pk
        }
    }

    /// The cycle that task `pk` depending on the tasks `keys` (`ids`) would close (see
    /// `DependencyGraph.shortestCycle`), or nil.
    private func cycle(through pk: Int64, dependingOn keys: [Int64], ids: [String]) throws -> [String]? {
        let dependencies = try database.cachedStatement(
            "SELECT d.depends_on_pk, t.id FROM task_dependency AS d JOIN task AS t ON t.pk = d.depends_on_pk WHERE d.task_pk = ?")
        let cycle = try DependencyGraph.shortestCycle(through: pk, dependingOn: Array(zip(keys, ids))) { task in
            var found: [(task: Int64, id: String)] = []
            try dependencies.forEachRow([.integer(task)]) { found.append(($0.int64(0), $0.text(1))) }
            return found
        }
        let idOf = try database.cachedStatement("SELECT id FROM task WHERE pk = ?")
        return try cycle?.map { key in try idOf.firstRow([.integer(key)]) { $0.text(0) } ?? "" }
    }

    /// Inserts `task` as it is, unless its id is taken; returns the new row's key, or nil when
    /// the id exists. The caller has checked the task (`dueAt` and `waitAt` are its due date
    /// and wait time in ms) and holds a write transaction; it writes the dependencies.
    /// `origin`: the change starts a group of that origin's (nil: none, as for an import).
    /// OR FAIL, with its triggers, keeps the statement from needing a statement journal
    /// (schema 36); the caller undoes its transaction or savepoint on any error.
    func insertRow(_ task: TaskItem, dueAt: Int64?, waitAt: Int64?, origin: Int64? = nil) throws -> Int64? {
        try database.run(
            """
            INSERT OR FAIL INTO task (id, title, title_fold, notes, notes_fold, done, priority, due, due_at,
                              created_at, updated_at, completed_at, version, project, wait, wait_at, meta,
                              recurrence, series_id, remind, remind_at, annotations, started_at, origin)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO NOTHING
            """,
            [
                .text(task.id), .text(task.title), .text(TaskRules.folded(task.title)),
                .text(task.notes), .text(TaskRules.folded(task.notes)), SQLValue(task.done),
                SQLValue(task.priority), SQLValue(task.due), SQLValue(dueAt),
                .integer(task.createdAt), .integer(task.updatedAt), SQLValue(task.completedAt), .integer(task.version),
                SQLValue(task.project), SQLValue(task.wait), SQLValue(waitAt), .text(task.meta),
                SQLValue(task.recurrence), SQLValue(task.seriesId),
                SQLValue(task.remindAt), SQLValue(try storedTime(task.remindAt, of: task)),
                .text(Annotation.stored(task.annotations)), SQLValue(task.startedAt), SQLValue(origin),
            ])
        guard database.changes == 1 else { return nil }
        let pk = database.lastInsertRowID
        try insertTags(of: task, taskPK: pk)
        return pk
    }

    /// Gives row `pk`, which holds `current`, `task`'s fields but its dependencies, and its
    /// tags when they differ. Same preconditions as `insertRow`. Only the columns whose value
    /// changes are set: SQLite rewrites an entry of every index on a column an UPDATE sets,
    /// and runs every trigger `OF` it, whether the value changes or not, so setting them all
    /// rewrote a random page of each index (and both of a task's tag entries) per task.
    /// A stored instant is set with its text, or when it differs from what the text says.
    func replaceRow(pk: Int64, with task: TaskItem, dueAt: Int64?, waitAt: Int64?, current: TaskItem) throws {
        // The version always: setting it is what logs the change (`task_log_update`), also
        // when only the tags or dependencies differ.
        var assignments = ["version = ?"]
        var values: [SQLValue] = [.integer(task.version)]
        func set(_ assignment: String, to new: [SQLValue], unless unchanged: Bool) {
            guard !unchanged else { return }
            assignments.append(assignment)
            values += new
        }
        func same(_ a: String?, _ b: String?) -> Bool {
            a == nil ? b == nil : b.map { a!.utf8.elementsEqual($0.utf8) } ?? false
        }
        set("title = ?, title_fold = ?", to: [.text(task.title), .text(TaskRules.folded(task.title))], unless: same(task.title, current.title))
        set("notes = ?, notes_fold = ?", to: [.text(task.notes), .text(TaskRules.folded(task.notes))], unless: same(task.notes, current.notes))
        set("done = ?", to: [SQLValue(task.done)], unless: task.done == current.done)
        set("priority = ?", to: [SQLValue(task.priority)], unless: task.priority == current.priority)
        set(
            "due = ?, due_at = ?", to: [SQLValue(task.due), SQLValue(dueAt)],
            unless: same(task.due, current.due) && dueAt == (try? storedTime(current.due, of: current)))
        set("created_at = ?", to: [.integer(task.createdAt)], unless: task.createdAt == current.createdAt)
        set("updated_at = ?", to: [.integer(task.updatedAt)], unless: task.updatedAt == current.updatedAt)
        set("completed_at = ?", to: [SQLValue(task.completedAt)], unless: task.completedAt == current.completedAt)
        set("project = ?", to: [SQLValue(task.project)], unless: same(task.project, current.project))
        set(
            "wait = ?, wait_at = ?", to: [SQLValue(task.wait), SQLValue(waitAt)],
            unless: same(task.wait, current.wait) && waitAt == (try? storedTime(current.wait, of: current)))
        set("meta = ?", to: [.text(task.meta)], unless: same(task.meta, current.meta))
        set("recurrence = ?", to: [SQLValue(task.recurrence)], unless: same(task.recurrence, current.recurrence))
        set("series_id = ?", to: [SQLValue(task.seriesId)], unless: same(task.seriesId, current.seriesId))
        let remindAt = try storedTime(task.remindAt, of: task)
        set(
            "remind = ?, remind_at = ?", to: [SQLValue(task.remindAt), SQLValue(remindAt)],
            unless: same(task.remindAt, current.remindAt) && remindAt == (try? storedTime(current.remindAt, of: current)))
        set(
            "annotations = ?", to: [.text(Annotation.stored(task.annotations))],
            unless: task.annotations.elementsEqual(current.annotations) { $0.isIdentical(to: $1) })
        set("started_at = ?", to: [SQLValue(task.startedAt)], unless: task.startedAt == current.startedAt)
        try database.run("UPDATE task SET \(assignments.joined(separator: ", ")) WHERE pk = ?", values + [.integer(pk)])
        if !TaskItem.identical(task.tags, current.tags) {
            try database.run("DELETE FROM task_tag WHERE task_pk = ?", [.integer(pk)])
            try insertTags(of: task, taskPK: pk)
        }
    }

    /// Row `pk` depends on the tasks `ids` (as the request sent them, `field` naming them)
    /// and no others; an unknown one, or one that would close a cycle, is refused.
    /// `checkingCycles` false: the caller knows that the task is on no cycle (an import).
    func replaceDependencies(of pk: Int64, with ids: [String], field: String, checkingCycles: Bool = true) throws {
        let keys = try dependencyKeys(ids, field: field)
        if checkingCycles, let cycle = try cycle(through: pk, dependingOn: keys, ids: ids) { throw TaskStoreError.dependencyCycle(ids: cycle) }
        try database.run("DELETE FROM task_dependency WHERE task_pk = ?", [.integer(pk)])
        try insertDependencies(keys, taskPK: pk)
    }

    /// Row `taskPK` depends on the rows `dependencies` (already checked); the schema's
    /// triggers keep its copies of them.
    private func insertDependencies(_ dependencies: [Int64], taskPK: Int64) throws {
        let statement = try database.cachedStatement("INSERT OR IGNORE INTO task_dependency (task_pk, depends_on_pk) VALUES (?, ?)")
        for dependency in dependencies { try statement.run([.integer(taskPK), .integer(dependency)]) }
    }

    /// With the task's sort key, which the schema's trigger would otherwise fill in a second
    /// write. OR FAIL as in `insertRow`.
    func insertTags(of task: TaskItem, taskPK: Int64) throws {
        let statement = try database.cachedStatement("INSERT OR FAIL INTO task_tag (tag, task_pk, created_at, task_id) VALUES (?, ?, ?, ?)")
        for tag in task.tags { try statement.run([.text(tag), .integer(taskPK), .integer(task.createdAt), .text(task.id)]) }
    }

    /// The due date, wait time or reminder time `text` of `task` as stored, in ms, which an
    /// update that keeps it writes back. One that another program stored unreadable refuses the update: the
    /// client did not send it.
    func storedTime(_ text: String?, of task: TaskItem) throws -> Int64? {
        guard let text else { return nil }
        guard let milliseconds = Timestamp.parse(text) else {
            throw TaskStoreError.outOfRange(
                "task \(task.id)'s stored time \(text) is not a date: its stored data is out of range (see taskline check)")
        }
        return milliseconds
    }

    /// The change the trigger just logged for `task`, in change group `group`.
    func lastChange(
        _ kind: TaskChange.Kind, task: TaskItem, group: GroupRecorder,
        markedByInsert: Bool = false
    ) throws -> TaskChange {
        TaskChange(seq: try markedSeq(group, markedByInsert: markedByInsert), kind: kind, id: task.id, version: task.version, task: task)
    }

    /// The seq of the change a write just logged, refusing the write (its transaction or
    /// savepoint is undone) when the log's numbering is out of range: past the largest seq
    /// SQLite numbers the next row at random, and below 1 clients never ask for it.
    func loggedSeq() throws -> Int64 {
        try TaskRules.loggedSeq(try Schema.newestSeq(in: database))
    }
}
