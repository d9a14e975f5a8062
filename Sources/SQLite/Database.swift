import CSQLite

/// One SQLite connection.
///
/// Not thread-safe by itself: the owner (in Taskline, the `TaskStore` actor) serialises
/// every use. The connection is opened with `SQLITE_OPEN_NOMUTEX` for that reason.
public final class Database {
    public enum OpenMode: Sendable {
        case readOnly
        case readWrite
        case readWriteCreate
    }

    let handle: OpaquePointer
    public let path: String
    private var statementCache: [StatementKey: Statement] = [:]
    /// What `onCommitToWAL` installed: SQLite holds only a pointer to it.
    private var walHook: WALHook?
    /// Dynamic queries (fetch with its filter and sort) come in a bounded but large number of
    /// shapes; past this many the cache starts over rather than grow without limit.
    private let statementCacheLimit = 256

    public init(path: String, mode: OpenMode = .readWriteCreate) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        var handle: OpaquePointer?
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK, let handle else {
            let error = SQLiteError(resultCode: result, connection: handle)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        self.path = path
    }

    deinit {
        close()
    }

    private var isOpen = true

    private func checkOpen(_ sql: String) throws {
        guard isOpen else { throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "the database is closed", sql: sql) }
    }

    /// Finalizes every statement and closes the connection. The last connection to close
    /// checkpoints the WAL and removes it, so the next process to open the file need not
    /// replay it. Using the database afterwards is a programming error.
    public func close() {
        guard isOpen else { return }
        isOpen = false
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that take no parameters (schema scripts, pragmas).
    public func execute(_ sql: String) throws {
        try checkOpen(sql)
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        if result != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(result))
            sqlite3_free(message)
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql)
        }
    }

    /// A prepared statement for `sql`, reused across calls: preparing is the expensive part.
    public func cachedStatement(_ sql: String) throws -> Statement {
        try checkOpen(sql)
        let key = StatementKey(sql: sql)
        if let statement = statementCache[key] { return statement }
        if statementCache.count >= statementCacheLimit { statementCache.removeAll() }
        let statement = try Statement(database: self, sql: sql)
        statementCache[key] = statement
        return statement
    }

    /// Runs `sql` with `values` and returns the first column of the first row as an integer.
    public func integer(_ sql: String, _ values: [SQLValue] = []) throws -> Int64? {
        try cachedStatement(sql).firstRow(values) { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
    }

    public func run(_ sql: String, _ values: [SQLValue] = []) throws {
        try cachedStatement(sql).run(values)
    }

    /// Runs `body` in a transaction that takes the write lock at once (`BEGIN IMMEDIATE`),
    /// so the busy timeout applies when it starts rather than failing halfway through.
    /// Any error rolls the transaction back and is rethrown.
    public func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try run("COMMIT")
            return value
        } catch {
            if !isAutocommit { try? run("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a read transaction: every statement in it sees the same snapshot of
    /// the database, whatever other connections commit meanwhile.
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN")
        defer { if !isAutocommit { try? run("COMMIT") } }
        return try body()
    }

    /// Runs `body` with a budget of about `budget` of time for the statements it runs: past
    /// it, the running statement stops with `ResultCode.interrupt`, which `body` throws. A
    /// read-only statement stopped this way leaves its transaction open, with its snapshot.
    /// The clock is looked at every `instructionsPerCheck` virtual-machine instructions
    /// (`sqlite3_progress_handler`); time, not instructions, is the budget because a
    /// statement's instructions cost very different times as its pages are in the cache or not.
    public func withTimeBudget<T>(_ budget: Duration, _ body: () throws -> T) throws -> T {
        let deadline = UnsafeMutablePointer<ContinuousClock.Instant>.allocate(capacity: 1)
        deadline.initialize(to: .now + budget)
        defer {
            sqlite3_progress_handler(handle, 0, nil, nil)
            deadline.deallocate()
        }
        sqlite3_progress_handler(
            handle, Int32(Self.instructionsPerCheck),
            { context in
                ContinuousClock.now < context!.assumingMemoryBound(to: ContinuousClock.Instant.self).pointee ? 0 : 1
            }, deadline)
        return try body()
    }

    /// How many instructions apart `withTimeBudget` looks at the clock: some tens of
    /// microseconds.
    private static let instructionsPerCheck = 1000

    /// Runs `body` in a savepoint: an error undoes only what `body` did.
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        try run("SAVEPOINT taskline")
        do {
            let value = try body()
            try run("RELEASE taskline")
            return value
        } catch {
            try? run("ROLLBACK TO taskline")
            try? run("RELEASE taskline")
            throw error
        }
    }

    /// Replaces SQLite's automatic checkpoint (`sqlite3_wal_hook`): after each commit to the
    /// WAL, `body` gets the number of frames the WAL holds and the number of pages this
    /// connection wrote since the last commit (`SQLITE_DBSTATUS_CACHE_WRITE`, read and
    /// reset), and says whether this connection checkpoints now, passively, as the automatic
    /// checkpoint does. A WAL that holds no more frames than the commit wrote pages started
    /// over with it.
    public func onCommitToWAL(_ body: @escaping (_ frames: Int, _ written: Int) -> Bool) {
        let hook = WALHook(body)
        walHook = hook
        sqlite3_wal_hook(
            handle,
            { context, connection, name, frames in
                var written: Int32 = 0
                var highest: Int32 = 0
                sqlite3_db_status(connection, SQLITE_DBSTATUS_CACHE_WRITE, &written, &highest, 1)
                if Unmanaged<WALHook>.fromOpaque(context!).takeUnretainedValue().body(Int(frames), Int(written)) {
                    sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(hook).toOpaque())
    }

    /// Copies what it can of the WAL into the database file without waiting for any lock
    /// (`sqlite3_wal_checkpoint_v2`, `SQLITE_CHECKPOINT_PASSIVE`). Unlike the pragma, it
    /// needs no schema: a connection that only checkpoints never reads it.
    public func checkpointPassively() throws {
        try checkOpen("sqlite3_wal_checkpoint_v2")
        let result = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        guard result == SQLITE_OK else { throw SQLiteError(resultCode: result, connection: handle) }
    }

    public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }
    /// True when SQLite could open the file only for reading (a read-only file or file system).
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }
    public var changes: Int { Int(sqlite3_changes64(handle)) }
    /// Rows written by this connection since it opened, triggers and virtual tables included.
    public var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    public func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// `PRAGMA user_version`: the schema version Taskline's migrations have reached.
    public func userVersion() throws -> Int {
        Int(try integer("PRAGMA user_version") ?? 0)
    }

    public func setUserVersion(_ version: Int) throws {
        // Pragmas take no bound parameters; the value is an integer we produced.
        try execute("PRAGMA user_version = \(version)")
    }

    /// Sets `PRAGMA application_id`, which says which application a database file belongs to.
    public func setApplicationID(_ id: Int32) throws {
        try execute("PRAGMA application_id = \(id)")
    }

    /// Copies this whole database into `destination` with SQLite's online backup API,
    /// which gives a consistent snapshot even while other connections write.
    public func backup(into destination: Database) throws {
        try backup(into: destination, pagesPerStep: -1)
    }
}

private final class WALHook {
    let body: (Int, Int) -> Bool

    init(_ body: @escaping (Int, Int) -> Bool) {
        self.body = body
    }
}

/// The statement cache's key: SQL text, hashed by its length and its first and last 16
/// bytes rather than all of it. Every request looks up several statements of a few hundred
/// bytes, and hashing each whole cost more than the rest of the lookup. Equality still
/// compares the whole text (at once for a string literal, whose storage is the same every
/// time).
private struct StatementKey: Hashable {
    let sql: String

    func hash(into hasher: inout Hasher) {
        var sql = sql
        sql.withUTF8 { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.prefix(16))))
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(16))))
        }
    }
}
