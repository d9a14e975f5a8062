import Dispatch
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
/// It also fires for this process's own commits; the store's `data_version` check tells
/// those apart cheaply. Bursts coalesce: `onChange` is not called again until `rearm()`,
/// and a wake-up that comes meanwhile is not lost but delivered by `rearm()`. A commit
/// writes many pages, each an event, so after an event (any file's in the folder) the
/// watcher stops reading events for 10 ms, then reads what came meanwhile: a server
/// writing thousands of times a second wakes this thread a hundred times, not tens of
/// thousands (each wake-up took CPU from the writes themselves).
public final class DatabaseWatcher: @unchecked Sendable {  // @unchecked: the source is thread-safe
    private let fd: Int32
    private let source: DispatchSourceRead
    private let settleTimer: DispatchSourceTimer
    private let state = Mutex(State.armed)
    /// False while the source is suspended between an event and the next look.
    private let listening = Mutex(true)
    private let onChange: @Sendable () -> Void

    private enum State {
        /// Nothing reported and unanswered: the next wake-up calls `onChange`.
        case armed
        /// `onChange` was called; the owner has not looked yet.
        case reported
        /// …and something more happened since, so `rearm` reports again.
        case reportedAgain
    }
    /// Milliseconds after the last event at which to look again.
    private static let settleDelays = [10, 50, 200, 1000, 3000]

    /// Nil when the database is not a file or inotify is unavailable (the server then
    /// notifies only its own changes).
    public init?(databasePath: String, onChange: @escaping @Sendable () -> Void) {
        guard databasePath != StoreFile.memoryPath else { return nil }
        let slash = databasePath.lastIndex(of: "/")
        let directory = slash.map { String(databasePath[..<$0]) }.flatMap { $0.isEmpty ? "/" : $0 } ?? "."
        let name = slash.map { String(databasePath[databasePath.index(after: $0)...]) } ?? databasePath
        let watched: Set<String> = [name, name + "-wal"]
        self.onChange = onChange

        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        guard inotify_add_watch(fd, directory, UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO)) >= 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
        let queue = DispatchQueue(label: "taskline.database-watcher")
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        settleTimer = DispatchSource.makeTimerSource(queue: queue)
        var pendingDelays: [Int] = []  // only touched on `queue`
        func scheduleNextSettle(after previous: Int) {
            guard let next = pendingDelays.first else { return }
            settleTimer.schedule(deadline: .now() + .milliseconds(next - previous))
        }
        settleTimer.setEventHandler { [weak self] in
            guard let self else { return }
            self.listen()
            guard !pendingDelays.isEmpty else { return }
            let done = pendingDelays.removeFirst()
            self.fire()
            scheduleNextSettle(after: done)
        }
        source.setEventHandler { [weak self] in
            let relevant = Self.drainEvents(fd: fd, matching: watched)
            guard let self else { return }
            self.pauseListening()
            if relevant {
                self.fire()
                pendingDelays = Self.settleDelays
                scheduleNextSettle(after: 0)
            } else if pendingDelays.isEmpty {
                // Another file in the folder: no look is due, only listening again.
                self.settleTimer.schedule(deadline: .now() + .milliseconds(Self.settleDelays[0]))
            }
        }
        source.setCancelHandler { close(fd) }
        settleTimer.resume()
        source.resume()
    }

    deinit {
        settleTimer.cancel()
        listen()  // libdispatch must not release a suspended source
        source.cancel()
    }

    private func pauseListening() {
        listening.withLock { listening in
            guard listening else { return }
            listening = false
            source.suspend()
        }
    }

    private func listen() {
        listening.withLock { listening in
            guard !listening else { return }
            listening = true
            source.resume()
        }
    }

    private func fire() {
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

    /// The owner is about to look at the database: the next wake-up may report again, and
    /// one that came since the last report is reported now.
    public func rearm() {
        let again = state.withLock { state in
            defer { state = .armed }
            return state == .reportedAgain
        }
        if again { fire() }
    }

    /// Reads every pending event; true if any concerns the watched names.
    private static func drainEvents(fd: Int32, matching names: Set<String>) -> Bool {
        var relevant = false
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return relevant }
            var offset = 0
            let headerSize = MemoryLayout<inotify_event>.size
            while offset + headerSize <= count {
                let nameLength = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset + 12, as: UInt32.self)) }
                let nameBytes = buffer[(offset + headerSize)..<min(count, offset + headerSize + nameLength)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                if names.contains(name) { relevant = true }
                offset += headerSize + nameLength
            }
        }
    }
}
