import EventLoop
import SQLite
import Synchronization

/// The task store: the one owner of the SQLite connection. Being an actor, it runs one
/// operation at a time, which is exactly what a single SQLite connection needs.
public actor TaskStore {
    /// The event loop the store runs on, its executor: the server's in `taskline`, so that
    /// the server's calls into the store switch no threads; a loop on a thread of its own,
    /// which ends with the store, otherwise.
    public nonisolated let loop: EventLoop
    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    private nonisolated let ownsLoop: Bool

    let database: Database
    private let clock: @Sendable () -> Int64
    /// `PRAGMA data_version` when last asked (see `currentDataVersion`).
    private var dataVersion: Int64 = 0
    /// Listens for other processes' commits, once asked to (`watchExternalChanges`). Behind
    /// a lock rather than the actor, so that the store can let it go in `deinit`.
    private let watcher = Mutex<DatabaseWatcher?>(nil)
    public nonisolated let path: String

    /// Opens (creating or migrating as needed) the database at `path`, or `:memory:`.
    /// Throws `StoreOpenError` for a file that cannot be used, leaving it untouched.
    public init(path: String, options: StoreOptions = StoreOptions(), loop: EventLoop? = nil,
                clock: @escaping @Sendable () -> Int64 = Timestamp.now) throws {
        self.database = try StoreFile.open(path: path, options: options)
        self.clock = clock
        self.path = path
        self.loop = loop ?? EventLoop.startThread()
        ownsLoop = loop == nil
    }

    deinit {
        // First, so that the watch's descriptor is closed by the loop before it stops.
        watcher.withLock { $0 = nil }
        if ownsLoop { loop.stop(exitCode: 0) }
    }

    /// Closes the database: the last step before the process exits.
    public func close() {
        watcher.withLock { $0 = nil }
        database.close()
    }

    /// Calls `onChange` when another process may have committed (on the loop's thread, or
    /// in a call of the store's); `hasExternalChanges` then tells. False where the store
    /// cannot watch (`:memory:`, no inotify). The store's writes leave the watch deaf until
    /// the loop has nothing to do.
    @discardableResult
    public func watchExternalChanges(onChange: @escaping @Sendable () -> Void) throws -> Bool {
        dataVersion = try storage { try currentDataVersion() }
        let watcher = DatabaseWatcher(databasePath: path, loop: loop, onChange: onChange)
        self.watcher.withLock { $0 = watcher }
        return watcher != nil
    }

    /// True when another connection has committed since the last call. Calling it also
    /// re-arms the watcher, which calls `onChange` once per look.
    public func hasExternalChanges() throws -> Bool {
        watcher.withLock { $0 }?.rearm()
        return try storage {
            let version = try currentDataVersion()
            defer { dataVersion = version }
            return version != dataVersion
        }
    }

    // MARK: - Reads

    public func get(id: String) throws -> TaskItem {
        try storage {
            guard let task = try load(id: id) else { throw TaskStoreError.notFound(id: id) }
            return task
        }
    }

    public func fetch(_ query: TaskQuery) throws -> TaskPage {
        guard (1...TaskQuery.maxLimit).contains(query.limit) else {
            throw TaskStoreError.invalid(field: "limit", reason: "must be 1 to \(TaskQuery.maxLimit)")
        }
        if let offset = query.offset {
            guard offset >= 0 else { throw TaskStoreError.invalid(field: "offset", reason: "must be 0 or more") }
            guard query.cursor == nil else { throw TaskStoreError.invalid(field: "offset", reason: "cannot be combined with cursor") }
        }
        try Self.validate(sort: query.sort)
        // One snapshot for the plan, the page, the total and the seq, whatever other
        // processes commit: the plan's choices depend on what the database holds.
        return try storage { try database.readTransaction {
            let plan = try FetchPlan(filter: query.filter, sort: query.sort, database: database)
            var cursor: Cursor?
            if let encoded = query.cursor {
                guard let decoded = Cursor(encoded: encoded), plan.accepts(decoded) else {
                    throw TaskStoreError.invalid(field: "cursor", reason: "not a cursor from a fetch with this sort")
                }
                cursor = decoded
            }
            var tasks: [TaskItem] = []
            var lastKeys: [SQLValue] = []
            var hasMore = false
            let keyCount = Int32(plan.keys.count)
            var offset = Int64(query.offset ?? 0)
            for run in plan.pageRuns(after: cursor) where !hasMore {
                var returned = 0
                // One row more than the limit is asked for: it tells whether a next page exists.
                let wanted = Int64(query.limit + 1 - tasks.count)
                try database.cachedStatement(run.sql).forEachRow(run.values + [.integer(wanted), .integer(offset)]) { row in
                    returned += 1
                    guard tasks.count < query.limit else {
                        hasMore = true
                        return
                    }
                    tasks.append(readTask(row))
                    // Only the page's last task gives the cursor.
                    if tasks.count == query.limit {
                        lastKeys = (0..<keyCount).map { row.value(FetchPlan.taskColumnCount + $0) }
                    }
                }
                // A run that returned nothing held no more tasks than the offset skips.
                if offset > 0, let countSQL = run.countSQL {
                    offset = returned > 0 ? 0 : offset - (try database.cachedStatement(countSQL).firstRow(run.values) { $0.int64(0) } ?? 0)
                }
            }
            var page = TaskPage(tasks: tasks, nextCursor: nil, total: nil, seq: try Schema.newestSeq(in: database))
            if hasMore {
                page.nextCursor = Cursor(signature: plan.signature, values: lastKeys).encoded
            }
            if query.includeTotal {
                page.total = Int(try database.cachedStatement(plan.countSQL).firstRow(plan.whereValues) { $0.int64(0) } ?? 0)
            }
            return page
        } }
    }

    // MARK: - Writes

    public func create(_ draft: TaskDraft) throws -> WriteResult<TaskItem> {
        let outcome = try perform(.create(draft))
        return WriteResult(value: outcome.task!, change: outcome.change)
    }

    public func update(id: String, changes: TaskChanges, ifVersion: Int64? = nil) throws -> WriteResult<TaskItem> {
        let outcome = try perform(.update(id: id, changes: changes, ifVersion: ifVersion))
        return WriteResult(value: outcome.task!, change: outcome.change)
    }

    public func delete(id: String, ifVersion: Int64? = nil) throws -> WriteResult<String> {
        let outcome = try perform(.delete(id: id, ifVersion: ifVersion))
        return WriteResult(value: id, change: outcome.change)
    }

    /// One write in its own transaction.
    public func perform(_ operation: TaskOperation) throws -> OperationOutcome {
        let prepared = try PreparedOperation(operation)
        return try storage { try writeTransaction { try run(prepared) } }
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
                Self.prepare(operation).mapError { $0.located(in: "operations[\(index)].\(operation.kind)") }
            }
        }
        if atomic, let index = prepared.firstIndex(where: { (try? $0.get()) == nil }), case .failure(let error) = prepared[index] {
            throw TaskStoreError.operationFailed(index: index, error: error)
        }
        return try run(prepared, atomic: atomic)
    }

    /// Independent writes committed together: one transaction, each in a savepoint, so each
    /// fails alone and one sync to disk serves them all (group commit).
    public func performEach(_ operations: [TaskOperation]) throws -> [Result<OperationOutcome, TaskStoreError>] {
        try run(operations.map(Self.prepare), atomic: false)
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

    private func run(_ prepared: [Result<PreparedOperation, TaskStoreError>], atomic: Bool) throws -> [Result<OperationOutcome, TaskStoreError>] {
        do {
            return try runInTransaction(prepared, atomic: atomic)
        } catch TaskStoreError.operationFailed(let index, .versionConflict(let seen)) {
            // The conflict was seen inside the transaction just undone, perhaps after an earlier
            // operation changed the task: report the task as it is committed.
            let current = try storage { try load(id: seen.id) }
            throw TaskStoreError.operationFailed(index: index, error: current.map { .versionConflict(current: $0) } ?? .notFound(id: seen.id))
        }
    }

    private func runInTransaction(_ prepared: [Result<PreparedOperation, TaskStoreError>], atomic: Bool) throws -> [Result<OperationOutcome, TaskStoreError>] {
        try storage {
            try writeTransaction {
                var results: [Result<OperationOutcome, TaskStoreError>] = []
                results.reserveCapacity(prepared.count)
                for (index, operation) in prepared.enumerated() {
                    switch operation {
                    case .failure(let error):
                        results.append(.failure(error))
                    case .success(let operation) where atomic:
                        do {
                            results.append(.success(try run(operation)))
                        } catch let error as TaskStoreError {
                            throw TaskStoreError.operationFailed(index: index, error: error)
                        }
                    case .success(let operation):
                        do {
                            results.append(.success(try database.savepoint { try run(operation) }))
                        } catch let error as TaskStoreError {
                            results.append(.failure(error))
                        }
                    }
                }
                return results
            }
        }
    }

    /// Runs a checked operation inside the caller's transaction. The change log rows are
    /// written by triggers (see `Schema`), so writers other than Taskline are recorded too.
    private func run(_ operation: PreparedOperation) throws -> OperationOutcome {
        switch operation.action {
        case .create(let draft, let id, let tags, let dueAt):
            let now = clock()
            let task = TaskItem(
                id: id, title: draft.title, notes: draft.notes, done: draft.done, priority: draft.priority,
                tags: tags, due: draft.due, createdAt: now, updatedAt: now,
                completedAt: draft.done ? now : nil, version: 1)
            guard try insertRow(task, dueAt: dueAt) != nil else { throw TaskStoreError.alreadyExists(id: id) }
            return OperationOutcome(result: .task(task), change: try lastChange(.created, task: task))

        case .update(let id, let changes, let tags, let dueAt, let ifVersion):
            guard let (pk, current) = try loadWithKey(id: id) else { throw TaskStoreError.notFound(id: id) }
            if let ifVersion, ifVersion != current.version { throw TaskStoreError.versionConflict(current: current) }
            var next = current
            if let title = changes.title { next.title = title }
            if let notes = changes.notes { next.notes = notes }
            if let priority = changes.priority { next.priority = priority }
            if let tags { next.tags = tags }
            if case .some(let due) = changes.due { next.due = due }
            if let done = changes.done { next.done = done }
            guard !next.isIdentical(to: current) else { return OperationOutcome(result: .task(current), change: nil) }

            guard current.version < TaskRules.versions.upperBound else {
                throw TaskStoreError.outOfRange("""
                    task \(id) is at version \(current.version), and a version goes no higher than \
                    \(TaskRules.versions.upperBound): its stored data is out of range (see taskline check)
                    """)
            }
            let now = clock()
            if next.done != current.done { next.completedAt = next.done ? now : nil }
            next.updatedAt = now
            next.version += 1
            try replaceRow(pk: pk, with: next, dueAt: dueAt ?? storedDueAt(of: current), oldTags: current.tags)
            return OperationOutcome(result: .task(next), change: try lastChange(.updated, task: next))

        case .delete(let id, let ifVersion):
            guard let (pk, current) = try loadWithKey(id: id) else { throw TaskStoreError.notFound(id: id) }
            if let ifVersion, ifVersion != current.version { throw TaskStoreError.versionConflict(current: current) }
            try database.run("DELETE FROM task WHERE pk = ?", [.integer(pk)])
            let change = TaskChange(seq: try loggedSeq(), kind: .deleted, id: id, version: current.version, task: nil)
            return OperationOutcome(result: .deleted(id: id), change: change)
        }
    }

    /// The newest `seq` ever handed out: 0 for a database that never changed.
    public func currentSeq() throws -> Int64 {
        try storage { try Schema.newestSeq(in: database) }
    }

    /// A random number given to the database when it was made: a client that catches up
    /// with `tasks/changes` can tell a replaced file from the one it followed.
    public func databaseID() throws -> Int64 {
        try storage { try database.integer("SELECT value FROM meta WHERE key = ?", [.text(Schema.databaseIDKey)]) ?? 0 }
    }

    /// Copies every committed change from the WAL into the database file and empties the
    /// WAL: called before the process ends, so that the file named by `--db` holds all the
    /// data by itself (a copy or backup of it alone is complete). A no-op while another
    /// connection still reads an older snapshot.
    public func checkpoint() throws {
        try storage { try database.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    // MARK: - Change history

    public struct ChangePage: Sendable, Hashable {
        public var changes: [TaskChange]
        /// Where the next call should start: the last change's seq, or `since` when there was none.
        public var seq: Int64
        public var hasMore: Bool
    }

    /// Every change after `since`, oldest first, at most `limit`. Creations and updates carry
    /// the task as it is now (absent when it has since been deleted); deletions are tombstones.
    public func changes(since: Int64, limit: Int = 1000) throws -> ChangePage {
        guard since >= 0 else { throw TaskStoreError.invalid(field: "since", reason: "must be 0 or more") }
        guard (1...TaskQuery.maxLimit).contains(limit) else {
            throw TaskStoreError.invalid(field: "limit", reason: "must be 1 to \(TaskQuery.maxLimit)")
        }
        return try storage {
            let prunedThrough = try Schema.prunedThrough(in: database)
            if since < prunedThrough {
                throw TaskStoreError.historyExpired(since: since, oldestSeq: prunedThrough + 1)
            }
            let current = try Schema.newestSeq(in: database)
            if since > current {
                throw TaskStoreError.invalid(field: "since", reason: "is ahead of this database, whose newest seq is \(current)")
            }
            var changes: [TaskChange] = []
            try database.cachedStatement(Self.changesSQL).forEachRow([.integer(since), .integer(Int64(limit) + 1)]) { row in
                guard changes.count < limit else { return }
                let kind = TaskChange.Kind(rawValue: row.text(1)) ?? .updated
                let task = row.isNull(4) ? nil : readTask(row, from: 4)
                changes.append(TaskChange(seq: row.int64(0), kind: kind, id: row.text(2), version: row.int64(3), task: task))
            }
            let hasMore = try changes.last.map { last in
                try database.integer("SELECT 1 FROM change WHERE seq > ? LIMIT 1", [.integer(last.seq)]) != nil
            } ?? false
            return ChangePage(changes: changes, seq: changes.last?.seq ?? since, hasMore: hasMore)
        }
    }

    /// The changes after `?`, at most `?`, each with its task as it is now. The deletions
    /// after a change are found in `change_deletion_by_task` (schema 13), which holds only
    /// deletions: the subquery says `later.kind = 'deleted'` as the index does, so SQLite
    /// can use it.
    static let changesSQL = """
        SELECT change.seq, change.kind, change.task_id, change.version, \(FetchPlan.taskColumns)
        FROM change LEFT JOIN task ON task.id = change.task_id AND change.kind != 'deleted'
            -- not a later task that reused the id of one deleted since
            AND NOT EXISTS (SELECT 1 FROM change AS later
                            WHERE later.task_id = change.task_id AND later.kind = 'deleted' AND later.seq > change.seq)
        WHERE change.seq > ? ORDER BY change.seq LIMIT ?
        """

    /// Removes changes recorded before `cutoff` (ms since the epoch) and remembers how far
    /// the log was cut, so that a client asking for older changes learns it must refetch.
    /// Returns how many changes were removed.
    ///
    /// The log is in time order but for clock steps, so what goes is the run of changes
    /// before the first one recorded at or after `cutoff`: finding it reads only what is
    /// removed. The newest change always stays: SQLite numbers a new change after the
    /// largest seq in the log, so an emptied log would hand out its seqs again.
    @discardableResult
    public func pruneHistory(before cutoff: Int64) throws -> Int {
        try storage {
            // Looked up outside a write transaction first: at start-up there is usually
            // nothing to remove, and the write lock (which another process may hold) is not needed.
            guard try lastPrunable(before: cutoff) != nil else { return 0 }
            return try writeTransaction {
                guard let through = try lastPrunable(before: cutoff) else { return 0 }
                try database.run("DELETE FROM change WHERE seq <= ?", [.integer(through)])
                let removed = database.changes
                try database.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [.text(Schema.prunedThroughKey), .integer(through)])
                return removed
            }
        }
    }

    /// The newest seq that pruning at `cutoff` removes, or nil when nothing goes.
    private func lastPrunable(before cutoff: Int64) throws -> Int64? {
        guard let oldest = try database.integer("SELECT min(seq) FROM change") else { return nil }
        let firstKept = try database.integer("SELECT seq FROM change WHERE at >= ? ORDER BY seq LIMIT 1", [.integer(cutoff)])
            ?? Schema.newestSeq(in: database)
        // Compared before subtracting: a seq another program stored may be Int64.min.
        return firstKept > oldest ? firstKept - 1 : nil
    }

    // MARK: - Helpers

    /// `PRAGMA data_version`: it changes only when another connection commits.
    private func currentDataVersion() throws -> Int64 {
        try database.integer("PRAGMA data_version") ?? 0
    }

    /// A write transaction of the store's own, which its watcher does not wake for. A
    /// commit that another process made just before this one took the write lock is
    /// reported as the watcher would have. Each ends by indexing the texts waiting for
    /// the trigram index, when there are many.
    func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        let watcher = watcher.withLock { $0 }
        var othersCommitted = false
        func transaction() throws -> T {
            try database.writeTransaction {
                // Read under the write lock, so it counts every commit before this one; read
                // after the commit instead, it took a read transaction of its own.
                if watcher != nil { othersCommitted = try currentDataVersion() != dataVersion }
                let value = try body()
                try TextIndex.indexPendingIfMany(in: database)
                return value
            }
        }
        guard let watcher else { return try transaction() }
        defer { if othersCommitted { watcher.report() } }
        return try watcher.ignoringWrites(transaction)
    }

    /// Runs `body`, turning SQLite's errors into `TaskStoreError.storage` and letting the
    /// store's own errors through.
    func storage<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as TaskStoreError {
            throw error
        } catch let error as SQLiteError {
            throw TaskStoreError(error)
        } catch {
            throw TaskStoreError.storage(code: 1, extendedCode: 1, message: "\(error)")
        }
    }

    private static func validate(sort: [SortKey]) throws {
        guard (1...TaskQuery.maxSortKeys).contains(sort.count) else {
            throw TaskStoreError.invalid(field: "sort", reason: "must have 1 to \(TaskQuery.maxSortKeys) entries")
        }
        var seen: Set<SortKey.Field> = []
        for (index, key) in sort.enumerated() where !seen.insert(key.field).inserted {
            throw TaskStoreError.invalid(field: "sort[\(index)].field", reason: "\(key.field.rawValue) appears more than once")
        }
    }


    private func load(id: String) throws -> TaskItem? {
        try loadWithKey(id: id)?.task
    }

    func loadWithKey(id: String) throws -> (pk: Int64, task: TaskItem)? {
        try database.cachedStatement(Self.loadSQL).firstRow([.text(id)]) { row in (row.int64(0), readTask(row)) }
    }

    /// Built once: a string made per call costs its building, and the statement cache's
    /// comparison of the whole text (one made once compares as the same storage).
    private static let loadSQL = "SELECT \(FetchPlan.taskColumns) FROM task WHERE id = ?"

    /// Reads a row whose columns from `first` on are `FetchPlan.taskColumns`.
    func readTask(_ row: Row, from first: Int32 = 0) -> TaskItem {
        Self.readTask(row, from: first)
    }

    /// The same, for a connection the store does not own (`check` opens the file read-only).
    static func readTask(_ row: Row, from first: Int32 = 0) -> TaskItem {
        // Already in code-point order (schema version 8). Split as SQLite's bytes: splitting
        // a String walks it by grapheme cluster, which cost more than the rest of the row.
        var tags: [String] = []
        row.withUTF8(first + 11) { bytes in
            var start = 0
            for end in 0...bytes.count where end == bytes.count || bytes[end] == 0x1F {
                if end > start { tags.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)) }
                start = end + 1
            }
        }
        return TaskItem(
            id: row.text(first + 1), title: row.text(first + 2), notes: row.text(first + 3), done: row.bool(first + 4),
            priority: row.int(first + 5), tags: tags, due: row.optionalText(first + 6), createdAt: row.int64(first + 7),
            updatedAt: row.int64(first + 8), completedAt: row.optionalInt64(first + 9), version: row.int64(first + 10))
    }

    /// Inserts `task` as it is, unless its id is taken; returns the new row's key, or nil when
    /// the id exists. The caller has checked the task (`dueAt` is its due date in ms) and
    /// holds a write transaction.
    func insertRow(_ task: TaskItem, dueAt: Int64?) throws -> Int64? {
        try database.run("""
            INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, due, due_at,
                              created_at, updated_at, completed_at, version)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO NOTHING
            """, [
                .text(task.id), .text(task.title), .text(TaskRules.folded(task.title)),
                .text(task.notes), .text(TaskRules.folded(task.notes)), SQLValue(task.done),
                SQLValue(task.priority), SQLValue(task.due), SQLValue(dueAt),
                .integer(task.createdAt), .integer(task.updatedAt), SQLValue(task.completedAt), .integer(task.version),
            ])
        guard database.changes == 1 else { return nil }
        let pk = database.lastInsertRowID
        try insertTags(of: task, taskPK: pk)
        return pk
    }

    /// Overwrites every field of row `pk` with `task`'s, and its tags when they differ from
    /// `oldTags`. Same preconditions as `insertRow`.
    func replaceRow(pk: Int64, with task: TaskItem, dueAt: Int64?, oldTags: [String]) throws {
        try database.run("""
            UPDATE task SET title = ?, title_fold = ?, notes = ?, notes_fold = ?, done = ?, priority = ?,
                            due = ?, due_at = ?, created_at = ?, updated_at = ?, completed_at = ?, version = ?
            WHERE pk = ?
            """, [
                .text(task.title), .text(TaskRules.folded(task.title)), .text(task.notes),
                .text(TaskRules.folded(task.notes)), SQLValue(task.done), SQLValue(task.priority),
                SQLValue(task.due), SQLValue(dueAt), .integer(task.createdAt), .integer(task.updatedAt),
                SQLValue(task.completedAt), .integer(task.version), .integer(pk),
            ])
        if !TaskItem.identical(task.tags, oldTags) {
            try database.run("DELETE FROM task_tag WHERE task_pk = ?", [.integer(pk)])
            try insertTags(of: task, taskPK: pk)
        }
    }

    /// With the task's sort key, which the schema's trigger would otherwise fill in a second write.
    func insertTags(of task: TaskItem, taskPK: Int64) throws {
        let statement = try database.cachedStatement("INSERT INTO task_tag (tag, task_pk, created_at, task_id) VALUES (?, ?, ?, ?)")
        for tag in task.tags { try statement.run([.text(tag), .integer(taskPK), .integer(task.createdAt), .text(task.id)]) }
    }

    /// The due date in ms of a task as stored, which an update that keeps it writes back. One
    /// that another program stored unreadable refuses the update: the client did not send it.
    private func storedDueAt(of task: TaskItem) throws -> Int64? {
        guard let due = task.due else { return nil }
        guard let milliseconds = Timestamp.parse(due) else {
            throw TaskStoreError.outOfRange("task \(task.id)'s stored due date \(due) is not a date: its stored data is out of range (see taskline check)")
        }
        return milliseconds
    }

    /// The change the trigger just logged for `task`.
    private func lastChange(_ kind: TaskChange.Kind, task: TaskItem) throws -> TaskChange {
        TaskChange(seq: try loggedSeq(), kind: kind, id: task.id, version: task.version, task: task)
    }

    /// The seq of the change a write just logged, refusing the write (its transaction or
    /// savepoint is undone) when the log's numbering is out of range: past the largest seq
    /// SQLite numbers the next row at random, and below 1 clients never ask for it.
    func loggedSeq() throws -> Int64 {
        let seq = try Schema.newestSeq(in: database)
        guard TaskRules.seqs.contains(seq) else {
            throw TaskStoreError.outOfRange("""
                the change log's newest seq is \(seq), outside 1 to \(TaskRules.seqs.upperBound): \
                its stored data is out of range (see taskline check)
                """)
        }
        return seq
    }
}
