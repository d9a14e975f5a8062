import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Wakes up when the database file may have been changed by another process.
///
/// It watches the database's folder with inotify and reacts to writes to the database
/// and its `-wal` file: a commit in WAL mode always appends to the WAL. The kernel does the
/// waiting, so an idle server costs no CPU at all; there is no polling. (The `-shm` file is
/// written through a memory map, which inotify does not see, so it is not watched.)
///
/// A write to the WAL comes a little before the commit is visible (the writer still syncs
/// the WAL and then marks the commit in the memory-mapped `-shm`, which makes no event), so
/// after the last event the watcher looks again a few times, from 10 ms to 3 s later (a
/// slow disk can hold the writer's sync that long). That costs a few cheap checks after
/// activity and nothing while idle.
///
/// Its owner's own commits are written while the watch is deaf to writes (see
/// `ignoringWrites`). Bursts coalesce: `onChange` is not called again until `rearm()`,
/// and a wake-up that comes meanwhile is not lost but delivered by `rearm()`.
///
/// One commit writes dozens of pages, each an event, so when events come less than 0.5 ms
/// after the last ones the watcher's thread sleeps 0.5 ms before it reads more: a server
/// writing thousands of times a second wakes it about once per commit, not ten times
/// (each wake-up took CPU from the writes themselves), and a commit is heard within a
/// millisecond. It is a thread of its own, `poll`ing the inotify
/// descriptor, rather than a Dispatch source: suspending and resuming a source woke two
/// more threads.
public final class DatabaseWatcher: Sendable {
    private let reporter: Reporter
    /// Written to when the watcher goes away: the thread then closes its descriptors and ends.
    private let stopFD: Int32
    /// The inotify descriptor (the thread's, open until this object goes) and the watched folder.
    private let inotifyFD: Int32
    private let directory: String

    /// What the folder is watched for: writes to the database and its WAL, and a WAL made anew.
    private static let listeningMask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO)
    /// The same watch made deaf: no file written makes an event (a watch needs some mask).
    private static let deafMask = UInt32(IN_DELETE_SELF)

    /// Milliseconds after the last event at which to look again.
    static let settleDelays: [Int64] = [10, 50, 200, 1000, 3000]
    /// How long the thread sleeps after reading events that came close after others.
    static let pauseMicroseconds: Int64 = 500

    /// Nil when the database is not a file or inotify is unavailable (the server then
    /// notifies only its own changes).
    public init?(databasePath: String, onChange: @escaping @Sendable () -> Void) {
        guard databasePath != StoreFile.memoryPath else { return nil }
        let slash = databasePath.lastIndex(of: "/")
        let directory = slash.map { String(databasePath[..<$0]) }.flatMap { $0.isEmpty ? "/" : $0 } ?? "."
        let name = slash.map { String(databasePath[databasePath.index(after: $0)...]) } ?? databasePath

        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        var stop: [Int32] = [-1, -1]
        guard inotify_add_watch(fd, directory, Self.listeningMask) >= 0, pipe(&stop) == 0 else {
            close(fd)
            return nil
        }
        for end in stop { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        reporter = Reporter(onChange: onChange)
        stopFD = stop[1]
        inotifyFD = fd
        self.directory = directory
        let loop = WatchLoop(inotifyFD: fd, stopFD: stop[0], names: [name, name + "-wal"], reporter: reporter)
        guard startDetachedThread({ loop.run() }) else {
            loop.closeDescriptors()
            close(stop[1])
            return nil
        }
    }

    deinit {
        close(stopFD)  // the thread sees its end of the pipe close
    }

    /// The owner is about to look at the database: the next wake-up may report again, and
    /// one that came since the last report is reported now.
    public func rearm() {
        reporter.rearm()
    }

    /// Runs `body`, which writes the database, with the watch deaf to writes.
    ///
    /// SQLite writes a commit page by page, each write an inotify event, and waking this
    /// thread for the owner's own commits took a quarter of a lock-step create's time
    /// (50–80 µs of 200–270 at 100,000 tasks). Changing a watch's mask makes no event.
    /// While `body` holds the write lock no other process can commit; one that committed
    /// between the watch going deaf and `body` taking the lock is not heard, so the owner
    /// looks afterwards (`PRAGMA data_version`) and calls `report()` for what it finds.
    public func ignoringWrites<T>(_ body: () throws -> T) rethrows -> T {
        _ = inotify_add_watch(inotifyFD, directory, Self.deafMask)
        defer { _ = inotify_add_watch(inotifyFD, directory, Self.listeningMask) }
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

/// The watcher's thread: owns the inotify descriptor and the read end of the stop pipe.
private final class WatchLoop: @unchecked Sendable {  // @unchecked: used by its one thread only
    private let inotifyFD: Int32
    private let stopFD: Int32
    /// The watched file names, as inotify reports them: UTF-8 bytes.
    private let names: [[UInt8]]
    private let reporter: Reporter
    private var buffer = [UInt8](repeating: 0, count: 8192)

    init(inotifyFD: Int32, stopFD: Int32, names: [String], reporter: Reporter) {
        self.inotifyFD = inotifyFD
        self.stopFD = stopFD
        self.names = names.map { Array($0.utf8) }
        self.reporter = reporter
    }

    func run() {
        defer { closeDescriptors() }
        var lastEvent: Int64 = 0  // µs
        var lastRead = Int64.min / 2  // µs
        var looks: ArraySlice<Int64> = []
        while true {
            let timeout = looks.first.map { Int32(clamping: max(0, (lastEvent + $0 * 1000 - Self.now()) / 1000)) } ?? -1
            var targets = [pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&targets, 2, timeout)
            if ready < 0 && errno != EINTR { return }
            if targets[1].revents != 0 { return }
            if targets[0].revents != 0 {
                let now = Self.now()
                if drainEvents() {
                    reporter.fire()
                    lastEvent = now
                    looks = DatabaseWatcher.settleDelays[...]
                }
                // A burst: let the rest of it gather, and read it together.
                if now - lastRead < DatabaseWatcher.pauseMicroseconds { usleep(UInt32(DatabaseWatcher.pauseMicroseconds)) }
                lastRead = Self.now()
            } else if ready == 0, !looks.isEmpty {
                looks = looks.dropFirst()
                reporter.fire()
            }
        }
    }

    func closeDescriptors() {
        close(inotifyFD)
        close(stopFD)
    }

    /// Microseconds on the monotonic clock.
    private static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }

    /// Reads every pending event; true if any concerns the watched names.
    private func drainEvents() -> Bool {
        var relevant = false
        let headerSize = MemoryLayout<inotify_event>.size
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotifyFD, $0.baseAddress, $0.count) }
            guard count > 0 else { return relevant }
            var offset = 0
            while offset + headerSize <= count {
                let nameLength = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset + 12, as: UInt32.self)) }
                // The name is padded with NULs to the length given.
                let name = buffer[(offset + headerSize)..<min(count, offset + headerSize + nameLength)].prefix { $0 != 0 }
                if names.contains(where: { $0.elementsEqual(name) }) { relevant = true }
                offset += headerSize + nameLength
            }
        }
    }
}
