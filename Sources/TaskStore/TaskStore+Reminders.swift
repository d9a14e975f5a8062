import SQLite
import TaskModel

/// Reminders: a task whose `remindAt` has passed while it is not done is reminded of once
/// per database. The server that marks it reminded (`reminded`, schema 19), in a write
/// transaction, is the one that sends it; the others, and that server later, find it marked.
extension TaskStore {
    /// How many reminders one call takes: one `tasks/remind` each.
    public static let remindersPerClaim = DueReminders.perClaim

    /// Marks the reminders due at `now` (up to `remindersPerClaim`) as sent, and returns them
    /// for the caller to send, with the time of the next. When none is due it only reads the
    /// next, and writes nothing.
    public func claimDueReminders(now: Int64) throws -> DueReminders {
        try translatingSQLiteErrors {
            let next = try nextReminder()
            guard let next, next <= now else { return DueReminders(tasks: [], next: next) }
            return try writeTransaction {
                var claimed: [(pk: Int64, task: TaskItem)] = []
                let due = try database.cachedStatement(Self.dueRemindersSQL)
                let columns = due.layout(TaskColumns.self)
                try due.forEachRow([.integer(now), .integer(Int64(Self.remindersPerClaim))]) { row in
                    claimed.append((row.int64(columns.pk), columns.task(in: row)))
                }
                let mark = try database.cachedStatement("UPDATE task SET reminded = 1 WHERE pk = ?")
                for (pk, _) in claimed { try mark.run([.integer(pk)]) }
                return DueReminders(tasks: claimed.map(\.task), next: try nextReminder())
            }
        }
    }

    /// The time of the soonest reminder still to send, in ms: one read of task_reminder_due.
    private func nextReminder() throws -> Int64? {
        try database.cachedStatement(Self.nextReminderSQL).firstRow { $0.int64(0) }
    }

    /// task_reminder_due's conditions, which a query must repeat to read it. Named: the
    /// planner prefers task_by_done's equality on `done`, and sorts every open task.
    private static let pendingReminder = "task INDEXED BY task_reminder_due WHERE remind_at IS NOT NULL AND done = 0 AND reminded = 0"
    private static let nextReminderSQL = "SELECT remind_at FROM \(pendingReminder) ORDER BY remind_at LIMIT 1"
    private static let dueRemindersSQL = """
        SELECT \(FetchPlan.taskColumns) FROM \(pendingReminder) AND remind_at <= ? ORDER BY remind_at, pk LIMIT ?
        """
}
