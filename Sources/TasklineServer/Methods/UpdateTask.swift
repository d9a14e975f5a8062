import JSONRPC
import TaskModel

enum UpdateTask: SingleWriteMethod {
    struct Params: Sendable {
        var id: String
        var changes: TaskChanges
        var ifVersion: Int64?
    }

    static let name = "tasks/update"

    static func params(from reader: inout ParamsReader) throws(ResponseError) -> Params {
        let id = try reader.requiredString("id")
        let changesReader = try reader.object("changes")
        var changes = try reader.required("changes", changesReader)
        // Only `due`, `project`, `wait`, `meta`, `recurrence`, `remindAt` and `startedAt` may be null: it clears them.
        changes.nullMeansAbsent = false
        let taskChanges = TaskChanges(
            title: try changes.string("title"),
            notes: try changes.string("notes"),
            done: try changes.bool("done"),
            priority: try changes.int("priority"),
            tags: try changes.stringArray("tags"),
            due: try changes.nullableString("due"),
            project: try changes.nullableString("project"),
            dependsOn: try changes.stringArray("dependsOn"),
            wait: try changes.nullableString("wait"),
            meta: try changes.metaObject("meta", nullClears: true),
            recurrence: try changes.recurrence("recurrence"), remindAt: try changes.nullableString("remindAt"),
            startedAt: try changes.nullableTimestamp("startedAt"),
            annotations: try changes.annotations("annotations"),
            addAnnotations: try changes.annotations("addAnnotations") ?? [],
            removeAnnotations: try changes.annotationMatches("removeAnnotations") ?? [])
        try changes.finish()
        return Params(id: id, changes: taskChanges, ifVersion: try reader.integer("ifVersion"))
    }

    static func operation(from params: Params) -> TaskOperation {
        .update(id: params.id, changes: params.changes, ifVersion: params.ifVersion)
    }
}
