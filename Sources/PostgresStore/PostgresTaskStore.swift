import EventLoop
import Logging
import PostgreSQL
import StoreServing
import TaskModel

/// The task store on PostgreSQL: the one owner of its connection, an actor on `loop`, as
/// `TaskStore` is on SQLite. Several servers on several machines share one database: each
/// hears the others' commits through LISTEN/NOTIFY (`ChangeListener`) and reads them from
/// the change log.
public actor PostgresTaskStore: ServedStore {
    public nonisolated let loop: EventLoop
    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    private nonisolated let ownsLoop: Bool

    let connection: PostgresConnection
    /// Watches `connection` and opens it again when it is lost.
    private let link: ReconnectingConnection
    /// The connection string without its passwords, for messages and logs.
    public nonisolated let redactedConnectionString: String
    private let connectionString: String
    let clock: @Sendable () -> Int64
    /// Listens for other writers' commits, once asked to (`watchExternalChanges`).
    private var listener: ChangeListener?
    /// Inside a writing transaction: the newest seq it has handed out (see `writing`).
    var lastSeq: Int64 = 0
    /// The kept counts' change by the writing transaction so far (PostgresTaskStore+Counts.swift).
    var countDeltas = CountDeltas()
    /// Who writes through this store (`WriteOrigin`): its change groups carry it.
    public nonisolated let origin: Int64
    /// Whether the schema has the text filter's trigram index (schema 10 makes it where
    /// pg_trgm is): a text's few tasks are then read from it (PostgresFetchPlan).
    let hasTextIndex: Bool
    /// The channel of the payload-free NOTIFY each writing transaction sends: named after
    /// the database's id, since channels are shared by every schema of a database.
    let channel: String

    /// Connects with libpq's URI or key=value string and makes (unless not to `create`) or
    /// upgrades the schema. `lockTimeoutMilliseconds`: how long a statement waits for another's lock (such as a
    /// writer for the counter row) before failing with 1004; 0 waits for ever. Throws
    /// `StoreOpenError` for a database that cannot be used.
    public init(
        connectionString: String, create: Bool = true, lockTimeoutMilliseconds: Int32 = 5000, loop: EventLoop? = nil,
        origin: Int64 = WriteOrigin.unique(), clock: @escaping @Sendable () -> Int64 = Timestamp.now
    ) throws {
        let name = redactPasswords(in: connectionString)
        let timeout = "\(lockTimeoutMilliseconds)ms"
        let configure = { (connection: PostgresConnection) in
            _ = try connection.query("SELECT set_config('lock_timeout', $1, false)", [.text(timeout)])
        }
        do {
            connection = try PostgresConnection(connectionString)
            // Before `lock_timeout`: a server waits for another's migration (the advisory
            // lock) however long it takes, as servers starting together must.
            try PostgresSchema.prepare(connection, name: name, create: create)
            try configure(connection)
            try Self.prepareStatements(connection)
            hasTextIndex = try connection.query("SELECT to_regclass('task_text_trigrams') IS NOT NULL AS indexed")[0].bool("indexed")
            let id = try connection.query("SELECT database_id FROM taskline_schema")[0].int64("database_id")
            channel = "taskline_changes_\(id)"
        } catch let error as PostgresError {
            throw StoreOpenError.cannotOpen(path: name, detail: error.description)
        }
        self.connectionString = connectionString
        redactedConnectionString = name
        self.origin = origin
        self.clock = clock
        let executor = loop ?? EventLoop.startThread()
        self.loop = executor
        ownsLoop = loop == nil
        // A new session is set up as the first (`lock_timeout`, prepared statements).
        link = ReconnectingConnection(
            connection, role: "the store's connection", loop: executor,
            setUp: { connection in
                try configure(connection)
                try Self.prepareStatements(connection)
            })
        executor.execute { [link] in link.start() }
    }

    deinit {
        if ownsLoop { loop.stop(exitCode: 0) }
    }

    public func close() {
        listener = nil
    }

    /// Nothing to do: every commit is the server's once it is answered, in its own storage.
    public func checkpoint() {}

    public func databaseID() throws -> Int64 {
        try translatingErrors { try connection.query("SELECT database_id FROM taskline_schema")[0].int64("database_id") }
    }

    /// LISTENs on a connection of its own, whose socket the loop watches.
    @discardableResult
    public func watchExternalChanges(onChange: @escaping @Sendable () -> Void) throws -> Bool {
        let listener = try translatingErrors {
            try ChangeListener(connectionString: connectionString, channel: channel, store: connection, loop: loop, onChange: onChange)
        }
        self.listener = listener
        // Whatever the change log held while the store's connection was lost, the client hears of.
        link.onReopened = { [weak listener] in listener?.wake() }
        return true
    }

    public func hasExternalChanges() throws -> Bool {
        listener?.takeChanges() ?? false
    }
}

extension PostgresTaskStore {
    /// Runs `body`, turning PostgreSQL's errors into `TaskStoreError.storage` (1004): its
    /// kind by the SQLSTATE, a message that names it, and whether a retry may succeed
    /// (`PostgresError.isRetryable`). While the connection is
    /// lost and being opened again (`ReconnectingConnection`), `body` does not run: the
    /// answer is at once a retryable 1004 saying that the database is unreachable. A
    /// statement that finds the connection lost starts the reopening; it is answered the
    /// same, a write too: whether a write whose commit got no answer committed is not known
    /// here (the change log tells, once the connection is back).
    func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        guard link.isOpen else {
            throw Self.unreachable(link.lastError.map { "\($0)" } ?? "the connection is being opened again")
        }
        do {
            return try body()
        } catch let error as PostgresError {
            if connection.status == .bad { link.lost(error) }
            throw Self.storeError(error)
        }
    }

    private static func storeError(_ error: PostgresError) -> TaskStoreError {
        if error.connectionLost { return unreachable(error.sqlstate.map { "SQLSTATE \($0): \(error.message)" } ?? error.message) }
        let message = "PostgreSQL (\(error.sqlstate.map { "SQLSTATE \($0)" } ?? "libpq")): \(error.message)"
        let kind: StorageFailure.Kind =
            switch error.sqlstate {
            case .serializationFailure?, .deadlockDetected?, .lockNotAvailable?: .busy
            case .readOnlySQLTransaction?: .readOnly
            case .diskFull?: .full
            case .dataCorrupted?, .indexCorrupted?: .corrupt
            case let state? where state.errorClass == "08" || [.adminShutdown, .crashShutdown, .cannotConnectNow].contains(state): .unreachable
            default: .other
            }
        return .storage(StorageFailure(kind, message, retryable: error.isRetryable))
    }

    private static func unreachable(_ reason: String) -> TaskStoreError {
        .storage(StorageFailure(.unreachable, "PostgreSQL: the database is unreachable; a retry may succeed (\(reason))"))
    }
}
