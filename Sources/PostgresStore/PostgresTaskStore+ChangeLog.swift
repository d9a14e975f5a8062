import PostgreSQL
import TaskModel

/// The change log: `seq` has no gaps and follows commit order (see `writing`), so a reader
/// that has seen seq N never later finds a smaller one.
extension PostgresTaskStore {
    public func currentSeq() throws -> Int64 {
        try translatingErrors { try connection.query("SELECT seq FROM change_counter")[0].int64("seq") }
    }

    /// Every change after `since`, oldest first, at most `limit`, read in one snapshot: one
    /// statement, one round trip (a woken server reads the log after every other server's
    /// commit). Creations and updates carry the task as it is now (absent when it has since
    /// been deleted); deletions are tombstones.
    public func changes(since: Int64, limit: Int) throws -> ChangePage {
        guard since >= 0 else { throw TaskStoreError.invalid(field: "since", reason: "must be 0 or more") }
        guard (1...TaskQuery.maxLimit).contains(limit) else {
            throw TaskStoreError.invalid(field: "limit", reason: "must be 1 to \(TaskQuery.maxLimit)")
        }
        let rows = try translatingErrors { try connection.query(prepared: Self.changesStatement, [.integer(since), .integer(Int64(limit) + 1)]) }
        // Every row carries the log's state; a change's columns are null in the one row of a read that found none.
        let state = rows[0]
        let prunedThrough = try TaskRules.prunedThrough(try state.int64("pruned"), storedAs: "taskline_schema's pruned_through")
        if since < prunedThrough {
            throw TaskStoreError.historyExpired(since: since, oldestSeq: prunedThrough + 1)
        }
        let current = try state.int64("current")
        if since > current {
            throw TaskStoreError.invalid(field: "since", reason: "is ahead of this database, whose newest seq is \(current)")
        }
        let found = rows.filter { !$0.isNull("seq") }
        let changes = try found.prefix(limit).map { row in
            TaskChange(
                seq: try row.int64("seq"), kind: TaskChange.Kind(rawValue: try row.text("kind")) ?? .updated,
                id: try row.text("task_id"), version: try row.int64("change_version"),
                task: row.isNull("id") ? nil : try TaskRow.task(in: row))
        }
        return ChangePage(changes: changes, seq: changes.last?.seq ?? since, hasMore: found.count > limit)
    }

    /// Prepared in each session (`prepareStatements`): a woken server runs it after every
    /// other server's commit, and planning it costs more than running it.
    static func prepareStatements(_ connection: PostgresConnection) throws {
        try connection.prepare(changesStatement, changesSQL, parameterTypes: [.integer(0), .integer(0)])
    }

    private static let changesStatement = "taskline_changes"

    private static let changesSQL = """
        SELECT state.pruned, state.current, change.*
        FROM (SELECT (SELECT pruned_through FROM taskline_schema) AS pruned, (SELECT seq FROM change_counter) AS current) AS state
        LEFT JOIN LATERAL (
            SELECT change_log.seq, change_log.kind, change_log.task_id, change_log.version AS change_version, current_task.*
            FROM change_log LEFT JOIN LATERAL (
                -- The task by its key, for each change read: LIMIT 1 keeps the planner from
                -- joining by hashing the whole task table instead.
                SELECT \(TaskRow.columns) FROM task
                WHERE task.id = change_log.task_id AND change_log.kind <> 'deleted'
                    -- not a later task that reused the id of one deleted since
                    AND NOT EXISTS (SELECT 1 FROM change_log AS later
                                    WHERE later.task_id = change_log.task_id AND later.kind = 'deleted' AND later.seq > change_log.seq)
                LIMIT 1
            ) AS current_task ON true
            WHERE change_log.seq > $1 ORDER BY change_log.seq LIMIT $2
        ) AS change ON true
        ORDER BY change.seq
        """

    /// Removes the changes recorded before `cutoff`, but for the newest, with the change
    /// groups they were part of, and remembers how far the log was cut.
    @discardableResult
    public func pruneHistory(before cutoff: Int64) throws -> Int {
        try translatingErrors {
            try connection.transaction(.readCommitted) {
                let bounds = try connection.query(
                    """
                    SELECT (SELECT min(seq) FROM change_log) AS oldest,
                           coalesce((SELECT min(seq) FROM change_log WHERE at >= $1), (SELECT seq FROM change_counter)) AS first_kept
                    """, [.integer(cutoff)])[0]
                guard let oldest = try bounds.optionalInt64("oldest") else { return 0 }
                let firstKept = try bounds.int64("first_kept")
                guard firstKept > oldest else { return 0 }
                let removed = try connection.run("DELETE FROM change_log WHERE seq < $1", [.integer(firstKept)])
                try connection.run("UPDATE taskline_schema SET pruned_through = greatest(pruned_through, $1)", [.integer(firstKept - 1)])
                try pruneGroups(before: firstKept)
                return removed
            }
        }
    }
}
