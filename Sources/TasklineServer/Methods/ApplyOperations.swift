import JSONRPC
import TaskStore

/// `tasks/apply`: several writes in one transaction, all or none when `atomic`.
enum ApplyOperations: TaskMethod {
    struct Params: Sendable {
        var operations: [TaskOperation]
        var atomic: Bool
    }

    static let name = "tasks/apply"
    static let maxOperations = 1000

    static func params(from reader: inout ParamsReader) throws(ResponseError) -> Params {
        guard let entries = try reader.objectArray("operations") else {
            throw .invalidParams(field: "operations", reason: "is required")
        }
        guard (1...maxOperations).contains(entries.count) else {
            throw .invalidParams(field: "operations", reason: "must have 1 to \(maxOperations) operations")
        }
        var operations: [TaskOperation] = []
        for var entry in entries {
            operations.append(try operation(from: &entry))
        }
        return Params(operations: operations, atomic: try reader.bool("atomic") ?? true)
    }

    /// `{"create": {…}}`, `{"update": {…}}` or `{"delete": {…}}`: exactly one member, whose
    /// value is what the single-operation method takes.
    private static func operation(from entry: inout ParamsReader) throws(ResponseError) -> TaskOperation {
        let kinds: [(String, any SingleWriteMethod.Type)] = [("create", CreateTask.self), ("update", UpdateTask.self), ("delete", DeleteTask.self)]
        for (kind, method) in kinds {
            if var params = try entry.object(kind) {
                try entry.finish()
                return try read(method, from: &params)
            }
        }
        try entry.finish()
        throw .invalidParams(field: entry.field("create"), reason: "an operation needs one of create, update or delete")
    }

    private static func read<Method: SingleWriteMethod>(_ method: Method.Type, from reader: inout ParamsReader) throws(ResponseError) -> TaskOperation {
        let params = try method.params(from: &reader)
        try reader.finish()
        return method.operation(from: params)
    }

    static func run(_ params: Params, on store: TaskStore) async throws -> MethodOutcome {
        let results = try await store.apply(params.operations, atomic: params.atomic)
        var changes: [TaskJSON.ChangeText] = []
        let encoded: [JSON] = results.map { result in
            switch result {
            case .success(let outcome):
                let (answer, change) = TaskJSON.encode(outcome)
                if let change { changes.append(change) }
                return ["result": answer]
            case .failure(let error):
                return ["error": ResponseError(error).json]
            }
        }
        return MethodOutcome(result: ["results": .array(encoded)], changes: changes)
    }
}
