import JSONRPC
import TaskModel

enum CreateTask: SingleWriteMethod {
    static let name = "tasks/create"

    static func params(from reader: inout ParamsReader) throws(ResponseError) -> TaskDraft {
        TaskDraft(
            id: try reader.string("id"),
            title: try reader.requiredString("title"),
            notes: try reader.string("notes") ?? "",
            done: try reader.bool("done") ?? false,
            priority: try reader.int("priority") ?? 0,
            tags: try reader.stringArray("tags") ?? [],
            due: try reader.string("due"),
            project: try reader.string("project"),
            dependsOn: try reader.stringArray("dependsOn") ?? [],
            wait: try reader.string("wait"),
            meta: try reader.metaObject("meta") ?? TaskItem.emptyMeta,
            recurrence: try reader.recurrence("recurrence") ?? nil,
            remindAt: try reader.string("remindAt"),
            annotations: try reader.annotations("annotations") ?? [],
            startedAt: try reader.timestamp("startedAt"))
    }

    static func operation(from draft: TaskDraft) -> TaskOperation {
        .create(draft)
    }
}
