/// Reminders that `claimDueReminders` marked as this caller's to send, and when the next
/// one not yet due is.
public struct DueReminders: Sendable {
    /// In the order of their times, then of their rows.
    public var tasks: [TaskItem]
    /// In ms since the epoch; nil when no open task has a reminder still to send. At or
    /// before `now` when more were due than one call takes.
    public var next: Int64?

    /// How many reminders one claim takes: one `tasks/remind` each.
    public static let perClaim = 100

    public init(tasks: [TaskItem], next: Int64?) {
        self.tasks = tasks
        self.next = next
    }
}
