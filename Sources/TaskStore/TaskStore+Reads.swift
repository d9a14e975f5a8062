import SQLite
import TaskModel

/// Reading tasks: one by id, and pages of them.
extension TaskStore {
    public func get(id: String) throws -> TaskItem {
        try translatingSQLiteErrors {
            guard let task = try load(id: id) else { throw TaskStoreError.notFound(id: id) }
            return task
        }
    }

    public func fetch(_ query: TaskQuery) throws -> TaskPage {
        try query.validate()
        // One snapshot for the plan, the page, the total and the seq, whatever other
        // processes commit: the plan's choices depend on what the database holds.
        return try translatingSQLiteErrors {
            try database.readTransaction {
                let now = clock()
                var plan = try FetchPlan(filter: query.filter, sort: query.sort, now: now, database: database)
                var cursor: Cursor?
                if let encoded = query.cursor {
                    guard let decoded = Cursor(encoded: encoded), plan.accepts(decoded) else {
                        throw TaskStoreError.invalid(field: "cursor", reason: "not a cursor from a fetch with this sort")
                    }
                    cursor = decoded
                }
                let read: PageRead
                if let candidates = plan.commonTextCandidates {
                    read = try readPage(query, plan: &plan, after: cursor, commonText: candidates)
                } else {
                    read = try readPage(query, plan: plan, after: cursor)
                }
                var page = TaskPage(tasks: read.tasks, nextCursor: nil, total: nil, seq: try Schema.newestSeq(in: database))
                if let lastKeys = read.nextCursorKeys {
                    page.nextCursor = Cursor(signature: plan.signature, values: lastKeys).encoded
                }
                if query.includeTotal { page.total = try total(of: query, plan: plan, now: now) }
                return page
            }
        }
    }

    /// `includeTotal`'s count, in the page's snapshot.
    private func total(of query: TaskQuery, plan: FetchPlan, now: Int64) throws -> Int {
        var total: Int64 = 0
        for count in try plan.totalCounts(of: query.filter, now: now, in: database) {
            total += Int64(count.sign) * (try database.cachedStatement(count.sql).firstRow(count.values) { $0.int64(0) } ?? 0)
        }
        return Int(total)
    }

    /// A page's tasks, and the sort keys of its last one when another page follows.
    private struct PageRead {
        var tasks: TaskBuffer
        var nextCursorKeys: [SQLValue]?
    }

    /// A page for a needle whose trigram index candidates are not few: its tasks most
    /// likely come early in the sort order, so the page is scanned for on a budget. Past
    /// it the candidates are counted. Few enough to read cheaply, they are read and sorted
    /// (`plan` is made again to read them); more, the scan is tried once more on a budget
    /// of what reading them would cost, then they are read, so that the page costs at most
    /// about twice the cheaper of the two; too many to be worth reading, the scan runs to
    /// the end.
    private func readPage(_ query: TaskQuery, plan: inout FetchPlan, after cursor: Cursor?, commonText candidates: String) throws -> PageRead {
        if let read = try readPage(query, plan: plan, after: cursor, within: TextIndex.scanTime) { return read }
        switch try TextIndex.reading(candidates, in: database) {
        case .cheap:
            break
        case .dear(let cost):
            if let read = try readPage(query, plan: plan, after: cursor, within: cost) { return read }
        case .tooDear:
            return try readPage(query, plan: plan, after: cursor)
        }
        plan = try FetchPlan(filter: query.filter, sort: query.sort, now: clock(), database: database, textFromIndex: candidates)
        return try readPage(query, plan: plan, after: cursor)
    }

    /// The page, or nil if reading it takes longer than `budget`.
    private func readPage(_ query: TaskQuery, plan: FetchPlan, after cursor: Cursor?, within budget: Duration) throws -> PageRead? {
        do {
            return try database.withTimeBudget(budget) { try readPage(query, plan: plan, after: cursor) }
        } catch let error as SQLiteError where error.resultCode.primary == .interrupt {
            return nil
        }
    }

    private func readPage(_ query: TaskQuery, plan: FetchPlan, after cursor: Cursor?) throws -> PageRead {
        var tasks = TaskBuffer()
        tasks.reserveCapacity(query.limit, textBytes: 96)
        var lastKeys: [SQLValue] = []
        var hasMore = false
        var runs = plan.pageRuns(after: cursor)
        if let offset = query.offset, offset > 0, !runs.isEmpty {
            // The page after the last task the offset skips: the same as the page after
            // a cursor there.
            let skipped = try lastTask(skippedBy: Int64(offset), runs: runs, plan: plan)
            runs = skipped.map { plan.pageRuns(after: $0) } ?? []
        }
        for run in runs where !hasMore {
            // One row more than the limit is asked for: it tells whether a next page exists.
            let wanted = Int64(query.limit + 1 - tasks.count)
            let statement = try database.cachedStatement(run.sql)
            let columns = statement.layout(PageColumns.self)
            try statement.forEachRow(run.values + [.integer(wanted)]) { row in
                guard tasks.count < query.limit else {
                    hasMore = true
                    return
                }
                columns.task.append(row, to: &tasks)
                // Only the page's last task gives the cursor.
                if tasks.count == query.limit {
                    lastKeys = columns.sortKeys.map { row.value($0) }
                }
            }
        }
        return PageRead(tasks: tasks, nextCursorKeys: hasMore ? lastKeys : nil)
    }

    /// The sort keys of the `offset`th task in the order of `runs` (a first page's), as a
    /// cursor: read from the runs' keys alone, a run the offset passes whole counted. Nil
    /// when fewer tasks match.
    private func lastTask(skippedBy offset: Int64, runs: [FetchPlan.Run], plan: FetchPlan) throws -> Cursor? {
        if plan.mergesDoneRuns {
            return try lastTaskOfMerge(skippedBy: offset, plan: plan)
        }
        var remaining = offset
        for (index, run) in runs.enumerated() {
            if let keys = try database.cachedStatement(run.keysSQL).firstRow(
                run.values + [.integer(remaining - 1)],
                { row in
                    (0..<Int32(plan.keys.count)).map { row.value($0) }
                })
            {
                return Cursor(signature: plan.signature, values: keys)
            }
            guard index < runs.count - 1 else { break }
            remaining -= try database.cachedStatement(plan.countSQL(of: run)).firstRow(run.values) { $0.int64(0) } ?? 0
        }
        return nil
    }

    /// The same for a plan that merges the open and the done tasks' runs, without stepping
    /// through the merge from the start (a compound's rows cost SQLite several times an
    /// index entry's). Were the done tasks spread evenly through the order, the task at
    /// the offset would be the open one at its share of the offset: that one's place in the
    /// merge is counted (the open tasks before it, read past, and the done ones, counted),
    /// and the merge is stepped through only from there, forwards or backwards, as far as
    /// it missed.
    private func lastTaskOfMerge(skippedBy offset: Int64, plan: FetchPlan) throws -> Cursor? {
        let keys = { (row: Row) in (0..<Int32(plan.keys.count)).map { row.value($0) } }
        let share =
            try database.cachedStatement("SELECT coalesce(sum(count) FILTER (WHERE done = 0), 0), coalesce(sum(count), 0) FROM task_total")
            .firstRow { Double($0.int64(0)) / Double(max(1, $0.int64(1))) } ?? 0
        let estimate = min(offset - 1, Int64(Double(offset) * share))
        let side = plan.sideKeys(done: false)
        guard let probe = try database.cachedStatement(side.sql).firstRow(side.values + [.integer(estimate)], keys) else {
            let run = plan.pageRuns(after: nil)[0]
            return try database.cachedStatement(run.keysSQL).firstRow(run.values + [.integer(offset - 1)], keys)
                .map { Cursor(signature: plan.signature, values: $0) }
        }
        let count = plan.sideCount(done: true, before: probe)
        let place = try estimate + 1 + (database.cachedStatement(count.sql).firstRow(count.values) { $0.int64(0) } ?? 0)
        if place == offset {
            return Cursor(signature: plan.signature, values: probe)
        }
        let run = place < offset ? plan.pageRuns(after: Cursor(signature: plan.signature, values: probe))[0] : plan.mergeBackwards(from: probe)
        return try database.cachedStatement(run.keysSQL).firstRow(run.values + [.integer(abs(offset - place) - 1)], keys)
            .map { Cursor(signature: plan.signature, values: $0) }
    }

    /// A random number given to the database when it was made: a client that catches up
    /// with `tasks/changes` can tell a replaced file from the one it followed.
    public func databaseID() throws -> Int64 {
        try translatingSQLiteErrors { try database.integer("SELECT value FROM meta WHERE key = ?", [.text(Schema.databaseIDKey)]) ?? 0 }
    }

    func load(id: String) throws -> TaskItem? {
        try loadForWrite(id: id)?.task
    }

    /// The task `id` with its row's key, which writes address it by.
    package func loadForWrite(id: String) throws -> (key: Int64, task: TaskItem)? {
        let statement = try database.cachedStatement(Self.loadSQL)
        let columns = statement.layout(TaskColumns.self)
        return try statement.firstRow([.text(id)]) { row in (row.int64(columns.pk), columns.task(in: row)) }
    }

    /// Built once: a string made per call costs its building, and the statement cache's
    /// comparison of the whole text (one made once compares as the same storage).
    private static let loadSQL = "SELECT \(FetchPlan.taskColumns) FROM task WHERE id = ?"
}
