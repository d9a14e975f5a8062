import Foundation
import TaskStore
import TestSupport
import Testing

@Suite struct CheckpointTests {
    let directory = TemporaryDirectory()

    func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? -1
    }

    /// In WAL mode only a checkpoint writes to the database file, so its growing shows that
    /// the store's checkpoint thread copied the commits, none of which checkpointed itself.
    @Test func aThreadOfTheStoresCopiesTheWALIntoTheDatabase() async throws {
        let path = directory.file("tasks.sqlite")
        let store = try TaskStore(path: path, options: StoreOptions(durability: .normal, checkpointPages: 64))
        let before = size(path)
        // Past 64 pages, short of the 640 at which a commit would checkpoint by itself.
        for index in 0..<10 { _ = try await store.create(TaskDraft(title: "task \(index)")) }
        #expect(size(path + "-wal") < 640 * 4096)
        let deadline = Date().addingTimeInterval(10)
        while size(path) == before && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(size(path) > before)
    }

    /// The WAL starts over only when a commit finds all of it copied. Commits that follow each
    /// other closely never leave the thread that moment; the committing connection copies
    /// the last stretch itself, so the WAL starts over long before the 10,000 pages at which
    /// a commit would copy all of it (the thread's syncs take milliseconds, so the cycle
    /// needs room: at 64 pages it would be all syncs).
    @Test func theWALStartsOverWhileCommitsFollowEachOtherClosely() async throws {
        let path = directory.file("tasks.sqlite")
        let store = try TaskStore(path: path, options: StoreOptions(durability: .normal, checkpointPages: 1000))
        // Some 15,000 pages. The WAL file keeps the largest extent it reached: about 3,000
        // pages here, 10,000 when commits wait for the limit.
        for index in 0..<1000 { _ = try await store.create(TaskDraft(title: "task \(index)")) }
        #expect(size(path + "-wal") < 8000 * 4120)
    }

    /// Closing stops the thread and closes its connection first: the store's connection is
    /// then the last, and SQLite removes the WAL when the last one closes.
    @Test func closingLeavesNoWAL() async throws {
        let path = directory.file("tasks.sqlite")
        let store = try TaskStore(path: path, options: StoreOptions(durability: .normal, checkpointPages: 64))
        for index in 0..<10 { _ = try await store.create(TaskDraft(title: "task \(index)")) }
        await store.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(size(path) > 0)
    }
}
