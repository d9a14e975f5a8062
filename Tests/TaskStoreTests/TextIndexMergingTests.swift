import EventLoop
import Foundation
import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// The trigram index's segments are merged by the store when its loop is idle, sixteen to a
/// level, not by the writes (schema 39: FTS5's `automerge` 0, `usermerge` 16); a level is
/// merged whole in one write only past 64 segments (`crisismerge`, schema 38). A new file and
/// an upgraded one hold the settings;
/// segments the writes leave, the store's or another writer's, are merged until none are
/// left to merge, and the index stays equal to the tasks' texts throughout. Only a store
/// asked to (`StoreOptions.idleTextIndexMerging`, as the server is) merges when idle.
@Suite struct TextIndexMergingTests {
    let directory = TemporaryDirectory()

    static let expected: [String: Int64] = ["automerge": 0, "crisismerge": 64, "usermerge": 16]
    static let idleMerging = StoreOptions(idleTextIndexMerging: true)

    func settings(of database: Database) throws -> [String: Int64] {
        var settings: [String: Int64] = [:]
        try database.cachedStatement("SELECT k, v FROM task_text_config WHERE k IN ('automerge', 'crisismerge', 'usermerge')").forEachRow { row in
            settings[row.text(0)] = row.int64(1)
        }
        return settings
    }

    /// Whether a merge step would find segments to merge, asked in a transaction that is
    /// rolled back.
    func hasSegmentsToMerge(_ database: Database) throws -> Bool {
        try database.execute("BEGIN IMMEDIATE")
        defer { try? database.execute("ROLLBACK") }
        return try TextIndex.mergeStep(in: database)
    }

    /// Polls until a merge step would find nothing, for up to `seconds`; false if it never did.
    func mergedWithin(_ seconds: Double, _ database: Database) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try !hasSegmentsToMerge(database) { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// `count` batches of four tasks written straight to the file, each batch's texts indexed
    /// together, as another writer would: each batch is a segment of the index.
    func writeBatches(_ range: Range<Int>, to database: Database, titles: inout [String: String]) throws {
        for batch in range {
            try database.writeTransaction {
                for n in 0..<4 {
                    let id = "raw-\(titles.count)"
                    let title = "batch \(batch) task \(n)"
                    titles[id] = title
                    try database.run(
                        """
                        INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, created_at, updated_at, version)
                        VALUES (?1, ?2, ?2, '', '', 0, 0, ?3, ?3, 1)
                        """, [.text(id), .text(title), .integer(Int64(titles.count))])
                }
                try TextIndex.indexPending(in: database)
            }
        }
    }

    /// A new store's file, then 40 batches of another connection's (returned, with the
    /// titles it wrote by id), each a segment that no write merged.
    func fileOfSegments(at path: String) async throws -> (Database, [String: String]) {
        try await TaskStore(path: path).close()
        let other = try Database(path: path)
        other.setBusyTimeout(milliseconds: 5000)
        var titles: [String: String] = [:]
        try writeBatches(0..<40, to: other, titles: &titles)
        return (other, titles)
    }

    @Test func aNewFileLeavesMergingToTheIdleStore() async throws {
        let path = directory.file("new.sqlite")
        let store = try TaskStore(path: path)
        #expect(try settings(of: Database(path: path)) == Self.expected)
        await store.close()
    }

    /// Writes that merge nothing leave segments to merge; a store that then sits idle
    /// merges them all, and the index is still its tasks' texts.
    @Test func anIdleStoreMergesWhatTheWritesLeft() async throws {
        let path = directory.file("idle.sqlite")
        var (other, titles) = try await fileOfSegments(at: path)
        #expect(try hasSegmentsToMerge(other), "40 segments written, none merged by the writes")

        let store = try TaskStore(path: path, options: Self.idleMerging)
        for batch in 40..<60 {
            let operations = (0..<(TextIndex.pendingLimit + 1)).map { n in
                TaskOperation.create(TaskDraft(title: "batch \(batch) task \(n)"))
            }
            for case .success(let outcome) in try await store.apply(operations, atomic: true) {
                if case .task(let task) = outcome.result { titles[task.id] = task.title }
            }
        }
        #expect(try await mergedWithin(20, other), "the idle store left segments to merge")
        try other.run("INSERT INTO task_text (task_text, rank) VALUES ('integrity-check', 1)")
        try await expectTextFilter(store, findsIn: titles, ["batch 7 ", "h 59 t", "task 12", "7 task 1"], "once merged")
        await store.close()
    }

    /// A store not asked to merge when idle (as the command line's) leaves the segments
    /// however long it idles; its steps, called one after another, merge them all.
    @Test func aStoreMergesWhenIdleOnlyIfAsked() async throws {
        let path = directory.file("asked.sqlite")
        let (other, titles) = try await fileOfSegments(at: path)
        let clock = ManualLoopClock()
        let loop = EventLoop.startThread(clock: clock)
        defer { loop.stop(exitCode: 0) }
        let store = try TaskStore(path: path, loop: loop)
        _ = try await store.fetch(TaskQuery(limit: 10))
        loop.advance(clock, by: 3_600_000_000_000)
        #expect(try hasSegmentsToMerge(other), "a store not asked to merge did so when idle")
        var steps = 0
        while try await store.mergeTextIndexStep() { steps += 1 }
        #expect(steps > 0)
        #expect(try !hasSegmentsToMerge(other))
        try other.run("INSERT INTO task_text (task_text, rank) VALUES ('integrity-check', 1)")
        try await expectTextFilter(store, findsIn: titles, ["batch 7", "task 3"], "once merged")
        await store.close()
    }

    /// While another connection holds the write lock, the idle store's steps fail at once
    /// rather than wait for it, and the store answers; once the lock goes, it merges.
    @Test func anIdleStoreDoesNotWaitForAnotherWriter() async throws {
        let path = directory.file("busy.sqlite")
        let (other, titles) = try await fileOfSegments(at: path)
        try other.execute("BEGIN IMMEDIATE")
        // A busy timeout far longer than the test: a step that waited for the lock would
        // hold the loop, and the reads after it, that long (ten minutes against a bound of
        // five, which only a machine stalled for minutes could reach without waiting).
        let clock = ManualLoopClock()
        let loop = EventLoop.startThread(clock: clock)
        defer { loop.stop(exitCode: 0) }
        let store = try TaskStore(path: path, options: StoreOptions(busyTimeoutMilliseconds: 600_000, idleTextIndexMerging: true), loop: loop)
        // Idle past the quiet time, over and over: each time a step is tried, and fails.
        let started = Date()
        for _ in 0..<10 {
            _ = try await store.fetch(TaskQuery(limit: 10))
            loop.advance(clock, by: 1_000_000_000)
        }
        #expect(Date().timeIntervalSince(started) < 300, "the store waited for the other connection's lock")
        try other.execute("ROLLBACK")
        #expect(try hasSegmentsToMerge(other), "the store merged while the other connection held the lock")
        // Its steps, tried again once the retry's delay is up, merge everything.
        loop.advance(clock, by: 1_000_000_000)
        #expect(try await mergedWithin(20, other), "the store did not merge once the lock was gone")
        try await expectTextFilter(store, findsIn: titles, ["batch 7", "task 3"], "once merged")
        await store.close()
    }

    @Test func anUpgradedFileHoldsTheSettingsAndFindsEveryTask() async throws {
        let path = directory.file("v37.sqlite")
        let old = try Database(path: path)
        try Migrator(Array(Schema.migrator.migrations.prefix(37))).migrate(old)
        #expect(try settings(of: old) == [:])
        var titles: [String: String] = [:]
        try writeBatches(0..<40, to: old, titles: &titles)
        old.close()

        let store = try TaskStore(path: path, options: Self.idleMerging)
        let upgraded = try Database(path: path)
        upgraded.setBusyTimeout(milliseconds: 5000)
        #expect(try settings(of: upgraded) == Self.expected)
        for batch in 40..<80 {
            for n in 0..<4 {
                let title = "batch \(batch) task \(n)"
                titles[try await store.create(TaskDraft(title: title)).value.id] = title
            }
            try upgraded.writeTransaction { try TextIndex.indexPending(in: upgraded) }
        }
        // The other connection's commits, seen as the server's watcher sees them, ask for merging.
        #expect(try await store.hasExternalChanges())
        #expect(try await mergedWithin(20, upgraded))
        try upgraded.run("INSERT INTO task_text (task_text, rank) VALUES ('integrity-check', 1)")
        try await expectTextFilter(store, findsIn: titles, ["batch 7", "task 3", "h 79 t", "7"], "after 80 batches")
        await store.close()
    }
}
