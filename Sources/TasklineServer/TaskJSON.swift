import JSONRPC
import TaskStore

/// The wire form of tasks and changes. Public for the command line, whose export and
/// import speak the same task object as the protocol.
public enum TaskJSON {
    public static func encode(_ task: TaskItem) -> JSON {
        [
            "id": .string(task.id),
            "title": .string(task.title),
            "notes": .string(task.notes),
            "done": .bool(task.done),
            "priority": .integer(Int64(task.priority)),
            "tags": .array(task.tags.map(JSON.string)),
            "due": task.due.map(JSON.string) ?? .null,
            "createdAt": .string(Timestamp.format(milliseconds: task.createdAt)),
            "updatedAt": .string(Timestamp.format(milliseconds: task.updatedAt)),
            "completedAt": task.completedAt.map { .string(Timestamp.format(milliseconds: $0)) } ?? .null,
            "version": .integer(task.version),
        ]
    }

    /// What a write answers: the task, or for a deletion `{"id": …, "deleted": true}`.
    static func encode(_ result: OperationOutcome.Result) -> JSON {
        switch result {
        case .task(let task): encode(task)
        case .deleted(let id): ["id": .string(id), "deleted": true]
        }
    }

    static func encode(_ change: TaskChange) -> JSON {
        var object: JSONObject = [
            "seq": .integer(change.seq),
            "kind": .string(change.kind.rawValue),
            "id": .string(change.id),
            "version": .integer(change.version),
        ]
        if let task = change.task { object["task"] = encode(task) }
        return .object(object)
    }

    /// `tasks/didChange` for changes committed together.
    static func didChange(_ changes: [TaskChange]) -> Notification {
        Notification(method: "tasks/didChange", params: [
            "seq": .integer(changes.last?.seq ?? 0),
            "changes": .array(changes.map(encode)),
        ])
    }
}
