import EventLoop
import Foundation
import SQLite
import Synchronization
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// Each watcher runs on a loop whose clock the test moves: the looks after an event, and the
/// end of a pause in reading, come when the test says, not when a loaded machine gets to them.
@Suite struct DatabaseWatcherTests {
    let directory = TemporaryDirectory()
    let clock = ManualLoopClock()

    /// The masks of the inotify watches this process holds on the file or folder at `path`,
    /// from /proc (other tests' watchers, running at the same time, watch other folders).
    func watchMasks(on path: String) throws -> [UInt32] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        let inode = " ino:\(String(info.st_ino, radix: 16)) "
        var masks: [UInt32] = []
        for fd in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fdinfo") {
            guard let text = try? String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") where line.hasPrefix("inotify ") && line.contains(inode) {
                let field = line.split(separator: " ").first { $0.hasPrefix("mask:") }
                masks.append(field.flatMap { UInt32($0.dropFirst(5), radix: 16) } ?? 0)
            }
        }
        return masks
    }

    func watches(on path: String) throws -> Int {
        try watchMasks(on: path).count
    }

    /// Past the last look after an event: every look owed has been made.
    static let pastTheLooks = (DatabaseWatcher.settleDelays.last! + 1) * 1_000_000

    /// Has the looks that follow the watch's start all made, and answers each report with a
    /// look, as the server does, until none is owed; returns the reports so far. A report
    /// after that comes from what the watch hears.
    func settle(_ watcher: DatabaseWatcher, _ reports: borrowing Mutex<Int>, on loop: EventLoop) -> Int {
        loop.settle()
        #expect(reports.withLock { $0 } >= 1, "a look when the watch starts")
        loop.advance(clock, by: Self.pastTheLooks)
        var seen = -1
        while seen != reports.withLock({ $0 }) {
            seen = reports.withLock { $0 }
            watcher.rearm()
            loop.settle()
        }
        return seen
    }

    /// Writes `titles` in one job of the store's: its loop cannot pause before `then` has
    /// run, which sees the store as its last write left it.
    func write(_ titles: [String], in store: isolated TaskStore, then: () throws -> Void = {}) throws {
        for title in titles { _ = try store.create(TaskDraft(title: title)) }
        try then()
    }

    @Test func anotherConnectionsCommitIsReportedOncePerLook() throws {
        let path = directory.file("tasks.sqlite")
        _ = try TaskStore(path: path)
        let loop = EventLoop.startThread(clock: clock)
        defer { loop.stop(exitCode: 0) }
        let reports = Mutex(0)
        let other = try Database(path: path)
        try other.run("INSERT INTO meta (key, value) VALUES ('before', 1)")  // the WAL exists: only writes to it are heard
        let watcher = try #require(DatabaseWatcher(databasePath: path, loop: loop) { reports.withLock { $0 += 1 } })
        let quiet = settle(watcher, reports, on: loop)
        for index in 0..<20 {
            try other.run("INSERT INTO meta (key, value) VALUES (?, 1)", [.text("key \(index)")])
        }
        loop.settle()
        #expect(reports.withLock { $0 } == quiet + 1)
        // Until the owner looks (rearm), a burst is one report, the looks after it included;
        // the look gets the one owed.
        loop.advance(clock, by: Self.pastTheLooks)
        #expect(reports.withLock { $0 } == quiet + 1)
        watcher.rearm()
        #expect(reports.withLock { $0 } == quiet + 2)
    }

    /// Runs `body` while the loop's thread is held, reading nothing.
    func whileHeld(_ loop: EventLoop, _ body: () throws -> Void) rethrows {
        let (blocked, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        loop.execute {
            blocked.signal()
            release.wait()
        }
        blocked.wait()
        defer { release.signal() }
        try body()
    }

    /// Events past the kernel's queue limit are dropped, another connection's commit among
    /// them: the overflow is reported in its place.
    @Test(.enabled(if: (Self.maxQueuedEvents ?? .max) <= 1 << 17, "fs.inotify.max_queued_events is small enough to fill"))
    func aCommitLostToAFullEventQueueIsReported() throws {
        let limit = try #require(Self.maxQueuedEvents)
        let path = directory.file("tasks.sqlite")
        _ = try TaskStore(path: path)
        let other = try Database(path: path)
        try other.run("INSERT INTO meta (key, value) VALUES ('before', 1)")
        let loop = EventLoop.startThread(clock: clock)
        defer { loop.stop(exitCode: 0) }
        let reports = Mutex(0)
        let watcher = try #require(DatabaseWatcher(databasePath: path, loop: loop) { reports.withLock { $0 += 1 } })
        let quiet = settle(watcher, reports, on: loop)

        // The loop reads nothing while the folder's watch queues more events than the kernel keeps.
        try whileHeld(loop) {
            for index in 0...limit { close(open(directory.file("file \(index)"), O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)) }
            try other.run("INSERT INTO meta (key, value) VALUES ('lost', 1)")
        }
        loop.settle()
        #expect(reports.withLock { $0 } == quiet + 1)
    }

    /// A commit becomes visible a little after its writes to the WAL: after an event the watch
    /// looks again at each settle delay, and each look reports once the owner has looked since.
    @Test func theWatchLooksAgainAfterEachSettleDelay() throws {
        let path = directory.file("tasks.sqlite")
        _ = try TaskStore(path: path)
        let other = try Database(path: path)
        try other.run("INSERT INTO meta (key, value) VALUES ('before', 1)")
        let loop = EventLoop.startThread(clock: clock)
        defer { loop.stop(exitCode: 0) }
        let reports = Mutex(0)
        let watcher = try #require(DatabaseWatcher(databasePath: path, loop: loop) { reports.withLock { $0 += 1 } })
        var expected = settle(watcher, reports, on: loop)

        // The loop reads the commit's events together, once the commit is done.
        try whileHeld(loop) { try other.run("INSERT INTO meta (key, value) VALUES ('heard', 1)") }
        loop.settle()
        expected += 1
        #expect(reports.withLock { $0 } == expected, "the commit's events")
        watcher.rearm()
        var elapsed: UInt64 = 0
        for delay in DatabaseWatcher.settleDelays.map({ $0 * 1_000_000 }) {
            loop.advance(clock, by: delay - 1 - elapsed)
            #expect(reports.withLock { $0 } == expected, "a look before \(delay / 1_000_000) ms")
            loop.advance(clock, by: 1)
            expected += 1
            #expect(reports.withLock { $0 } == expected, "the look at \(delay / 1_000_000) ms")
            watcher.rearm()
            elapsed = delay
        }
        loop.advance(clock, by: Self.pastTheLooks)
        #expect(reports.withLock { $0 } == expected, "no look after the last delay")
    }

    static var maxQueuedEvents: Int? {
        (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// The store's own commits are written with the watch deaf: they wake nobody. It stays
    /// deaf until the loop pauses, and then asks for one look; after that look, nothing
    /// more is owed.
    @Test func theStoresOwnWritesAreNotReported() async throws {
        let loop = EventLoop.startThread(clock: clock)
        defer { loop.stop(exitCode: 0) }
        let store = try makeStore(directory, loop: loop)
        let reports = Mutex(0)
        #expect(try await store.watchExternalChanges { reports.withLock { $0 += 1 } })
        // The start counts as an event (a commit made while the watch was being set would
        // otherwise go unheard): it looks at once and after each settle delay. Let those pass.
        loop.settle()
        #expect(reports.withLock { $0 } >= 1, "a look when the watch starts")
        loop.advance(clock, by: Self.pastTheLooks)
        // Every report answered with a look, as the server does, until none is owed.
        var started = -1
        while started != reports.withLock({ $0 }) {
            started = reports.withLock { $0 }
            #expect(try await store.hasExternalChanges() == false)
            loop.settle()
        }

        try await write((0..<20).map { "task \($0)" }, in: store)
        loop.settle()
        #expect(reports.withLock { $0 } == started + 1, "a look, for what the deaf watch could not hear")
        #expect(try await store.hasExternalChanges() == false)
        loop.advance(clock, by: Self.pastTheLooks)
        #expect(reports.withLock { $0 } == started + 1)

        // …while another connection's commit is heard once the loop has paused.
        let other = try Database(path: directory.file("tasks.sqlite"))
        try other.run("INSERT INTO meta (key, value) VALUES ('other', 1)")
        loop.settle()
        #expect(reports.withLock { $0 } == started + 2)
        #expect(try await store.hasExternalChanges())
    }

    /// Between the store's write and the loop's pause, another process's commit is not
    /// heard; the look that the pause asks for finds it.
    @Test func aCommitMadeBeforeThePauseIsFoundByTheLook() async throws {
        let loop = EventLoop.startThread(clock: clock)
        defer { loop.stop(exitCode: 0) }
        let store = try makeStore(directory, loop: loop)
        let reports = Mutex(0)
        #expect(try await store.watchExternalChanges { reports.withLock { $0 += 1 } })
        let other = try Database(path: directory.file("tasks.sqlite"))
        try await write(["a task"], in: store) {
            try other.run("INSERT INTO meta (key, value) VALUES ('other', 1)")
        }
        loop.settle()
        #expect(reports.withLock { $0 } == 1)
        #expect(try await store.hasExternalChanges())
    }

    /// Another process that commits while the store waits for the write lock (the watch
    /// already deaf) is found by the store's look at data_version once it holds the lock,
    /// and reported by the write itself, before the loop can pause.
    @Test func aCommitMadeWhileTheWatchIsDeafIsReported() async throws {
        let loop = EventLoop.startThread(clock: clock)
        defer { loop.stop(exitCode: 0) }
        let store = try makeStore(directory, loop: loop)
        let reports = Mutex(0)
        #expect(try await store.watchExternalChanges { reports.withLock { $0 += 1 } })
        let path = directory.file("tasks.sqlite")
        let holdsLock = Mutex(false)
        let committedWhileDeaf = Mutex(false)
        let committer = Thread { [self] in
            guard let other = try? Database(path: path), (try? other.execute("BEGIN IMMEDIATE")) != nil,
                (try? other.run("INSERT INTO meta (key, value) VALUES ('other', 1)")) != nil
            else { return }
            holdsLock.withLock { $0 = true }
            // The store's create below has made the watch deaf, and waits for the lock.
            let deaf = waitUntil { (try? watchMasks(on: path + "-wal")) == [UInt32(IN_DELETE_SELF)] }
            committedWhileDeaf.withLock { $0 = deaf && (try? other.execute("COMMIT")) != nil }
        }
        committer.start()
        #expect(waitUntil { holdsLock.withLock { $0 } })
        try await write(["after the other's commit"], in: store) {
            #expect(reports.withLock { $0 } == 1)
        }
        #expect(committedWhileDeaf.withLock { $0 })
        #expect(try await store.hasExternalChanges())
    }

    /// The folder's watch is never changed: changing a folder's mask makes the kernel visit
    /// every file of the folder. The WAL's watch is made deaf by writes, and listens again
    /// when the loop pauses.
    @Test func theStoresWritesChangeOnlyTheWALsWatch() async throws {
        let store = try makeStore(directory)
        #expect(try await store.watchExternalChanges {})
        let wal = directory.file("tasks.sqlite-wal")
        #expect(try watchMasks(on: wal) == [UInt32(IN_MODIFY)])
        try await write(["a task"], in: store) {
            let (folder, walWhileWriting) = (try watchMasks(on: directory.path), try watchMasks(on: wal))
            #expect(folder == [UInt32(IN_CREATE | IN_MOVED_TO)])
            #expect(walWhileWriting == [UInt32(IN_DELETE_SELF)])
        }
        store.loop.settle()
        #expect(try watchMasks(on: wal) == [UInt32(IN_MODIFY)])
    }

    /// A WAL that did not exist when the watch began (the last connection removed it) is
    /// watched once it is made: later commits to it are heard, not only its making.
    @Test func aWALMadeAnewIsWatched() throws {
        let path = directory.file("tasks.sqlite")
        do { _ = try TaskStore(path: path) }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "closing the last connection removes the WAL")
        let loop = EventLoop.startThread(clock: clock)
        defer { loop.stop(exitCode: 0) }
        let reports = Mutex(0)
        let watcher = try #require(DatabaseWatcher(databasePath: path, loop: loop) { reports.withLock { $0 += 1 } })
        loop.settle()
        let other = try Database(path: path)
        try other.run("INSERT INTO meta (key, value) VALUES ('first', 1)")
        // Past a pause in reading, if the loop woke in the middle of the commit's events.
        loop.advance(clock, by: DatabaseWatcher.pauseNanoseconds)
        #expect(reports.withLock { $0 } == 1)
        #expect(try watchMasks(on: path + "-wal") == [UInt32(IN_MODIFY)])
        let quiet = settle(watcher, reports, on: loop)
        try other.run("INSERT INTO meta (key, value) VALUES ('second', 1)")
        loop.settle()
        #expect(reports.withLock { $0 } == quiet + 1)
    }

    /// A watch that cannot be made (here, no descriptor left for inotify) says so on stderr:
    /// the server then notifies only its own changes.
    @Test func aWatchThatCannotBeMadeIsLogged() async throws {
        let path = directory.file("tasks.sqlite")
        _ = try TaskStore(path: path)
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [path = path as String] in
            let loop = EventLoop.startThread()
            var limit = rlimit(rlim_cur: 64, rlim_max: 64)
            guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { exit(2) }
            while open("/dev/null", O_RDONLY | O_CLOEXEC) >= 0 {}
            guard DatabaseWatcher(databasePath: path, loop: loop, onChange: {}) == nil else { exit(3) }
        }
        let errors = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(errors.contains("will not be notified: inotify_init1 failed: Too many open files"), "stderr: \(errors)")
    }

    /// The loop closes the inotify descriptor when the watcher goes away: once the watchers
    /// are gone, nothing in this process watches their folder.
    @Test func itsDescriptorIsClosedWithIt() throws {
        let path = directory.file("tasks.sqlite")
        _ = try TaskStore(path: path)
        let loop = EventLoop.startThread(clock: clock)
        defer { loop.stop(exitCode: 0) }
        var watchers: [DatabaseWatcher] = []
        for _ in 0..<5 { watchers.append(try #require(DatabaseWatcher(databasePath: path, loop: loop) {})) }
        #expect(try watches(on: directory.path) == 5)
        watchers.removeAll()
        loop.settle()
        #expect(try watches(on: directory.path) == 0)
    }
}
