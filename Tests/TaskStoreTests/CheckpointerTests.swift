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
            _ = try await store.apply((0..<100).map { .create(TaskDraft(id: "t\(created + $0)", title: "task \(created + $0)")) },
                                      atomic: true)
            created += 100
        }
        let deadline = Date().addingTimeInterval(10)
        while size(path) == before, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(size(path) > before)
        // A writer that never pauses: the WAL starts over only once a write finds all of it
        // copied, which the commit past `inlineFrames` sees to. Each round renames 100 tasks
        // spread over the file, writing their leaves of the table and of the title index
        // and their snapshots, over 150 frames: the rounds write twice `inlineFrames` frames
        // and more.
        let stride = created / 100
        let rounds = 2 * Checkpointer.inlineFrames / 100
        for round in 0..<rounds {
            let renames = (0..<100).map { index in
                TaskOperation.update(id: "t\(index * stride + round % stride)", changes: TaskChanges(title: "renamed \(round) \(index)"),
                                     ifVersion: nil)
            }
            _ = try await store.apply(renames, atomic: true)
        }
        #expect(size(path + "-wal") < (Checkpointer.inlineFrames + Checkpointer.frames) * frame)
        await store.close()
        let database = try Database(path: path)
        #expect(try database.integer("SELECT count(*) FROM task") == Int64(created))
        #expect(try database.integer("SELECT count(*) FROM task WHERE title LIKE 'renamed \(rounds - 1) %'") == 100)
        #expect(try database.cachedStatement("PRAGMA integrity_check").firstRow { $0.text(0) } == "ok")
    }
}
