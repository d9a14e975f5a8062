import JSONRPC
import TaskStore

enum DeleteTask: TaskMethod {
    struct Params: Sendable {
        var id: String
        var ifVersion: Int64?
    }

    static let name = "tasks/delete"

    static func params(from reader: inout ParamsReader) throws(ResponseError) -> Params {
        Params(id: try reader.requiredString("id"), ifVersion: try reader.integer("ifVersion"))
    }

    static func run(_ params: Params, on store: TaskStore) async throws -> MethodOutcome {
        MethodOutcome(try await store.perform(.delete(id: params.id, ifVersion: params.ifVersion)))
    }
}
