import SQLite
import TaskEngine
import TaskModel

/// Writing tasks: the engine's write flow (TaskEngine) over this store's rows, each
/// operation in a transaction (or a savepoint of one) that the change log's triggers record.
extension TaskStore: StorageDriver {
    public func perform(_ operation: TaskOperation) throws -> OperationOutcome {
        try performWrite(operation)
    }

    public func apply(_ operations: [Result<TaskOperation, TaskStoreError>], atomic: Bool) throws -> [Result<OperationOutcome, TaskStoreError>] {
        try applyWrites(operations, atomic: atomic)
    }

    public func performEach(_ operations: [TaskOperation]) throws -> [Result<OperationOutcome, TaskStoreError>] {
        try performEachWrite(operations)
    }

    // MARK: StorageDriver

    package func now() -> Int64 { clock() }

    /// A large write gets a larger page cache (`withBulkWriteSettings`).
    package func writeTransaction<T>(large: Bool, _ body: () throws -> T) throws -> T {
        try translatingSQLiteErrors {
            guard large else { return try writeTransaction(body) }
            return try withBulkWriteSettings { try writeTransaction(body) }
        }
    }

    package func savepoint<T>(_ body: () throws -> T) throws -> T {
        try database.savepoint(body)
    }

    package func committedTask(id: String) throws -> TaskItem? {
        try translatingSQLiteErrors { try load(id: id) }
    }

    package func insert(_ task: TaskItem, dueAt: Int64?, waitAt: Int64?) throws -> Int64? {
        try insertRow(task, dueAt: dueAt, waitAt: waitAt, origin: origin)
    }

    package func writeDependencies(of key: Int64, requested: [String], field: String) throws {
        try insertDependencies(try dependencyKeys(requested, field: field), taskPK: key)
    }

    package func replaceDependencies(of key: Int64, requested: [String], field: String) throws {
        try setDependencies(of: key, to: requested, field: field)
    }

    package func delete(_ key: Int64) throws {
        try database.run("DELETE FROM task WHERE pk = ?", [.integer(key)])
    }

    package func dependents(of key: Int64) throws -> [(key: Int64, task: TaskItem)] {
        var ids: [String] = []
        try database.cachedStatement("SELECT t.id FROM task_dependency d JOIN task t ON t.pk = d.task_pk WHERE d.depends_on_pk = ? ORDER BY t.id")
            .forEachRow([.integer(key)]) { ids.append($0.text(0)) }
        return try ids.compactMap { try loadForWrite(id: $0) }
    }

    package func dropDependencies(on key: Int64) throws {
        try database.run("DELETE FROM task_dependency WHERE depends_on_pk = ?", [.integer(key)])
    }

    /// The claim is written in the caller's write transaction, which other processes wait for
    /// (BEGIN IMMEDIATE), so of several writers exactly one sees the occurrence open.
    package func claimSuccessor(of key: Int64, successor: String) throws -> Bool {
        try database.cachedStatement(
            """
            UPDATE task SET successor_id = ?
            WHERE pk = ? AND (successor_id IS NULL OR NOT EXISTS (SELECT 1 FROM task AS made WHERE made.id = task.successor_id))
            """
        ).run([.text(successor), .integer(key)])
        return database.changes == 1
    }

    /// The triggers logged the change (see `Schema`), so that writers other than Taskline
    /// are recorded too: this reads its seq and marks it as one of `group`'s. A creation was
    /// marked by its insert (`insertRow`'s `origin`).
    package func logged(_ kind: TaskChange.Kind, id: String, version: Int64, task: TaskItem?, group: GroupRecorder) throws -> TaskChange {
        TaskChange(seq: try markedSeq(group, markedByInsert: kind == .created), kind: kind, id: id, version: version, task: task)
    }

    // MARK: Rows

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
                SQLValue(task.remindAt), SQLValue(try task.storedTime(task.remindAt)),
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
    package func replace(_ pk: Int64, with task: TaskItem, dueAt: Int64?, waitAt: Int64?, current: TaskItem) throws {
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
            unless: same(task.due, current.due) && dueAt == (try? current.storedTime(current.due)))
        set("created_at = ?", to: [.integer(task.createdAt)], unless: task.createdAt == current.createdAt)
        set("updated_at = ?", to: [.integer(task.updatedAt)], unless: task.updatedAt == current.updatedAt)
        set("completed_at = ?", to: [SQLValue(task.completedAt)], unless: task.completedAt == current.completedAt)
        set("project = ?", to: [SQLValue(task.project)], unless: same(task.project, current.project))
        set(
            "wait = ?, wait_at = ?", to: [SQLValue(task.wait), SQLValue(waitAt)],
            unless: same(task.wait, current.wait) && waitAt == (try? current.storedTime(current.wait)))
        set("meta = ?", to: [.text(task.meta)], unless: same(task.meta, current.meta))
        set("recurrence = ?", to: [SQLValue(task.recurrence)], unless: same(task.recurrence, current.recurrence))
        set("series_id = ?", to: [SQLValue(task.seriesId)], unless: same(task.seriesId, current.seriesId))
        let remindAt = try task.storedTime(task.remindAt)
        set(
            "remind = ?, remind_at = ?", to: [SQLValue(task.remindAt), SQLValue(remindAt)],
            unless: same(task.remindAt, current.remindAt) && remindAt == (try? current.storedTime(current.remindAt)))
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
    func setDependencies(of pk: Int64, to ids: [String], field: String, checkingCycles: Bool = true) throws {
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

    /// The seq of the change a write just logged, refusing the write (its transaction or
    /// savepoint is undone) when the log's numbering is out of range: past the largest seq
    /// SQLite numbers the next row at random, and below 1 clients never ask for it.
    func loggedSeq() throws -> Int64 {
        try TaskRules.loggedSeq(try Schema.newestSeq(in: database))
    }
}
