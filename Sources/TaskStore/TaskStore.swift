import EventLoop
import Logging
import SQLite
import StoreServing
import Synchronization
import TaskModel

/// The task store: the one owner of the SQLite connection. Being an actor, it runs one
/// operation at a time, which is exactly what a single SQLite connection needs.
public actor TaskStore {
    /// The event loop the store runs on, its executor: the server's in `taskline`, so that
    /// the server's calls into the store switch no threads; a loop on a thread of its own,
    /// which ends with the store, otherwise.
    public nonisolated let loop: EventLoop
    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    private nonisolated let ownsLoop: Bool

    let database: Database
    /// Copies the WAL into the file off large commits (`StoreOptions.backgroundCheckpoints`).
    private nonisolated let checkpointer: Checkpointer?
    let clock: @Sendable () -> Int64
    /// `PRAGMA data_version` when last asked (see `currentDataVersion`).
    private var dataVersion: Int64 = 0
    /// Listens for other processes' commits, once asked to (`watchExternalChanges`). Behind
    /// a lock rather than the actor, so that the store can let it go in `deinit`.
    private let watcher = Mutex<DatabaseWatcher?>(nil)
    public nonisolated let path: String
    /// Who writes through this store (`WriteOrigin`): its change groups carry it.
    public nonisolated let origin: Int64
    /// The first group this store recorded: an origin other than the command line's is this
    /// store's alone, so its groups are no older (nil: it has none).
    var firstOwnGroup: Int64?
    /// The trigram index may hold segments to merge: true from the start, after each write
    /// that indexed texts, once another writer's commit is seen (`hasExternalChanges`), after
    /// a step that merged, and when `mergeRetry` fires; false once a step found nothing.
    /// Read by the loop's idle handler.
    private nonisolated let textIndexMayMerge = Atomic<Bool>(true)
    /// The loop's idle handlers that start the merge steps and ask for a checkpoint, and the
    /// timer that asks for another step a while after one found another connection holding
    /// the write lock. Unsafe: they are set, scheduled and cancelled only on the loop's
    /// thread, the store's executor.
    private nonisolated(unsafe) var idleMerging: EventLoop.Handler<Bool>?
    private nonisolated(unsafe) var idleCheckpoints: EventLoop.Handler<Bool>?
    private nonisolated(unsafe) var mergeRetry: EventLoop.Timer?
    /// How long the store's statements wait for another connection's lock.
    private let busyTimeoutMilliseconds: Int32

    /// Opens (creating or migrating as needed) the database at `path`, or `:memory:`.
    /// Throws `StoreOpenError` for a file that cannot be used, leaving it untouched.
    public init(
        path: String, options: StoreOptions = StoreOptions(), loop: EventLoop? = nil,
        origin: Int64 = WriteOrigin.unique(), clock: @escaping @Sendable () -> Int64 = Timestamp.now
    ) throws {
        let database = try StoreFile.open(path: path, options: options)
        self.database = database
        checkpointer = options.backgroundCheckpoints ? Self.checkpointer(for: database) : nil
        self.clock = clock
        busyTimeoutMilliseconds = options.busyTimeoutMilliseconds
        self.path = path
        self.origin = origin
        self.loop = loop ?? EventLoop.startThread()
        ownsLoop = loop == nil
        if options.idleTextIndexMerging, !database.isReadOnly, path != StoreFile.memoryPath { mergeTextIndexWhenIdle() }
        if let checkpointer { checkpointWhenIdle(checkpointer) }
    }

    deinit {
        // First, so that the watch's descriptor is closed by the loop before it stops.
        watcher.withLock { $0 = nil }
        // Before the store's connection closes, so that the last to close is the one that
        // checkpoints the WAL and removes it.
        checkpointer?.stop()
        if ownsLoop { loop.stop(exitCode: 0) }
    }

    /// Closes the database: the last step before the process exits.
    public func close() {
        idleMerging?.cancel()
        idleMerging = nil
        idleCheckpoints?.cancel()
        mergeRetry?.cancel()
        watcher.withLock { $0 = nil }
        checkpointer?.stop()
        database.close()
    }

    /// A checkpointer for `database`'s file, which its commits call on; nil, leaving SQLite's
    /// automatic checkpoint, where there is no file to write or a second connection fails.
    private static func checkpointer(for database: Database) -> Checkpointer? {
        guard database.path != StoreFile.memoryPath, !database.isReadOnly else { return nil }
        do {
            let checkpointer = try Checkpointer(path: database.path)
            database.onCommitToWAL(checkpointer.committed(frames:written:))
            return checkpointer
        } catch {
            Log.warning("checkpoints stay in the commits that fill the WAL: \(error)")
            return nil
        }
    }

    /// Calls `onChange` when another process may have committed (on the loop's thread, or
    /// in a call of the store's); `hasExternalChanges` then tells. False where the store
    /// cannot watch (`:memory:`, no inotify). The store's writes leave the watch deaf until
    /// the loop has nothing to do.
    @discardableResult
    public func watchExternalChanges(onChange: @escaping @Sendable () -> Void) throws -> Bool {
        dataVersion = try translatingSQLiteErrors { try currentDataVersion() }
        let watcher = DatabaseWatcher(databasePath: path, loop: loop, onChange: onChange)
        self.watcher.withLock { $0 = watcher }
        return watcher != nil
    }

    /// True when another connection has committed since the last call. Calling it also
    /// re-arms the watcher, which calls `onChange` once per look.
    public func hasExternalChanges() throws -> Bool {
        watcher.withLock { $0 }?.rearm()
        return try translatingSQLiteErrors {
            let version = try currentDataVersion()
            defer { dataVersion = version }
            // Another writer's texts are segments of the index too.
            if version != dataVersion { textIndexMayMerge.store(true, ordering: .releasing) }
            return version != dataVersion
        }
    }

    /// Copies every committed change from the WAL into the database file and empties the
    /// WAL: called before the process ends, so that the file named by `--db` holds all the
    /// data by itself (a copy or backup of it alone is complete). A no-op while another
    /// connection still reads an older snapshot.
    public func checkpoint() throws {
        // Two checkpoints of one file do not run at once: the second fails at once.
        checkpointer?.finish()
        try translatingSQLiteErrors { try database.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// `PRAGMA data_version`: it changes only when another connection commits.
    private func currentDataVersion() throws -> Int64 {
        try database.integer("PRAGMA data_version") ?? 0
    }

    /// A write transaction of the store's own, which its watcher does not wake for. A
    /// commit that another process made just before this one took the write lock is
    /// reported as the watcher would have. Each ends by indexing the texts waiting for
    /// the trigram index, when there are many.
    func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        let watcher = watcher.withLock { $0 }
        var othersCommitted = false
        func transaction() throws -> T {
            try database.writeTransaction {
                // Read under the write lock, so it counts every commit before this one; read
                // after the commit instead, it took a read transaction of its own.
                if watcher != nil { othersCommitted = try currentDataVersion() != dataVersion }
                let value = try body()
                if try TextIndex.indexPendingIfMany(in: database) { textIndexMayMerge.store(true, ordering: .releasing) }
                return value
            }
        }
        guard let watcher else { return try transaction() }
        defer { if othersCommitted { watcher.report() } }
        return try watcher.ignoringWrites(transaction)
    }

    /// Merges one step of the trigram index's segments (`TextIndex.mergeStep`) in a write
    /// transaction of its own, which does not wait for another connection's write lock
    /// (it fails with `busy` instead): true when it merged something, so that another step
    /// may find more. No write merges them (schema 39); a server's loop runs these steps
    /// when idle (`StoreOptions.idleTextIndexMerging`).
    public func mergeTextIndexStep() throws -> Bool {
        database.setBusyTimeout(milliseconds: 0)
        defer { database.setBusyTimeout(milliseconds: busyTimeoutMilliseconds) }
        return try translatingSQLiteErrors { try writeTransaction { try TextIndex.mergeStep(in: database) } }
    }

    /// Has the loop run `mergeTextIndexStep` whenever it has nothing else to do.
    private nonisolated func mergeTextIndexWhenIdle() {
        // No closure holds the loop, which holds them: only the store, weakly.
        loop.execute { [weak self] in
            guard let self else { return }
            idleMerging = loop.addIdleHandler(quietNanoseconds: Self.quietNanoseconds) { [weak self] in
                guard let self, self.textIndexMayMerge.exchange(false, ordering: .acquiringAndReleasing) else { return false }
                Task(executorPreference: self.loop) { await self.mergeTextIndexWhileIdle() }
                return true
            }
            mergeRetry = loop.makeTimer { [weak self] in self?.textIndexMayMerge.store(true, ordering: .releasing) }
        }
    }

    /// Has the loop ask the checkpointer for a checkpoint of what the last writes left once
    /// no request has come for `quietNanoseconds`: a large commit asks only every
    /// `Checkpointer.frames` frames and a small one checkpoints itself only at that size, so
    /// a writer that stops may leave that many uncopied.
    private nonisolated func checkpointWhenIdle(_ checkpointer: Checkpointer) {
        loop.execute { [weak self, weak checkpointer] in
            guard let self else { return }
            idleCheckpoints = loop.addIdleHandler(quietNanoseconds: Self.quietNanoseconds) {
                checkpointer?.requestIfBehind()
                return false
            }
        }
    }

    /// One idle step: the loop is idle only until the next request. While another
    /// connection holds the lock, the next step waits `mergeRetryNanoseconds`, and then the
    /// loop's next idle moment. A step that merged something asks for another.
    private func mergeTextIndexWhileIdle() {
        // A step queued before `close` finds the connection closed.
        guard idleMerging != nil else { return }
        do {
            if try mergeTextIndexStep() { textIndexMayMerge.store(true, ordering: .releasing) }
        } catch {
            Log.debug("the text index was not merged this time: \(error)")
            mergeRetry?.schedule(after: Self.mergeRetryNanoseconds)
        }
    }

    private static let mergeRetryNanoseconds: UInt64 = 100_000_000
    /// How long no request may have come before the idle work starts (a merge step, a
    /// checkpoint): a client sending one request after another, however slowly, never
    /// meets it (a merge step takes a few milliseconds).
    private static let quietNanoseconds: UInt64 = 50_000_000
}

extension TaskStore: ServedStore {}
