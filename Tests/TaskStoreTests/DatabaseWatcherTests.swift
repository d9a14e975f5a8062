import Foundation
import SQLite
@testable import TaskStore
import Synchronization
import TestSupport
import Testing

@Suite struct DatabaseWatcherTests {
    let directory = TemporaryDirectory()

    /// Threads of this process, from /proc.
    func threadCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
    }

    func waitUntil(_ condition: () throws -> Bool) throws -> Bool {
        for _ in 0..<200 {
            if try condition() { return true }
            usleep(10_000)
        }
        return try condition()
    }

    @Test func anotherConnectionsCommitIsReportedOncePerLook() throws {
        let path = directory.file("tasks.sqlite")
        _ = try TaskStore(path: path)
        let reports = Mutex(0)
        let watcher = try #require(DatabaseWatcher(databasePath: path) { reports.withLock { $0 += 1 } })
        let other = try Database(path: path)
        for index in 0..<20 {
            try other.run("INSERT INTO meta (key, value) VALUES (?, 1)", [.text("key \(index)")])
        }
        #expect(try waitUntil { reports.withLock { $0 } >= 1 })
        // Until the owner looks (rearm), a burst is one report; the look gets the one owed.
        usleep(100_000)
        #expect(reports.withLock { $0 } == 1)
        watcher.rearm()
        #expect(reports.withLock { $0 } == 2)
    }

    @Test func itsThreadEndsWithIt() throws {
        let path = directory.file("tasks.sqlite")
        _ = try TaskStore(path: path)
        let before = try threadCount()
        var watchers: [DatabaseWatcher] = []
        for _ in 0..<20 { watchers.append(try #require(DatabaseWatcher(databasePath: path) {})) }
        #expect(try threadCount() >= before + 20)
        watchers.removeAll()
        let ended = try waitUntil { try threadCount() <= before }
        #expect(ended, "threads: \((try? threadCount()) ?? -1), before: \(before)")
    }
}
