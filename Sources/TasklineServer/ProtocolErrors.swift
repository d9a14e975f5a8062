import JSON
import JSONRPC
import TaskModel

/// Taskline's own error codes, beside JSON-RPC's.
enum TasklineErrorCode {
    static let taskNotFound = 1001
    static let versionConflict = 1002
    static let taskAlreadyExists = 1003
    static let storageFailure = 1004
    static let historyExpired = 1005
    static let dependencyCycle = 1006
    static let undoConflict = 1007
}

extension ResponseError {
    /// The one place where store errors become wire errors.
    init(_ error: TaskStoreError) {
        switch error {
        case .notFound(let id):
            self.init(code: TasklineErrorCode.taskNotFound, message: "Task not found: \(id)", data: ["id": .string(id)])
        case .versionConflict(let current):
            self.init(
                code: TasklineErrorCode.versionConflict,
                message: "Version conflict: the task is at version \(current.version)",
                data: ["task": TaskJSON.encode(current)])
        case .alreadyExists(let id):
            self.init(code: TasklineErrorCode.taskAlreadyExists, message: "Task already exists: \(id)", data: ["id": .string(id)])
        case .invalid(let field, let reason):
            self = .invalidParams(field: field, reason: reason)
        case .storage(let failure):
            let (code, extendedCode) = failure.code.map { ($0, failure.extendedCode ?? $0) } ?? failure.kind.codes
            var data: JSONObject = [
                "kind": .string(failure.kind.rawValue), "code": .integer(Int64(code)), "extendedCode": .integer(Int64(extendedCode)),
                "message": .string(failure.message), "retryable": .bool(failure.retryable),
            ]
            if failure.kind == .storedDataOutOfRange { data["reason"] = "storedDataOutOfRange" }
            self.init(code: TasklineErrorCode.storageFailure, message: "Storage failure: \(failure.message)", data: .object(data))
        case .historyExpired(let since, let oldestSeq):
            self.init(
                code: TasklineErrorCode.historyExpired,
                message: "History expired: changes after \(since) are no longer kept; the oldest kept is \(oldestSeq)",
                data: ["oldestSeq": .integer(oldestSeq)])
        case .dependencyCycle(let ids):
            self.init(
                code: TasklineErrorCode.dependencyCycle,
                message: "Dependency cycle: \(TaskStoreError.describeCycle(ids))",
                data: ["cycle": .array(ids.map(JSON.string))])
        case .undoConflict(let tasks, let deleted):
            self.init(
                code: TasklineErrorCode.undoConflict,
                message: "Undo conflict: \(tasks.count + deleted.count) of the group's tasks changed since; nothing was reverted",
                data: ["tasks": TaskJSON.encode(tasks), "deleted": .array(deleted.map(JSON.string))])
        case .operationFailed(let index, let error):
            // The failing operation's own error. A params error already names the operation
            // in its field path; the others say which operation it was in `data.operation`.
            self.init(error)
            if case .invalid = error { return }
            message = "Operation \(index) failed, so none was applied: \(message)"
            var data = self.data?.objectValue ?? [:]
            data["operation"] = .integer(Int64(index))
            self.data = .object(data)
        }
    }
}

extension TaskStoreError {
    /// A params error met while reading one operation of a `tasks/apply`, its field path
    /// already complete, so that the store reports it in that operation's place.
    init(_ error: ResponseError) {
        let data = error.data?.objectValue
        self = .invalid(field: data?["field"]?.stringValue ?? "", reason: data?["reason"]?.stringValue ?? error.message)
    }
}

extension StorageFailure.Kind {
    /// The kind in SQLite's primary and extended result codes, which protocol §7 gives every
    /// storage failure, for a failure whose database reported none (PostgreSQL's, and the
    /// stored data out of range that Taskline finds: SQLITE_CONSTRAINT_CHECK, what the
    /// condition is in a SQLite file).
    var codes: (Int32, Int32) {
        switch self {
        case .busy: (5, 5)
        case .readOnly: (8, 8)
        case .full: (13, 13)
        case .corrupt: (11, 11)
        case .storedDataOutOfRange: (19, 275)
        case .unreachable: (14, 14)
        case .other: (1, 1)
        }
    }
}
