import SQLite
import TaskModel

/// The change log: what changed after a seq, and pruning what is old.
extension TaskStore {
    /// The newest `seq` ever handed out: 0 for a database that never changed.
    public func currentSeq() throws -> Int64 {
        try translatingSQLiteErrors { try Schema.newestSeq(in: database) }
    }

    /// Every change after `since`, oldest first, at most `limit`. Creations and updates carry
    /// the task as it is now (absent when it has since been deleted); deletions are tombstones.
    public func changes(since: Int64, limit: Int = 1000) throws -> ChangePage {
        guard since >= 0 else { throw TaskStoreError.invalid(field: "since", reason: "must be 0 or more") }
        guard (1...TaskQuery.maxLimit).contains(limit) else {
            throw TaskStoreError.invalid(field: "limit", reason: "must be 1 to \(TaskQuery.maxLimit)")
        }
        return try translatingSQLiteErrors {
            let prunedThrough = try Schema.prunedThrough(in: database)
            if since < prunedThrough {
                throw TaskStoreError.historyExpired(since: since, oldestSeq: prunedThrough + 1)
            }
            let current = try Schema.newestSeq(in: database)
            if since > current {
                throw TaskStoreError.invalid(field: "since", reason: "is ahead of this database, whose newest seq is \(current)")
            }
            var changes: [TaskChange] = []
            let statement = try database.cachedStatement(Self.changesSQL)
            let columns = statement.layout(ChangeColumns.self)
            try statement.forEachRow([.integer(since), .integer(Int64(limit) + 1)]) { row in
                guard changes.count < limit else { return }
                changes.append(columns.change(in: row))
            }
            let hasMore =
                try changes.last.map { last in
                    try database.integer("SELECT 1 FROM change WHERE seq > ? LIMIT 1", [.integer(last.seq)]) != nil
                } ?? false
            return ChangePage(changes: changes, seq: changes.last?.seq ?? since, hasMore: hasMore)
        }
    }

    /// The changes after `?`, at most `?`, each with its task as it is now. The deletions
    /// after a change are found in `change_deletion_by_task`, which holds only deletions:
    /// the subquery says `later.kind = 'deleted'` as the index does, so SQLite can use it.
    static let changesSQL = """
        SELECT change.seq, change.kind, change.task_id, change.version AS change_version, \(FetchPlan.taskColumns)
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
        try translatingSQLiteErrors {
            // Looked up outside a write transaction first: at start-up there is usually
            // nothing to remove, and the write lock (which another process may hold) is not needed.
            guard try lastPrunable(before: cutoff) != nil else { return 0 }
            return try writeTransaction {
                guard let through = try lastPrunable(before: cutoff) else { return 0 }
                try database.run("DELETE FROM change WHERE seq <= ?", [.integer(through)])
                let removed = database.changes
                try pruneGroups(through: through)
                try database.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [.text(Schema.prunedThroughKey), .integer(through)])
                return removed
            }
        }
    }

    /// The newest seq that pruning at `cutoff` removes, or nil when nothing goes.
    private func lastPrunable(before cutoff: Int64) throws -> Int64? {
        guard let oldest = try database.integer("SELECT min(seq) FROM change") else { return nil }
        let firstKept =
            try database.integer("SELECT seq FROM change WHERE at >= ? ORDER BY seq LIMIT 1", [.integer(cutoff)])
            ?? Schema.newestSeq(in: database)
        // Compared before subtracting: a seq another program stored may be Int64.min.
        return firstKept > oldest ? firstKept - 1 : nil
    }

    /// Task `id`'s entries in the change log, oldest first, as far back as the log is kept:
    /// its history of versions. The log has no index by task, so this reads all of it (for
    /// one person's command, not for a client's every page).
    public func loggedChanges(of id: String) throws -> [LoggedChange] {
        try translatingSQLiteErrors {
            var entries: [LoggedChange] = []
            try database.cachedStatement("SELECT seq, kind, version, at FROM change WHERE task_id = ? ORDER BY seq")
                .forEachRow([.text(id)]) { row in
                    guard let kind = TaskChange.Kind(rawValue: row.text(1)) else { return }
                    entries.append(LoggedChange(seq: row.int64(0), kind: kind, version: row.int64(2), at: row.int64(3)))
                }
            return entries
        }
    }
}
