import JSON
import JSONRPC
import TaskModel

/// A method that is one write: `tasks/create`, `tasks/update`, `tasks/delete`. Waiting
/// requests of these kinds can be committed together (see `Server`).
protocol SingleWriteMethod: TaskMethod {
    static func operation(from params: Params) -> TaskOperation
}

extension SingleWriteMethod {
    static func run(_ params: Params, on store: any TaskStoring, client _: ClientSettings) async throws -> MethodOutcome {
        MethodOutcome(try await store.perform(operation(from: params)))
    }

    /// Reads a request's params into the operation it asks for.
    static func operation(params: JSON?) throws(ResponseError) -> TaskOperation {
        var reader = try ParamsReader(params)
        let decoded = try self.params(from: &reader)
        try reader.finish()
        return operation(from: decoded)
    }
}
