public indirect enum TaskStoreError: Error, Sendable, Equatable {
    case notFound(id: String)
    case versionConflict(current: TaskItem)
    case alreadyExists(id: String)
    /// A value breaks one of the task's rules. `field` is the wire name (`title`, `tags[2]`).
    case invalid(field: String, reason: String)
    /// The database failed, or holds data the protocol cannot serve (`StorageFailure`).
    case storage(StorageFailure)
    /// Changes after this `seq` are no longer kept; `oldestSeq` is the oldest one that is.
    case historyExpired(since: Int64, oldestSeq: Int64)
    /// The dependencies asked for would close a cycle: `ids` are the tasks around it, each
    /// depending on the next and the last on the first.
    case dependencyCycle(ids: [String])

    /// A cycle's ids as a sentence part: `a → b → a`.
    public static func describeCycle(_ ids: [String]) -> String {
        (ids + ids.prefix(1)).joined(separator: " → ")
    }
    /// An undo or redo found tasks of its group changed since: `tasks` as they are now,
    /// and the ids of those that no longer exist.
    case undoConflict(tasks: [TaskItem], deleted: [String])
    /// Operation `index` of an atomic `apply` failed, so none was applied.
    case operationFailed(index: Int, error: TaskStoreError)

    /// Stored data outside the range the protocol keeps it in, which another program wrote
    /// (a version or seq past 2^53 − 1, a time that is no date, a rule Taskline cannot read):
    /// the write or read is refused, the same way on every store. `message` names the value.
    public static func outOfRange(_ message: String) -> TaskStoreError {
        .storage(StorageFailure(.storedDataOutOfRange, message))
    }

    /// The same error with its field path placed under `path` (`operations[2].update`).
    package func located(in path: String) -> TaskStoreError {
        guard case .invalid(let field, let reason) = self else { return self }
        return .invalid(field: "\(path).\(field)", reason: reason)
    }
}

/// A failure of the database beneath a store, in no database's terms: what kind it is,
/// what the database said, and whether the same request may succeed if sent again. Each
/// store translates its database's errors into one (the SQLite store from result codes, the
/// PostgreSQL store from SQLSTATEs); the server puts it on the wire in one place.
public struct StorageFailure: Sendable, Hashable {
    public enum Kind: String, Sendable, CaseIterable {
        /// Another writer held the database past the wait, or won a race the request lost.
        case busy
        /// The database cannot be written: read-only media, permissions, a standby.
        case readOnly
        /// The disk or the database's quota is full.
        case full
        /// The database's storage is damaged.
        case corrupt
        /// Data another program stored is outside the range the protocol keeps it in.
        case storedDataOutOfRange
        /// The database server could not be reached, or the connection was lost.
        case unreachable
        /// Any other failure the database reported.
        case other
    }

    public var kind: Kind
    /// What the database said, or what Taskline found, naming the value or the state.
    public var message: String
    /// Whether the same request, sent again unchanged, may succeed.
    public var retryable: Bool
    /// The failure as SQLite's primary and extended result codes, the numbers protocol §7
    /// gives storage failures, when the database reported more exact ones than its kind's
    /// (the SQLite store's own errors); nil: the kind's.
    public var code: Int32?
    public var extendedCode: Int32?

    /// `retryable` by default for a kind a retry may get past: busy and unreachable.
    public init(_ kind: Kind, _ message: String, retryable: Bool? = nil, code: Int32? = nil, extendedCode: Int32? = nil) {
        self.kind = kind
        self.message = message
        self.retryable = retryable ?? (kind == .busy || kind == .unreachable)
        self.code = code
        self.extendedCode = extendedCode
    }
}

/// Why a database file cannot be used as a Taskline store. The server refuses to start
/// (exit code 3) rather than touch such a file.
public enum StoreOpenError: Error, Sendable, CustomStringConvertible {
    case notADatabase(path: String, detail: String)
    case foreignSchema(path: String, detail: String)
    case newerSchema(path: String, version: Int, supported: Int)
    /// Schema objects Taskline did not make (or made otherwise), one line each.
    case unexpectedObjects(path: String, objects: [String])
    case cannotOpen(path: String, detail: String)

    public var description: String {
        switch self {
        case .notADatabase(let path, let detail):
            return "\(path) is not a usable SQLite database (\(detail))"
        case .foreignSchema(let path, let detail):
            return "\(path) belongs to another application (\(detail)); Taskline will not touch it"
        case .newerSchema(let path, let version, let supported):
            return "\(path) has schema version \(version), newer than this taskline supports (\(supported)); upgrade taskline"
        case .unexpectedObjects(let path, let objects):
            return "\(path): its schema is not as Taskline made it (\(objects.joined(separator: "; "))); Taskline will not use it"
        case .cannotOpen(let path, let detail):
            return "cannot open \(path): \(detail)"
        }
    }
}
