import JSONRPC
import TaskStore

enum GetTask: TaskMethod {
    static let name = "tasks/get"

    static func params(from reader: inout ParamsReader) throws(ResponseError) -> String {
        try reader.requiredString("id")
    }

    static func run(_ id: String, on store: TaskStore) async throws -> MethodOutcome {
        MethodOutcome(result: TaskJSON.encode(try await store.get(id: id)))
    }
}
