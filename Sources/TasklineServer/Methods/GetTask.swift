import JSONRPC
import TaskModel

enum GetTask: TaskMethod {
    static let name = "tasks/get"

    static func params(from reader: inout ParamsReader) throws(ResponseError) -> String {
        try reader.requiredString("id")
    }

    static func run(_ id: String, on store: any TaskStoring, client _: ClientSettings) async throws -> MethodOutcome {
        MethodOutcome(result: TaskJSON.encode(try await store.get(id: id)))
    }
}
