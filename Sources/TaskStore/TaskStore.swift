import SQLite

/// The task store: the one owner of the SQLite connection. Being an actor, it runs one
/// operation at a time, which is exactly what a single SQLite connection needs.
public actor TaskStore {
    private let database: Database
    private let clock: @Sendable () -> Int64

    /// Opens (creating or migrating as needed) the database at `path`, or `:memory:`.
    /// Throws `StoreOpenError` for a file that cannot be used, leaving it untouched.
    public init(path: String, options: StoreOptions = StoreOptions(), clock: @escaping @Sendable () -> Int64 = Timestamp.now) throws {
        self.database = try StoreFile.open(path: path, options: options)
        self.clock = clock
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
        let plan = try storage { try FetchPlan(filter: query.filter, sort: query.sort) }
        var cursor: Cursor?
        if let encoded = query.cursor {
            guard let decoded = Cursor(encoded: encoded), plan.accepts(decoded) else {
                throw TaskStoreError.invalid(field: "cursor", reason: "not a cursor from a fetch with this sort")
            }
            cursor = decoded
        }
        return try storage {
            let (sql, values) = plan.pageSQL(after: cursor)
            let statement = try database.cachedStatement(sql)
            var tasks: [TaskItem] = []
            var lastKeys: [SQLValue] = []
            let keyCount = Int32(plan.keys.count)
            try statement.forEachRow(values + [.integer(Int64(query.limit + 1)), .integer(Int64(query.offset ?? 0))]) { row in
                guard tasks.count < query.limit else { return }
                tasks.append(try readTask(row))
                lastKeys = (0..<keyCount).map { row.value(FetchPlan.taskColumnCount + $0) }
            }
            var page = TaskPage(tasks: tasks, nextCursor: nil, total: nil)
            // The query asked for one row more than the limit: it tells whether a next page exists.
            if tasks.count == query.limit, try hasMore(plan: plan, after: lastKeys) {
                page.nextCursor = Cursor(signature: plan.signature, values: lastKeys).encoded
            }
            if query.includeTotal {
                page.total = Int(try database.cachedStatement(plan.countSQL).firstRow(plan.whereValues) { $0.int64(0) } ?? 0)
            }
            return page
        }
    }

    // MARK: - Writes

    public func create(_ draft: TaskDraft) throws -> WriteResult<TaskItem> {
        let id = draft.id ?? UUID4.random()
        if draft.id != nil { try TaskRules.validateID(id) }
        try TaskRules.validateTitle(draft.title, field: "title")
        try TaskRules.validateNotes(draft.notes, field: "notes")
        try TaskRules.validatePriority(draft.priority, field: "priority")
        let tags = try TaskRules.normalizeTags(draft.tags, field: "tags")
        let dueAt = try draft.due.map { due throws in try TaskRules.dueMilliseconds(due, field: "due") }

        return try storage {
            try database.writeTransaction {
                let now = clock()
                let task = TaskItem(
                    id: id, title: draft.title, notes: draft.notes, done: draft.done, priority: draft.priority,
                    tags: tags, due: draft.due, createdAt: now, updatedAt: now,
                    completedAt: draft.done ? now : nil, version: 1)
                try database.run("""
                    INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, due, due_at,
                                      created_at, updated_at, completed_at, version)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO NOTHING
                    """, [
                        .text(task.id), .text(task.title), .text(TaskRules.folded(task.title)),
                        .text(task.notes), .text(TaskRules.folded(task.notes)), SQLValue(task.done),
                        SQLValue(task.priority), SQLValue(task.due), SQLValue(dueAt),
                        .integer(now), .integer(now), SQLValue(task.completedAt), .integer(task.version),
                    ])
                guard database.changes == 1 else { throw TaskStoreError.alreadyExists(id: id) }
                try insertTags(tags, taskPK: database.lastInsertRowID)
                let change = try record(.created, task: task, at: now)
                return WriteResult(value: task, change: change)
            }
        }
    }

    public func update(id: String, changes: TaskChanges, ifVersion: Int64? = nil) throws -> WriteResult<TaskItem> {
        if let title = changes.title { try TaskRules.validateTitle(title, field: "changes.title") }
        if let notes = changes.notes { try TaskRules.validateNotes(notes, field: "changes.notes") }
        if let priority = changes.priority { try TaskRules.validatePriority(priority, field: "changes.priority") }
        let tags = try changes.tags.map { tags throws in try TaskRules.normalizeTags(tags, field: "changes.tags") }
        var dueAt: Int64?? = nil
        if case .some(let due) = changes.due {
            dueAt = .some(try due.map { due throws in try TaskRules.dueMilliseconds(due, field: "changes.due") })
        }

        return try storage {
            try database.writeTransaction {
                guard let (pk, current) = try loadWithKey(id: id) else { throw TaskStoreError.notFound(id: id) }
                if let ifVersion, ifVersion != current.version { throw TaskStoreError.versionConflict(current: current) }

                var next = current
                if let title = changes.title { next.title = title }
                if let notes = changes.notes { next.notes = notes }
                if let priority = changes.priority { next.priority = priority }
                if let tags { next.tags = tags }
                if case .some(let due) = changes.due { next.due = due }
                if let done = changes.done { next.done = done }
                guard next != current else { return WriteResult(value: current, change: nil) }

                let now = clock()
                if next.done != current.done { next.completedAt = next.done ? now : nil }
                next.updatedAt = now
                next.version += 1
                let currentDueAt: Int64? = try current.due.map { try TaskRules.dueMilliseconds($0, field: "due") }
                try database.run("""
                    UPDATE task SET title = ?, title_fold = ?, notes = ?, notes_fold = ?, done = ?, priority = ?,
                                    due = ?, due_at = ?, updated_at = ?, completed_at = ?, version = ?
                    WHERE pk = ?
                    """, [
                        .text(next.title), .text(TaskRules.folded(next.title)), .text(next.notes),
                        .text(TaskRules.folded(next.notes)), SQLValue(next.done), SQLValue(next.priority),
                        SQLValue(next.due), SQLValue(dueAt ?? currentDueAt), .integer(now),
                        SQLValue(next.completedAt), .integer(next.version), .integer(pk),
                    ])
                if next.tags != current.tags {
                    try database.run("DELETE FROM task_tag WHERE task_pk = ?", [.integer(pk)])
                    try insertTags(next.tags, taskPK: pk)
                }
                let change = try record(.updated, task: next, at: now)
                return WriteResult(value: next, change: change)
            }
        }
    }

    public func delete(id: String, ifVersion: Int64? = nil) throws -> WriteResult<String> {
        try storage {
            try database.writeTransaction {
                guard let (pk, current) = try loadWithKey(id: id) else { throw TaskStoreError.notFound(id: id) }
                if let ifVersion, ifVersion != current.version { throw TaskStoreError.versionConflict(current: current) }
                try database.run("DELETE FROM task WHERE pk = ?", [.integer(pk)])
                let seq = try appendChange(kind: .deleted, id: id, version: current.version, at: clock())
                return WriteResult(value: id, change: TaskChange(seq: seq, kind: .deleted, id: id, version: current.version, task: nil))
            }
        }
    }

    /// The newest `seq` ever handed out: 0 for a database that never changed.
    public func currentSeq() throws -> Int64 {
        try storage { try database.integer("SELECT seq FROM sqlite_sequence WHERE name = 'change'") ?? 0 }
    }

    // MARK: - Helpers

    /// Runs `body`, turning SQLite's errors into `TaskStoreError.storage` and letting the
    /// store's own errors through.
    private func storage<T>(_ body: () throws -> T) throws -> T {
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

    private func hasMore(plan: FetchPlan, after keys: [SQLValue]) throws -> Bool {
        let (sql, values) = plan.pageSQL(after: Cursor(signature: plan.signature, values: keys))
        return try database.cachedStatement(sql).firstRow(values + [.integer(1), .integer(0)]) { _ in true } ?? false
    }

    private func load(id: String) throws -> TaskItem? {
        try loadWithKey(id: id)?.task
    }

    private func loadWithKey(id: String) throws -> (pk: Int64, task: TaskItem)? {
        try database.cachedStatement("SELECT \(FetchPlan.taskColumns) FROM task WHERE id = ?")
            .firstRow([.text(id)]) { row in (row.int64(0), try readTask(row)) }
    }

    /// Reads a row whose first columns are `FetchPlan.taskColumns`.
    private func readTask(_ row: Row) throws -> TaskItem {
        let pk = row.int64(0)
        var tags: [String] = []
        try database.cachedStatement("SELECT tag FROM task_tag WHERE task_pk = ? ORDER BY tag")
            .forEachRow([.integer(pk)]) { tags.append($0.text(0)) }
        return TaskItem(
            id: row.text(1), title: row.text(2), notes: row.text(3), done: row.bool(4), priority: row.int(5),
            tags: tags, due: row.optionalText(6), createdAt: row.int64(7), updatedAt: row.int64(8),
            completedAt: row.optionalInt64(9), version: row.int64(10))
    }

    private func insertTags(_ tags: [String], taskPK: Int64) throws {
        let statement = try database.cachedStatement("INSERT INTO task_tag (tag, task_pk) VALUES (?, ?)")
        for tag in tags { try statement.run([.text(tag), .integer(taskPK)]) }
    }

    private func record(_ kind: TaskChange.Kind, task: TaskItem, at time: Int64) throws -> TaskChange {
        let seq = try appendChange(kind: kind, id: task.id, version: task.version, at: time)
        return TaskChange(seq: seq, kind: kind, id: task.id, version: task.version, task: task)
    }

    private func appendChange(kind: TaskChange.Kind, id: String, version: Int64, at time: Int64) throws -> Int64 {
        try database.run("INSERT INTO change (kind, task_id, version, at) VALUES (?, ?, ?, ?)",
                         [.text(kind.rawValue), .text(id), .integer(version), .integer(time)])
        return database.lastInsertRowID
    }
}
