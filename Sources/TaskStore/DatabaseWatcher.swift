import EventLoop
import Glibc
import Logging
import Synchronization

/// Wakes up when the database file may have been changed by another process.
///
/// It watches the database's `-wal` file with inotify: a commit in WAL mode always appends
/// to the WAL (the database file itself is written only by checkpoints, which change no
/// data). The inotify descriptor is a source of the owner's event loop, so an idle server
/// sleeps in the kernel; there is no polling. (The `-shm` file is written through a memory
/// map, which inotify does not see.) The folder is watched too, for a WAL or a database
/// made anew or moved into place; a new WAL is then watched in turn. A path through
/// symbolic links is resolved first: SQLite writes the WAL beside the file the links lead to.
///
/// A write to the WAL comes a little before the commit is visible (the writer still syncs
/// the WAL and then marks the commit in the memory-mapped `-shm`, which makes no event), so
/// after the last event the watcher looks again a few times, from 10 ms to 3 s later (a
/// slow disk can hold the writer's sync that long): one loop timer, set to the next look.
/// That costs a few cheap checks after activity and nothing while idle.
///
/// Its owner's own commits are written while the WAL's watch is deaf (see
/// `ignoringWrites`), which listens again when the loop pauses. Bursts coalesce: `onChange`
/// is not called again until `rearm()`, and a wake-up that comes meanwhile is not lost but
/// delivered by `rearm()`.
///
/// One commit writes dozens of pages, each an event, so when events come less than 0.5 ms
/// after the last ones the watch stops reading for 0.5 ms (a loop timer): a server writing
/// thousands of times a second is woken about once per commit, not ten times (each wake-up
/// took CPU from the writes themselves), and a commit is heard within a millisecond.
public final class DatabaseWatcher: Sendable {
    private let reporter: Reporter
    private let wal: WALWatch
    private let watch: InotifyWatch
    private let loop: EventLoop

    /// What the folder is watched for: a file made or moved into place. Never changed: a
    /// change to a folder's mask makes the kernel visit every cached entry of the folder
    /// (`fsnotify_set_children_dentry_flags`), a cost that grows with the folder.
    private static let folderMask = UInt32(IN_CREATE | IN_MOVED_TO)

    /// Milliseconds after the last event at which to look again.
    static let settleDelays: [UInt64] = [10, 50, 200, 1000, 3000]
    /// How long the watch stops reading after events that came close after others.
    static let pauseNanoseconds: UInt64 = 500_000

    /// Nil when the database is not a file or inotify is unavailable (the server then
    /// notifies only its own changes, and the log says why). `onChange` is called on
    /// `loop`'s thread, or on the thread that calls `rearm` or writes (`ignoringWrites`).
    public init?(databasePath: String, loop: EventLoop, onChange: @escaping @Sendable () -> Void) {
        guard databasePath != StoreFile.memoryPath else { return nil }
        let databasePath = Self.resolved(databasePath)
        let slash = databasePath.lastIndex(of: "/")
        let directory = slash.map { String(databasePath[..<$0]) }.flatMap { $0.isEmpty ? "/" : $0 } ?? "."
        let name = slash.map { String(databasePath[databasePath.index(after: $0)...]) } ?? databasePath

        // Each fails on a limit of the user's (fs.inotify.max_user_instances, max_user_watches)
        // or the process's (open files), which other programs' watches count against too.
        func warn(_ call: String) {
            Log.warning("other processes' changes to \(databasePath) will not be notified: \(call) failed: \(String(cString: strerror(errno)))")
        }
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else {
            warn("inotify_init1")
            return nil
        }
        guard inotify_add_watch(fd, directory, Self.folderMask) >= 0 else {
            warn("inotify_add_watch on \(directory)")
            close(fd)
            return nil
        }
        self.loop = loop
        reporter = Reporter(onChange: onChange)
        // A WAL not made yet is watched once the folder's watch hears it made.
        wal = WALWatch(inotifyFD: fd, path: databasePath + "-wal")
        wal.watch()
        watch = InotifyWatch(inotifyFD: fd, databaseName: name, wal: wal, reporter: reporter, loop: loop)
        loop.execute { [watch] in watch.start() }
    }

    /// The path with every symbolic link resolved, or as given when it cannot be.
    private static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    deinit {
        loop.execute { [watch] in watch.stop() }
    }

    /// The owner is about to look at the database: the next wake-up may report again, and
    /// one that came since the last report is reported now.
    public func rearm() {
        reporter.rearm()
    }

    /// Runs `body`, which writes the database, with the WAL's watch deaf, and leaves it deaf
    /// until the loop pauses.
    ///
    /// SQLite writes a commit page by page, each write an inotify event, and waking the
    /// loop for the owner's own commits would cost a lock-step create a large share of its
    /// time. Changing a watch's mask makes no event, but
    /// is a system call: made deaf for each write and listening after it, the watch cost
    /// two a write, so it listens again only when the loop pauses. While `body` holds the
    /// write lock no other process can commit; one that committed while the watch was deaf
    /// is not heard, so the owner looks (`PRAGMA data_version`) under the write lock and
    /// calls `report()` for what it finds, and the pause asks it to look again.
    public func ignoringWrites<T>(_ body: () throws -> T) rethrows -> T {
        wal.setDeaf(true)
        return try body()
    }

    /// Reports a change the owner found itself, as if the watch had heard it.
    public func report() {
        reporter.fire()
    }
}

/// Calls `onChange` once per look of the owner's (see `DatabaseWatcher.rearm`).
private final class Reporter: Sendable {
    private enum State {
        /// Nothing reported and unanswered: the next wake-up calls `onChange`.
        case armed
        /// `onChange` was called; the owner has not looked yet.
        case reported
        /// …and something more happened since, so `rearm` reports again.
        case reportedAgain
    }

    private let state = Mutex(State.armed)
    private let onChange: @Sendable () -> Void

    init(onChange: @escaping @Sendable () -> Void) {
        self.onChange = onChange
    }

    func fire() {
        let report = state.withLock { state in
            switch state {
            case .armed:
                state = .reported
                return true
            case .reported, .reportedAgain:
                state = .reportedAgain
                return false
            }
        }
        if report { onChange() }
    }

    func rearm() {
        let again = state.withLock { state in
            defer { state = .armed }
            return state == .reportedAgain
        }
        if again { fire() }
    }
}

/// The watch on the `-wal` file, deaf or listening; shared by the owner, who makes it deaf
/// while it writes (on the thread of its choice), and the loop, which makes it listen and
/// watches a WAL made anew.
private final class WALWatch: Sendable {
    private let inotifyFD: Int32
    private let path: String
    /// Whether the owner is writing; the lock also orders the two threads' changes to the watch.
    private let deaf = Mutex(false)

    /// Writes to the WAL: another process's commit.
    private static let listeningMask = UInt32(IN_MODIFY)
    /// The same watch made deaf: no write makes an event (a watch needs some mask).
    private static let deafMask = UInt32(IN_DELETE_SELF)

    init(inotifyFD: Int32, path: String) {
        self.inotifyFD = inotifyFD
        self.path = path
    }

    /// Watches the file now at `path`, as deaf as the owner wants it. Naming the path,
    /// not a watch descriptor, makes a WAL made anew the one watched. Fails quietly when
    /// there is no WAL: the folder's watch hears one made.
    func watch() {
        deaf.withLock { addWatch(deaf: $0) }
    }

    /// Returns whether the watch changed: a watch already as asked costs no system call.
    @discardableResult
    func setDeaf(_ value: Bool) -> Bool {
        deaf.withLock {
            guard $0 != value else { return false }
            $0 = value
            addWatch(deaf: value)
            return true
        }
    }

    /// Adding a watch on a path already watched replaces its mask.
    private func addWatch(deaf: Bool) {
        _ = inotify_add_watch(inotifyFD, path, deaf ? Self.deafMask : Self.listeningMask)
    }
}

/// The watch's part on the loop's thread: owns the inotify descriptor, its source and the
/// timers.
private final class InotifyWatch: @unchecked Sendable {  // @unchecked: used on the loop's thread only
    private let inotifyFD: Int32
    /// The names in the folder that matter, as inotify reports them: UTF-8 bytes.
    private let databaseName: [UInt8]
    private let walName: [UInt8]
    private let wal: WALWatch
    private let reporter: Reporter
    /// Whose clock the delays are measured on.
    private let loop: EventLoop
    private var buffer = [UInt8](repeating: 0, count: 8192)

    private var source: EventLoop.Source?
    /// The next look after the last event (`DatabaseWatcher.settleDelays`).
    private var look: EventLoop.Timer?
    /// The end of a pause in reading, after a burst.
    private var resume: EventLoop.Timer?
    private var pause: EventLoop.Handler<Bool>?
    private var lastEvent: UInt64 = 0
    private var lastRead: UInt64 = 0
    private var looksMade = DatabaseWatcher.settleDelays.count

    init(inotifyFD: Int32, databaseName: String, wal: WALWatch, reporter: Reporter, loop: EventLoop) {
        self.inotifyFD = inotifyFD
        self.databaseName = Array(databaseName.utf8)
        self.walName = Array((databaseName + "-wal").utf8)
        self.wal = wal
        self.reporter = reporter
        self.loop = loop
    }

    func start() {
        source = loop.addSource(fd: inotifyFD, events: Int16(POLLIN)) { [unowned self] _ in self.readable() }
        look = loop.makeTimer { [unowned self] in
            looksMade += 1
            reporter.fire()
            scheduleLook()
        }
        resume = loop.makeTimer { [unowned self] in
            lastRead = loop.now()
            source?.events = Int16(POLLIN)
        }
        // The loop has nothing to do: a watch the owner's writes made deaf listens again,
        // and the owner is asked to look, for another process's commit since its last
        // write was not heard.
        pause = loop.addPauseHandler { [wal, reporter] in
            guard wal.setDeaf(false) else { return false }
            reporter.fire()
            return true
        }
        // A commit whose WAL writes came before the watch was set may become visible after
        // it, with no event left to hear: the start counts as an event, looked at now and
        // again after each settle delay.
        lastEvent = loop.now()
        looksMade = 0
        scheduleLook()
        reporter.fire()
    }

    func stop() {
        source?.cancel()
        look?.cancel()
        resume?.cancel()
        pause?.cancel()
        close(inotifyFD)
    }

    private func readable() {
        let now = loop.now()
        if drainEvents() {
            reporter.fire()
            lastEvent = now
            looksMade = 0
            scheduleLook()
        }
        // A burst: let the rest of it gather, and read it together.
        if now - lastRead < DatabaseWatcher.pauseNanoseconds {
            source?.events = 0
            resume?.schedule(after: DatabaseWatcher.pauseNanoseconds)
        } else {
            lastRead = now
        }
    }

    private func scheduleLook() {
        guard looksMade < DatabaseWatcher.settleDelays.count else { return }
        look?.schedule(at: lastEvent + DatabaseWatcher.settleDelays[looksMade] * 1_000_000)
    }

    /// Reads every pending event; true if any may be another process's commit: a write to
    /// the WAL (its watch's events carry no name), the database or its WAL made anew or
    /// moved into place (the folder's, named), or events the kernel dropped when its queue
    /// was full (`fs.inotify.max_queued_events`). A new WAL is watched from now on.
    private func drainEvents() -> Bool {
        var relevant = false
        let headerSize = MemoryLayout<inotify_event>.size
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotifyFD, $0.baseAddress, $0.count) }
            guard count > 0 else { return relevant }
            var offset = 0
            while offset + headerSize <= count {
                let (mask, nameLength) = buffer.withUnsafeBytes {
                    ($0.load(fromByteOffset: offset + 4, as: UInt32.self), Int($0.load(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                // The name is padded with NULs to the length given.
                let name = buffer[(offset + headerSize)..<min(count, offset + headerSize + nameLength)].prefix { $0 != 0 }
                if mask & UInt32(IN_MODIFY) != 0 {
                    relevant = true
                } else if mask & UInt32(IN_Q_OVERFLOW) != 0 || walName.elementsEqual(name) {
                    wal.watch()
                    relevant = true
                } else if databaseName.elementsEqual(name) {
                    relevant = true
                }
                offset += headerSize + nameLength
            }
        }
    }
}
