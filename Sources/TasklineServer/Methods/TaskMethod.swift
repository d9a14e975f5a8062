import JSON
import JSONRPC
import PeopleLanguage
import TaskModel

/// One `tasks/*` request type: how its params are read and what it does with the store.
protocol TaskMethod: Sendable {
    associatedtype Params: Sendable
    static var name: String { get }
    /// Reads every member it knows; the caller refuses any member left over.
    static func params(from reader: inout ParamsReader) throws(ResponseError) -> Params
    static func run(_ params: Params, on store: any TaskStoring, client: ClientSettings) async throws -> MethodOutcome
}

/// What a client said about itself in `initialize` that methods read.
struct ClientSettings: Sendable {
    /// The client's time zone (`initializationOptions.timeZone`), else the server's.
    var calendar: LocalCalendar = .system
}

struct MethodOutcome: Sendable {
    var result: JSON
    /// Committed changes, for `tasks/didChange`.
    var changes: [TaskJSON.ChangeText] = []

    /// The answer to a single write.
    init(_ write: OperationOutcome) {
        let (answer, changes) = TaskJSON.encode(write)
        self.init(result: answer, changes: changes)
    }

    init(result: JSON, changes: [TaskJSON.ChangeText] = []) {
        self.result = result
        self.changes = changes
    }
}

enum TaskMethods {
    static let all: [any TaskMethod.Type] = [
        CreateTask.self, GetTask.self, FetchTasks.self, UpdateTask.self, DeleteTask.self, GetChanges.self, ApplyOperations.self,
        UndoGroup.self, RedoGroup.self, ParseText.self,
    ]
    static let byName: [String: any TaskMethod.Type] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    static func call<Method: TaskMethod>(
        _ method: Method.Type, params: JSON?, store: any TaskStoring,
        client: ClientSettings
    ) async throws -> MethodOutcome {
        var reader = try ParamsReader(params)
        let decoded = try method.params(from: &reader)
        try reader.finish()
        return try await method.run(decoded, on: store, client: client)
    }
}
