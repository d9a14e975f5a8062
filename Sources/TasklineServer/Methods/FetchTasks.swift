import JSON
import JSONRPC
import TaskModel

enum FetchTasks: TaskMethod {
    static let name = "tasks/fetch"

    static func params(from reader: inout ParamsReader) throws(ResponseError) -> TaskQuery {
        var query = TaskQuery()
        if var filter = try reader.object("filter") {
            query.filter = TaskFilter(
                done: try filter.bool("done"),
                tags: try filter.stringArray("tags") ?? [],
                text: try filter.string("text"),
                dueBefore: try filter.string("dueBefore"),
                dueAfter: try filter.string("dueAfter"),
                ids: try filter.stringArray("ids"),
                project: try filter.string("project"),
                blocked: try filter.bool("blocked"),
                waiting: try filter.bool("waiting"))
            try filter.finish()
        }
        if let keys = try reader.objectArray("sort") {
            query.sort = []
            for var key in keys {
                let name = try key.requiredString("field")
                guard let field = SortKey.Field(rawValue: name) else {
                    let fields = SortKey.Field.allCases.map(\.rawValue).joined(separator: ", ")
                    throw .invalidParams(field: key.field("field"), reason: "must be one of \(fields)")
                }
                let order = try key.string("order") ?? "asc"
                guard order == "asc" || order == "desc" else {
                    throw .invalidParams(field: key.field("order"), reason: "must be asc or desc")
                }
                try key.finish()
                query.sort.append(SortKey(field: field, descending: order == "desc"))
            }
        }
        query.limit = try reader.int("limit") ?? query.limit
        query.cursor = try reader.string("cursor")
        query.offset = try reader.int("offset")
        query.includeTotal = try reader.bool("includeTotal") ?? false
        return query
    }

    static func run(_ query: TaskQuery, on store: any TaskStoring, client _: ClientSettings) async throws -> MethodOutcome {
        let page = try await store.fetch(query)
        var result: JSONObject = [
            "tasks": TaskJSON.encode(page.tasks),
            "nextCursor": page.nextCursor.map(JSON.string) ?? .null,
            "seq": .integer(page.seq),
        ]
        if let total = page.total { result["total"] = .integer(Int64(total)) }
        return MethodOutcome(result: .object(result))
    }
}
