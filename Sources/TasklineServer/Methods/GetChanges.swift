import JSONRPC
import TaskModel

/// `tasks/changes`: what happened after a `seq`, for a client that reconnects or missed
/// notifications.
enum GetChanges: TaskMethod {
    struct Params: Sendable {
        var since: Int64
        var limit: Int
    }

    static let name = "tasks/changes"

    static func params(from reader: inout ParamsReader) throws(ResponseError) -> Params {
        let read = try reader.integer("since")
        let since = try reader.required("since", read)
        return Params(since: since, limit: try reader.int("limit") ?? 100)
    }

    static func run(_ params: Params, on store: any TaskStoring, client _: ClientSettings) async throws -> MethodOutcome {
        let page = try await store.changes(since: params.since, limit: params.limit)
        return MethodOutcome(result: [
            "changes": .array(page.changes.map(TaskJSON.encode)),
            "seq": .integer(page.seq),
            "hasMore": .bool(page.hasMore),
        ])
    }
}
