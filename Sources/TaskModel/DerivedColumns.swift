/// The columns a store derives from a task's fields and keeps beside them (its sort and
/// filter keys), as a row holds them: what a check compares with the fields.
package struct DerivedColumns {
    package var titleFold: String
    package var notesFold: String
    package var dueAt: Int64?
    package var waitAt: Int64?
    package var remindAt: Int64?
    /// The annotations as stored, which a task read from the row leaves out where unreadable.
    package var storedAnnotations: String

    package init(titleFold: String, notesFold: String, dueAt: Int64?, waitAt: Int64?, remindAt: Int64?, storedAnnotations: String) {
        self.titleFold = titleFold
        self.notesFold = notesFold
        self.dueAt = dueAt
        self.waitAt = waitAt
        self.remindAt = remindAt
        self.storedAnnotations = storedAnnotations
    }
}

extension CheckedTask {
    /// What is wrong with a stored task, each as "task ID: …": the rule it breaks, or else
    /// each derived column that does not match its field.
    package static func problems(of task: TaskItem, derived: DerivedColumns) throws -> [String] {
        let checked: CheckedTask
        do {
            checked = try CheckedTask(task)
        } catch TaskStoreError.invalid(let field, let reason) {
            return ["task \(task.id): \(field) \(reason)"]
        }
        let mismatches: [(Bool, String)] = [
            (derived.titleFold != TaskRules.folded(task.title), "title_fold does not match the title"),
            (derived.notesFold != TaskRules.folded(task.notes), "notes_fold does not match the notes"),
            (derived.dueAt != checked.dueAt, "due_at does not match the due date"),
            (derived.waitAt != checked.waitAt, "wait_at does not match the wait time"),
            (checked.task.seriesId != task.seriesId, "it recurs but has no seriesId"),
            (derived.remindAt != checked.remindAt, "remind_at does not match the reminder time"),
            (checked.task.annotations != task.annotations, "its annotations are not in order of their times"),
            (Annotation.list(stored: derived.storedAnnotations) == nil, "annotations holds an item that is not a time and a text"),
        ]
        return mismatches.filter(\.0).map { "task \(task.id): \($0.1)" }
    }
}
