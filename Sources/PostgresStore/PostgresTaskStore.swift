import EventLoop
import Logging
import PostgreSQL
import TaskModel

/// The task store on PostgreSQL: the one owner of its connection, an actor on `loop`, as
/// `TaskStore` is on SQLite. Several servers on several machines share one database: each
/// hears the others' commits through LISTEN/NOTIFY (`ChangeListener`) and reads them from
/// the change log.
public actor PostgresTaskStore: TaskStoring {
    public nonisolated let loop: EventLoop
    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    private nonisolated let ownsLoop: Bool

    let connection: PostgresConnection
    /// The connection string without its passwords, for messages and logs.
    public nonisolated let redactedConnectionString: String
    private let connectionString: String
    private let lockTimeoutMilliseconds: Int32
    let clock: @Sendable () -> Int64
    /// Listens for other writers' commits, once asked to (`watchExternalChanges`).
    private var listener: ChangeListener?
    /// Inside a writing transaction: the newest seq it has handed out (see `writing`).
    var lastSeq: Int64 = 0
    /// The kept counts' change by the writing transaction so far (PostgresTaskStore+Counts.swift).
    var countDeltas = CountDeltas()
    /// Who writes through this store (`WriteOrigin`): its change groups carry it.
    public nonisolated let origin: Int64
    /// The channel of the payload-free NOTIFY each writing transaction sends: named after
    /// the database's id, since channels are shared by every schema of a database.
    let channel: String

    /// Connects with libpq's URI or key=value string and makes (unless not to `create`) or
    /// upgrades the schema. `lockTimeoutMilliseconds`: how long a statement waits for another's lock (such as a
    /// writer for the counter row) before failing with 1004; 0 waits for ever. Throws
    /// `StoreOpenError` for a database that cannot be used.
    public init(connectionString: String, create: Bool = true, lockTimeoutMilliseconds: Int32 = 5000, loop: EventLoop? = nil,
                origin: Int64 = WriteOrigin.unique(), clock: @escaping @Sendable () -> Int64 = Timestamp.now) throws {
        let name = redactPasswords(in: connectionString)
        do {
            connection = try PostgresConnection(connectionString)
            try Self.configure(connection, lockTimeoutMilliseconds: lockTimeoutMilliseconds)
            try PostgresSchema.prepare(connection, name: name, create: create)
            let id = try connection.query("SELECT database_id FROM taskline_schema")[0].int64("database_id")
            channel = "taskline_changes_\(id)"
        } catch let error as PostgresError {
            throw StoreOpenError.cannotOpen(path: name, detail: error.description)
        }
        self.connectionString = connectionString
        self.lockTimeoutMilliseconds = lockTimeoutMilliseconds
        redactedConnectionString = name
        self.origin = origin
        self.clock = clock
        self.loop = loop ?? EventLoop.startThread()
        ownsLoop = loop == nil
    }

    /// What each session of the store's is set to: a new one after a reconnection too.
    private static func configure(_ connection: PostgresConnection, lockTimeoutMilliseconds: Int32) throws {
        let timeout = "\(lockTimeoutMilliseconds)ms"
        try connection.query("SELECT set_config('lock_timeout', $1, false)", [.text(timeout)])
    }

    deinit {
        if ownsLoop { loop.stop(exitCode: 0) }
    }

    public func close() {
        listener = nil
    }

    public func databaseID() throws -> Int64 {
        try translatingErrors(readOnly: true) { try connection.query("SELECT database_id FROM taskline_schema")[0].int64("database_id") }
    }

    /// LISTENs on a connection of its own, whose socket the loop watches.
    @discardableResult
    public func watchExternalChanges(onChange: @escaping @Sendable () -> Void) throws -> Bool {
        listener = try translatingErrors {
            try ChangeListener(connectionString: connectionString, channel: channel,
                               ownPID: connection.backendPID, loop: loop, onChange: onChange)
        }
        return true
    }

    public func hasExternalChanges() throws -> Bool {
        listener?.takeChanges() ?? false
    }
}

extension PostgresTaskStore {
    /// Runs `body`, turning PostgreSQL's errors into `TaskStoreError.storage` (1004), whose
    /// `code` and `extendedCode` are 0 and whose message names the SQLSTATE. A lost
    /// connection is opened again (a new session); `body` then runs once more when it only
    /// reads (`readOnly`), and a write is answered 1004, which a retry may get past: whether
    /// a write whose commit got no answer committed is not known here.
    func translatingErrors<T>(readOnly: Bool = false, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            guard connection.status == .bad, reconnect(), readOnly else { throw Self.storeError(error) }
            do {
                return try body()
            } catch let error as PostgresError {
                throw Self.storeError(error)
            }
        }
    }

    private func reconnect() -> Bool {
        do {
            try connection.reset()
            try Self.configure(connection, lockTimeoutMilliseconds: lockTimeoutMilliseconds)
            Log.info("reconnected to \(redactedConnectionString)")
            return true
        } catch {
            Log.warning("cannot reconnect to \(redactedConnectionString): \(error)")
            return false
        }
    }

    private static func storeError(_ error: PostgresError) -> TaskStoreError {
        let state = error.sqlstate.map { "SQLSTATE \($0)" } ?? (error.connectionLost ? "the database is unreachable; a retry may succeed" : "libpq")
        return .storage(code: 0, extendedCode: 0, message: "PostgreSQL (\(state)): \(error.message)")
    }
}
