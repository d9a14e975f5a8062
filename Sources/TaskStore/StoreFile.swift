import Glibc
import Logging
import SQLite
import TaskModel

/// How much an acknowledged write must survive.
public enum Durability: String, Sendable, CaseIterable {
    /// Synced to disk before it is acknowledged: survives power loss.
    case full
    /// Survives a crash of the process; the newest writes may be lost on power loss.
    case normal
}

public struct StoreOptions: Sendable {
    public var durability: Durability = .full
    public var busyTimeoutMilliseconds: Int32 = 5000
    /// When the database does not exist yet, start from a copy of this file.
    public var templatePath: String?
    /// Checkpoint the WAL after large commits on a thread of the store's own, and after small
    /// ones at four times SQLite's threshold (`Checkpointer`), rather than in the commit that
    /// fills it: for a process that serves writes for long.
    public var backgroundCheckpoints: Bool
    /// Merge the trigram index's segments a step at a time whenever the store's loop has
    /// been idle a while (`TaskStore.mergeTextIndexStep`), since no write merges them
    /// (schema 39): for a process that serves for long. Without it a level's segments are
    /// merged only once there are 64 of them, by the write that adds the 64th.
    public var idleTextIndexMerging: Bool

    public init(
        durability: Durability = .full, busyTimeoutMilliseconds: Int32 = 5000, templatePath: String? = nil,
        backgroundCheckpoints: Bool = false, idleTextIndexMerging: Bool = false
    ) {
        self.durability = durability
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.templatePath = templatePath
        self.backgroundCheckpoints = backgroundCheckpoints
        self.idleTextIndexMerging = idleTextIndexMerging
    }
}

/// Opens a database file for the store: creates it (or copies the template) when missing,
/// refuses files that are not Taskline's without writing to them, then migrates.
enum StoreFile {
    static let memoryPath = ":memory:"

    /// The page size of a new database, half SQLite's default: a commit writes each page it
    /// changed whole, and a task is a few dozen bytes in each of a dozen B-trees (its row,
    /// its indexes, the change log, the totals, the text queue). Smaller pages halve what a
    /// one-task commit appends to the WAL, copies, checksums and writes page by page, and
    /// make a lock-step create faster, while gets and pages of tasks cost the same.
    static let newFilePageSize = 2048

    static func open(path: String, options: StoreOptions) throws -> Database {
        // Processes starting together on one file meet locks that SQLite reports at once
        // rather than wait for (switching to WAL, a reader meeting a migration): the whole
        // opening is tried again until the busy timeout has passed.
        let deadline = Timestamp.now() + Int64(options.busyTimeoutMilliseconds)
        while true {
            do {
                return try openOnce(path: path, options: options)
            } catch let error as SQLiteError where error.isLockContention {
                guard Timestamp.now() < deadline else { throw StoreOpenError.cannotOpen(path: path, detail: error.message) }
                usleep(10_000)
            }
        }
    }

    private static func openOnce(path: String, options: StoreOptions) throws -> Database {
        let database: Database
        if path == memoryPath {
            database = try wrap(path) { try Database(path: path) }
            if let template = options.templatePath {
                try copy(template: template, into: database, options: options)
            }
        } else {
            try createParentDirectories(of: path)
            if access(path, F_OK) != 0 {
                if let template = options.templatePath {
                    try materialize(template: template, at: path, options: options)
                } else {
                    try createEmptyFile(at: path)
                }
            }
            database = try openReadable(path: path, mode: .readWrite, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        }
        try checkUsable(database, path: path)
        try configure(database, path: path, options: options)
        try wrap(path) { try Schema.migrator.migrate(database) }
        indexWaitingTexts(in: database)
        return database
    }

    /// Writers other than Taskline queue their tasks' texts for the trigram index without
    /// indexing them, and the text filter reads every queued task: many are indexed before
    /// the store serves. A file that cannot be written keeps them queued.
    private static func indexWaitingTexts(in database: Database) {
        guard (try? TextIndex.hasManyPending(in: database)) == true else { return }
        do {
            try database.writeTransaction { try TextIndex.indexPending(in: database) }
        } catch {
            Log.warning("\(database.path): could not index the texts other writers left waiting: \(error)")
        }
    }

    /// Opens `path` and makes sure it can be read. SQLite reads a WAL-mode file through its
    /// `-wal` and `-shm` files, which it creates when missing; where it cannot (read-only
    /// media: a mounted backup, a snapshot), the file is opened again, read-only, without them:
    /// - with no `-wal`, every commit is in the file itself, which is opened `immutable=1`;
    /// - with a `-wal` but no `-shm`, the commits in the `-wal` are never ignored: SQLite
    ///   reads them into a wal-index in this process's memory (exclusive locking mode; the
    ///   `unix-none` VFS, since no lock can be taken on a file opened read-only there).
    /// Either way the file is read as it is when opened: nothing can write it on such media.
    /// A file with a `-journal` is not: that may be a hot journal, a transaction half
    /// written into the file that only rolling back undoes, which read-only media forbid.
    static func openReadable(path: String, mode: Database.OpenMode, busyTimeoutMilliseconds: Int32) throws -> Database {
        let database = try wrap(path) { try Database(path: path, mode: mode) }
        // Before anything reads the file: another process may be creating or migrating it.
        database.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
        let hasWAL = access(path + "-wal", F_OK) == 0
        let readable = try wrap(path) {
            do {
                _ = try database.integer("SELECT count(*) FROM sqlite_schema")
                return true
            } catch let error as SQLiteError
                where [.cantOpen, .readOnly].contains(error.resultCode.primary)
                && database.isReadOnly && (!hasWAL || access(path + "-shm", F_OK) != 0)
                && access(path + "-journal", F_OK) != 0
            {
                return false
            }
        }
        if readable { return database }
        database.close()
        let snapshot = try wrap(path) {
            try Database(path: fileURI(path, query: hasWAL ? "mode=ro&vfs=unix-none" : "mode=ro&immutable=1"), mode: .readOnly)
        }
        try wrap(path) {
            if hasWAL { try snapshot.execute("PRAGMA locking_mode = EXCLUSIVE") }
            _ = try snapshot.integer("SELECT count(*) FROM sqlite_schema")
        }
        Log.info("\(path): its -wal or -shm file is missing and cannot be made; reading the file as it is now")
        return snapshot
    }

    /// `path` as an SQLite URI filename, every byte but letters, digits and `/-._~` escaped.
    private static func fileURI(_ path: String, query: String) -> String {
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        var uri = path.hasPrefix("/") ? "file://" : "file:"
        for byte in path.utf8 {
            if (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "/-._~".utf8.contains(byte) {
                uri.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                uri.unicodeScalars.append(contentsOf: ["%", digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
            }
        }
        return uri + "?" + query
    }

    /// Throws `StoreOpenError` unless the file is Taskline's (or new and empty) and holds
    /// exactly the schema objects Taskline made: `inspect`'s findings, as the store opens it.
    static func checkUsable(_ database: Database, path: String) throws {
        let unexpected = try inspect(database, path: path).unexpectedObjects
        guard unexpected.isEmpty else { throw StoreOpenError.unexpectedObjects(path: path, objects: unexpected) }
    }

    /// Reads, never writes: a file that is not ours must come out of this untouched. Throws
    /// `StoreOpenError` for a file that is not Taskline's, or of a newer schema; returns the
    /// schema version and what the schema holds beyond what Taskline made at that version.
    static func inspect(_ database: Database, path: String) throws -> (version: Int, unexpectedObjects: [String]) {
        try wrap(path) {
            // One snapshot: read one at a time, another process's migration could commit in
            // between, and its tables and version be seen without its application id, or
            // the objects of one version taken for those of another.
            return try database.readTransaction {
                var objects: Int64 = 0
                var applicationID: Int32 = 0
                var version = 0
                try database.cachedStatement(
                    """
                    SELECT (SELECT count(*) FROM sqlite_schema), (SELECT application_id FROM pragma_application_id),
                           (SELECT user_version FROM pragma_user_version)
                    """
                ).forEachRow { row in
                    objects = row.int64(0)
                    applicationID = Int32(truncatingIfNeeded: row.int64(1))
                    version = row.int(2)
                }
                if applicationID == 0 && version == 0 && objects == 0 { return (0, []) }  // a new, empty database
                guard applicationID == Schema.applicationID else {
                    throw StoreOpenError.foreignSchema(
                        path: path,
                        detail: applicationID == 0 ? "it has tables but no Taskline application id" : "application id \(applicationID)")
                }
                guard version >= 0 else {
                    throw StoreOpenError.foreignSchema(path: path, detail: "schema version \(version), which Taskline never writes")
                }
                guard version <= Schema.migrator.latestVersion else {
                    throw StoreOpenError.newerSchema(path: path, version: version, supported: Schema.migrator.latestVersion)
                }
                return (version, try Schema.unexpectedObjects(in: database, version: version))
            }
        }
    }

    private static func configure(_ database: Database, path: String, options: StoreOptions) throws {
        try wrap(path) {
            // Benchmarks/sqlite-baseline sets the same pragmas: keep the two in step.
            try database.execute("PRAGMA foreign_keys = ON")
            // Only a file with no pages yet takes a page size; an older one keeps its own.
            if try database.integer("PRAGMA page_count") == 0 {
                try database.execute("PRAGMA page_size = \(newFilePageSize)")
            }
            // WAL: readers never block the writer, and a commit is one append (plus one fsync
            // with synchronous=FULL). A read-only file keeps its journal mode; writes then fail
            // with SQLITE_READONLY, which clients see as error 1004.
            if path != memoryPath {
                do {
                    try database.execute("PRAGMA journal_mode = WAL")
                } catch let error as SQLiteError where error.resultCode.primary == .readOnly {}
                if database.isReadOnly { Log.warning("\(path) is read-only: reads work, writes will fail") }
            }
            try database.execute("PRAGMA synchronous = \(options.durability == .full ? "FULL" : "NORMAL")")
            // 8 MiB of page cache (SQLite's default is 2): a large write (an import, a big
            // tasks/apply) touches many index pages, and a cache too small for them spills
            // them to the WAL mid-transaction. Memory stays bounded by this figure.
            try database.execute("PRAGMA cache_size = -8192")
            // Temporary files, but statement journals stay in memory up to the limit that
            // CSQLite/shim.h sets: only where they are files does SQLite keep them in one piece.
            try database.execute("PRAGMA temp_store = FILE")
        }
    }

    /// Copies the template next to `path` under a temporary name, checks it, and only then
    /// puts it in place, so a bad template never leaves a half-made database behind.
    ///
    /// It is linked into place, not renamed: another process starting from the template at
    /// the same moment may have put its copy there first, and written to it already; a
    /// rename would replace that file, and those writes with it. When the name is taken,
    /// that file is the database. Only a file system without hard links gets a rename.
    static func materialize(template: String, at path: String, options: StoreOptions) throws {
        let temporary = path + ".template-\(getpid())"
        try createEmptyFile(at: temporary)
        defer { unlink(temporary) }
        do {
            let database = try wrap(temporary) { try Database(path: temporary, mode: .readWrite) }
            try copy(template: template, into: database, options: options)
        }
        guard link(temporary, path) != 0 else { return }
        switch errno {
        case EEXIST:
            return
        case EPERM, EOPNOTSUPP, EMLINK:
            if rename(temporary, path) == 0 { return }
        default:
            break
        }
        throw StoreOpenError.cannotOpen(path: path, detail: String(cString: strerror(errno)))
    }

    /// A template on read-only media is read as `openReadable` reads any file there.
    private static func copy(template: String, into destination: Database, options: StoreOptions) throws {
        guard access(template, R_OK) == 0 else {
            throw StoreOpenError.cannotOpen(path: template, detail: String(cString: strerror(errno)))
        }
        do {
            let source = try openReadable(path: template, mode: .readOnly, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
            try source.backup(into: destination)
        } catch let error as SQLiteError {
            throw StoreOpenError(error, path: template)
        }
        try checkUsable(destination, path: template)
    }

    /// The database's own mode is what SQLite gives its -wal and -shm files, so creating it
    /// 0600 keeps all three private to the user.
    static func createEmptyFile(at path: String) throws {
        let fd = Glibc.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        // Another process starting at the same moment may have just made it: use theirs.
        if fd < 0 && errno == EEXIST { return }
        guard fd >= 0 else {
            throw StoreOpenError.cannotOpen(path: path, detail: String(cString: strerror(errno)))
        }
        close(fd)
    }

    private static func createParentDirectories(of path: String) throws {
        var directories: [String] = []
        var current = parent(of: path)
        while let directory = current, access(directory, F_OK) != 0 {
            directories.append(directory)
            current = parent(of: directory)
        }
        for directory in directories.reversed() where mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw StoreOpenError.cannotOpen(path: path, detail: "cannot create \(directory): \(String(cString: strerror(errno)))")
        }
    }

    private static func parent(of path: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let parent = String(path[..<slash])
        return parent.isEmpty ? nil : parent
    }

    /// Turns SQLite's errors into `StoreOpenError`s, except the lock errors, which `open` retries.
    /// The `StoreOpenError`s `body` throws go through as they are.
    private static func wrap<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError where !error.isLockContention {
            throw StoreOpenError(error, path: path)
        }
    }
}

extension SQLiteError {
    /// Another connection holds a lock that this one needs: worth trying again.
    var isLockContention: Bool {
        switch resultCode {
        case .busy, .locked: true
        default: false
        }
    }
}
