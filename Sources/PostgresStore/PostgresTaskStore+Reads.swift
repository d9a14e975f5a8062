import PostgreSQL
import TaskModel

/// Reading tasks: one by id, pages of them, and reminders that came due.
extension PostgresTaskStore {
    public func get(id: String) throws -> TaskItem {
        try translatingErrors {
            guard let task = try load(id: id) else { throw TaskStoreError.notFound(id: id) }
            return task
        }
    }

    func load(id: String) throws -> TaskItem? {
        // No task's id holds a control character, and PostgreSQL's text cannot carry U+0000.
        guard !id.utf8.contains(0) else { return nil }
        let rows = try connection.query("SELECT \(TaskRow.columns) FROM task WHERE id = $1", [.text(id)])
        return try rows.first.map(TaskRow.task)
    }

    /// A page, its total and the newest seq, in one snapshot.
    public func fetch(_ query: TaskQuery) throws -> TaskPage {
        try query.validate()
        return try translatingErrors {
            try connection.transaction(.repeatableRead) {
                let now = clock()
                let plan = try PostgresFetchPlan(query: query, now: now, connection: connection, textIndexed: hasTextIndex)
                // One row more than the limit is asked for: it tells whether a next page exists.
                var rows: [PostgresRow] = []
                var offset = query.offset ?? 0
                let runs = plan.runs
                for (index, run) in runs.enumerated() where rows.count <= query.limit {
                    let returned = try connection.query(run.sql, run.values + [PostgresValue(query.limit + 1 - rows.count), PostgresValue(offset)])
                    rows += returned
                    // A run that returned nothing held no more tasks than the offset skips.
                    if offset > 0 && index < runs.count - 1 {
                        offset = returned.isEmpty ? offset - (try connection.query(run.countSQL, run.values)[0].int("n")) : 0
                    }
                }
                let tasks = try rows.prefix(query.limit).map(TaskRow.task)
                var page = TaskPage(
                    tasks: TaskBuffer(tasks), nextCursor: nil, total: nil,
                    seq: try connection.query("SELECT seq FROM change_counter")[0].int64("seq"))
                if rows.count > query.limit, let last = tasks.last {
                    page.nextCursor = plan.cursor(after: last)
                }
                if query.includeTotal { page.total = try total(of: query, plan: plan, now: now) }
                return page
            }
        }
    }

    /// `includeTotal`'s count, in the page's snapshot.
    private func total(of query: TaskQuery, plan: PostgresFetchPlan, now: Int64) throws -> Int {
        var total = 0
        for count in try plan.totalCounts(of: query.filter, now: now, connection: connection) {
            total += count.sign * (try connection.query(count.sql, count.values)[0].int("n"))
        }
        return total
    }

    /// Marks the reminders due at `now` (up to `DueReminders.perClaim`) as sent,
    /// and returns them, in the order of their times, then of their ids. Another server's
    /// claim in progress is skipped, not waited for: each reminder is sent by one server.
    public func claimDueReminders(now: Int64) throws -> DueReminders {
        try translatingErrors {
            let next = try nextReminder()
            guard let next, next <= now else { return DueReminders(tasks: [], next: next) }
            return try connection.transaction(.readCommitted) {
                let rows = try connection.query(
                    """
                    UPDATE task SET reminded = true WHERE id IN (
                        SELECT id FROM task WHERE \(Self.pendingReminder) AND remind_at <= $1
                        ORDER BY remind_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
                    RETURNING remind_at, \(TaskRow.columns)
                    """, [.integer(now), PostgresValue(DueReminders.perClaim)])
                let claimed = try rows.map { (at: try $0.int64("remind_at"), task: try TaskRow.task(in: $0)) }
                    .sorted { $0.at != $1.at ? $0.at < $1.at : $0.task.id.utf8.lexicographicallyPrecedes($1.task.id.utf8) }
                return DueReminders(tasks: claimed.map(\.task), next: try nextReminder())
            }
        }
    }

    private static let pendingReminder = "remind_at IS NOT NULL AND NOT done AND NOT reminded"

    private func nextReminder() throws -> Int64? {
        try connection.query("SELECT remind_at FROM task WHERE \(Self.pendingReminder) ORDER BY remind_at LIMIT 1").first
            .map { try $0.int64("remind_at") }
    }
}
