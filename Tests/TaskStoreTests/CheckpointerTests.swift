import Foundation
import SQLite
@testable import TaskStore
import TestSupport
import Testing

/// Background checkpoints (`StoreOptions.backgroundCheckpoints`): the WAL reaches the
/// database file while the store goes on, and nothing is lost.
@Suite struct CheckpointerTests {
    let directory = TemporaryDirectory()

    func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    @Test func theWALReachesTheFileOffTheCommitsAndNothingIsLost() async throws {
        let path = directory.file("tasks.sqlite")
        let store = try makeStore(directory, options: StoreOptions(durability: .normal, backgroundCheckpoints: true))
        let frame = StoreFile.newFilePageSize + 24  // a page and its frame header
        let before = size(path)
        // Past the checkpointer's threshold, well short of the frames at which a commit
        // checkpoints by itself: what reaches the file, the thread copied.
        var created = 0
        while size(path + "-wal") < (Checkpointer.frames + 200) * frame {
            _ = try await store.apply((0..<100).map { .create(TaskDraft(title: "task \(created + $0)")) }, atomic: true)
            created += 100
        }
        let deadline = Date().addingTimeInterval(10)
        while size(path) == before, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(size(path) > before)
        // A writer that never pauses: the WAL starts over only once a write finds all of it
        // copied, which the commit past `inlineFrames` sees to. These write twice as many
        // frames as that.
        for round in 0..<400 {
            _ = try await store.apply((0..<100).map { .create(TaskDraft(title: "more \(round) \($0)")) }, atomic: true)
        }
        #expect(size(path + "-wal") < (Checkpointer.inlineFrames + Checkpointer.frames) * frame)
        await store.close()
        let database = try Database(path: path)
        #expect(try database.integer("SELECT count(*) FROM task") == Int64(created + 40_000))
        #expect(try database.cachedStatement("PRAGMA integrity_check").firstRow { $0.text(0) } == "ok")
    }
}
