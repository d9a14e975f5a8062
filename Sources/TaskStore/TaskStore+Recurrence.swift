import SQLite
import TaskModel

/// Recurring tasks: completing one creates its next occurrence in the same transaction.
extension TaskStore {
    /// Creates the next occurrence of `task` (row `pk`), which has just been completed, and
    /// returns its change, one of group `group`'s; nil when the task does not recur, its rule makes no further
    /// occurrence, or the next occurrence it made before still exists (it was completed,
    /// reopened, and is completed again; a successor deleted since, or undone, is made anew).
    /// The claim on row `pk` and the new task are written in the caller's
    /// write transaction, which other processes wait for (BEGIN IMMEDIATE), so of several
    /// writers completing the same occurrence exactly one sees it open and makes a successor.
    func makeSuccessor(of task: TaskItem, pk: Int64, at now: Int64, group: GroupRecorder) throws -> TaskChange? {
        guard let rule = task.recurrence, let due = task.due else { return nil }
        let parsed: RecurrenceRule
        do {
            parsed = try RecurrenceRule(rule, field: "recurrence.rule")
        } catch {
            throw TaskStoreError.outOfRange(
                "task \(task.id)'s stored recurrence \(rule) is not a rule Taskline reads: its stored data is out of range (see taskline check)")
        }
        guard let (nextDue, nextRule) = parsed.next(after: due, ruleText: rule) else { return nil }
        let id = TaskItem.newID()
        try database.cachedStatement(
            """
            UPDATE task SET successor_id = ?
            WHERE pk = ? AND (successor_id IS NULL OR NOT EXISTS (SELECT 1 FROM task AS made WHERE made.id = task.successor_id))
            """
        ).run([.text(id), .integer(pk)])
        guard database.changes == 1 else { return nil }
        let successor = TaskItem(
            id: id, title: task.title, notes: task.notes, priority: task.priority, tags: task.tags, due: nextDue,
            project: task.project, recurrence: nextRule, seriesId: task.seriesId ?? task.id, createdAt: now, updatedAt: now)
        guard try insertRow(successor, dueAt: try storedTime(nextDue, of: successor), waitAt: nil, origin: origin) != nil else {
            throw TaskStoreError.alreadyExists(id: id)
        }
        return try lastChange(.created, task: successor, group: group, markedByInsert: true)
    }
}
