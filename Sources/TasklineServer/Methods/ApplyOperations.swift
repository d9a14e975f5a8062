import JSON
import JSONRPC
import TaskModel

/// `tasks/apply`: several writes in one transaction, all or none when `atomic`.
enum ApplyOperations: TaskMethod {
    struct Params: Sendable {
        /// Each operation as read. A params error of one operation is that operation's
        /// outcome: the whole request's error when atomic, its entry in `results` when not.
        var operations: [Result<TaskOperation, TaskStoreError>]
        var atomic: Bool
    }

    static let name = "tasks/apply"
    static let maxOperations = 1000
    private static let kinds: [(String, any SingleWriteMethod.Type)] = [
        ("create", CreateTask.self), ("update", UpdateTask.self), ("delete", DeleteTask.self),
    ]

    static func params(from reader: inout ParamsReader) throws(ResponseError) -> Params {
        let atomic = try reader.bool("atomic") ?? true
        let read = try reader.array("operations")
        let entries = try reader.required("operations", read)
        guard (1...maxOperations).contains(entries.count) else {
            throw .invalidParams(field: "operations", reason: "must have 1 to \(maxOperations) operations")
        }
        let operations = entries.enumerated().map { index, entry in
            Result { () throws(ResponseError) in try operation(from: entry, path: reader.field("operations[\(index)]")) }
                .mapError(TaskStoreError.init)
        }
        return Params(operations: operations, atomic: atomic)
    }

    /// `{"create": {…}}`, `{"update": {…}}` or `{"delete": {…}}`: exactly one member that is
    /// not null (null means absent), whose value is what the single-operation method takes.
    private static func operation(from entry: JSON, path: String) throws(ResponseError) -> TaskOperation {
        var reader = try ParamsReader(entry, path: path)
        var found: [(String, any SingleWriteMethod.Type, ParamsReader)] = []
        for (kind, method) in kinds {
            if let params = try reader.object(kind) { found.append((kind, method, params)) }
        }
        try reader.finish()
        guard let (_, method, params) = found.first else {
            throw .invalidParams(field: path, reason: "must have one of create, update or delete")
        }
        guard found.count == 1 else {
            throw .invalidParams(
                field: reader.field(found[1].0), reason: "is a second kind: an operation has exactly one of create, update or delete")
        }
        var paramsReader = params
        return try read(method, from: &paramsReader)
    }

    private static func read<Method: SingleWriteMethod>(_ method: Method.Type, from reader: inout ParamsReader) throws(ResponseError) -> TaskOperation
    {
        let params = try method.params(from: &reader)
        try reader.finish()
        return method.operation(from: params)
    }

    static func run(_ params: Params, on store: any TaskStoring, client _: ClientSettings) async throws -> MethodOutcome {
        let results = try await store.apply(params.operations, atomic: params.atomic)
        var changes: [TaskJSON.ChangeText] = []
        let encoded: [JSON] = results.map { result in
            switch result {
            case .success(let outcome):
                let (answer, written) = TaskJSON.encode(outcome)
                changes += written
                return ["result": answer]
            case .failure(let error):
                return ["error": ResponseError(error).json]
            }
        }
        return MethodOutcome(result: ["results": .array(encoded)], changes: changes)
    }
}
