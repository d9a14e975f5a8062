import Foundation
import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// Background checkpoints (`StoreOptions.backgroundCheckpoints`): the WAL reaches the
/// database file while the store goes on, and nothing is lost.
@Suite struct CheckpointerTests {
    let directory = TemporaryDirectory()

    func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// The frames the WAL of the file at `path` holds and how many of them are in the file,
    /// from the header of its WAL index (SQLite's walformat.html: `mxFrame` at byte 16 of
    /// the `-shm` file, `nBackfill` at byte 96, in the machine's byte order).
    func walIndex(_ path: String) -> (frames: Int, copied: Int) {
        guard let header = FileManager.default.contents(atPath: path + "-shm"), header.count >= 100 else { return (0, 0) }
        func word(_ offset: Int) -> Int { Int(header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }) }
        return (word(16), word(96))
    }

    /// The WAL index once a checkpoint has copied every frame, or as it is after ten seconds.
    func copiedWhole(_ path: String) async throws -> (frames: Int, copied: Int) {
        let deadline = Date().addingTimeInterval(10)
        var wal = walIndex(path)
        while wal.frames == 0 || wal.copied < wal.frames, Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
            wal = walIndex(path)
        }
        return wal
    }

    @Test func theWALReachesTheFileOffTheCommitsAndNothingIsLost() async throws {
        let path = directory.file("tasks.sqlite")
        let store = try makeStore(directory, options: StoreOptions(durability: .normal, backgroundCheckpoints: true))
        let before = size(path)
        // Large commits (1,000 creates with a page of notes each, some 3,200 frames) short of
        // the frames at which a commit checkpoints by itself: what reaches the file, the
        // thread copied, asked by the commit that takes the WAL past `frames` or by the
        // store once it is idle.
        let notes = String(repeating: "n", count: 2000)
        var created = 0
        for apply in 0..<3 {
            let wal = walIndex(path).frames
            _ = try await store.apply(
                (0..<1000).map { .create(TaskDraft(id: "t\(created + $0)", title: "task \(created + $0)", notes: notes)) },
                atomic: true)
            created += 1000
            // Later applies may start a WAL the thread copied over.
            if apply == 0 { try #require(walIndex(path).frames - wal >= Checkpointer.smallCommitPages) }
        }
        let deadline = Date().addingTimeInterval(10)
        while size(path) == before, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(size(path) > before)
        // A writer of small commits that never pauses: each round renames 100 tasks spread
        // over the file, writing their leaves of the table and of the title index and their
        // snapshots, some 600 frames. A commit that takes the WAL past `frames` copies it
        // whole (or the thread does, when it is copying already), and the next write starts
        // it over.
        _ = try await copiedWhole(path)
        let stride = created / 100
        let rounds = 3 * Checkpointer.frames / 100
        var largest = 0
        var startedOver = 0
        var wal = walIndex(path).frames
        for round in 0..<rounds {
            let renames = (0..<100).map { index in
                TaskOperation.update(
                    id: "t\(index * stride + round % stride)", changes: TaskChanges(title: "renamed \(round) \(index)"),
                    ifVersion: nil)
            }
            _ = try await store.apply(renames, atomic: true)
            let after = walIndex(path).frames
            if after < wal { startedOver += 1 }
            wal = after
            largest = max(largest, after)
        }
        #expect(startedOver >= rounds * 600 / Checkpointer.frames / 2, "the WAL started over \(startedOver) times")
        #expect(largest < Checkpointer.maximumFrames)
        await store.close()
        let database = try Database(path: path)
        #expect(try database.integer("SELECT count(*) FROM task") == Int64(created))
        #expect(try database.integer("SELECT count(*) FROM task WHERE title LIKE 'renamed \(rounds - 1) %'") == 100)
        #expect(try database.cachedStatement("PRAGMA integrity_check").firstRow { $0.text(0) } == "ok")
    }

    /// Commits ask for a checkpoint every `Checkpointer.frames` frames; what a writer that
    /// stops short of that leaves is copied once the store has had nothing to do for a
    /// while (without the store's idle request it stayed in the WAL).
    @Test func whatAWriterThatStopsLeftIsCopiedOnceTheStoreIsIdle() async throws {
        let path = directory.file("tasks.sqlite")
        let store = try makeStore(directory, options: StoreOptions(durability: .normal, backgroundCheckpoints: true))
        _ = try await store.apply((0..<200).map { .create(TaskDraft(title: "task \($0)")) }, atomic: true)
        let written = walIndex(path).frames
        try #require(written > 0 && written < Checkpointer.frames)
        let copied = try await copiedWhole(path)
        #expect(copied.frames == written && copied.copied == written)
        await store.close()
    }

    /// A commit of a few frames, a create's or an edit's, checkpoints itself once the WAL
    /// holds `frames`; large ones, reversals back to back, leave the copies to the thread
    /// until the WAL holds `maximumFrames`, also when one starts the WAL over with more
    /// frames than the last left.
    @Test func largeCommitsLeaveTheCopyToTheThreadUpToTheMaximum() throws {
        let path = directory.file("tasks.sqlite")
        let database = try Database(path: path)
        try database.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (x)")
        let checkpointer = try Checkpointer(path: path)
        defer { checkpointer.stop() }
        var wal = 0
        while wal + 6000 < Checkpointer.maximumFrames {
            wal += 6000
            #expect(!checkpointer.committed(frames: wal, written: 6000), "\(wal) frames")
        }
        #expect(checkpointer.committed(frames: wal + 6000, written: 6000))
        // The WAL started over.
        wal = 0
        while wal + 100 < Checkpointer.frames {
            wal += 100
            #expect(!checkpointer.committed(frames: wal, written: 100), "\(wal) frames")
        }
        #expect(checkpointer.committed(frames: wal + 100, written: 100))
        // A large commit on a WAL past `frames` by small ones.
        #expect(!checkpointer.committed(frames: wal + 100 + 2000, written: 2000))
        // Reversals back to back, the second starting over a WAL the thread copied whole.
        #expect(!checkpointer.committed(frames: 6000, written: 6000))
        #expect(!checkpointer.committed(frames: 6300, written: 6300))
    }

    /// A commit whose frames are all the WAL holds started it over: its requests count from
    /// nothing, so a large one asks for a checkpoint once it alone fills `frames`, however
    /// large the WAL was at the last request. (The idle store would ask too, later: this
    /// asks the checkpointer directly, with no store.)
    @Test func aCommitThatStartsTheWALOverAsksFromNothing() throws {
        let path = directory.file("tasks.sqlite")
        let database = try Database(path: path)
        try database.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (x)")
        let checkpointer = try Checkpointer(path: path)
        defer { checkpointer.stop() }
        #expect(!checkpointer.committed(frames: 6000, written: 6000))  // asks, at 6,000
        checkpointer.finish()
        try database.run("INSERT INTO t VALUES (1)")
        let written = walIndex(path)
        try #require(written.copied < written.frames)
        // 5,000 frames, fewer than 6,000 + `frames`, but all of them this commit's.
        #expect(!checkpointer.committed(frames: 5000, written: 5000))
        checkpointer.finish()
        let after = walIndex(path)
        #expect(after.frames == written.frames && after.copied == after.frames, "the commit did not ask: \(after)")
    }

    /// A write that begins on a WAL copied whole starts it over; when it fills more frames
    /// than the commit before it, the WAL is larger than when a checkpoint was last asked
    /// for, by less than `Checkpointer.frames`. It is copied all the same, without another
    /// write to ask.
    @Test func aWriteThatStartsTheWALOverIsCopiedWithoutAnother() async throws {
        let path = directory.file("tasks.sqlite")
        let store = try makeStore(directory, options: StoreOptions(durability: .normal, backgroundCheckpoints: true))
        let firstTasks = 16_000  // more than `Checkpointer.frames` frames
        _ = try await store.apply((0..<firstTasks).map { .create(TaskDraft(title: "first \($0)")) }, atomic: true)
        let first = try await copiedWhole(path)
        #expect(first.frames >= Checkpointer.frames && first.copied == first.frames)
        let secondTasks = firstTasks * (first.frames + Checkpointer.frames / 2) / first.frames
        _ = try await store.apply((0..<secondTasks).map { .create(TaskDraft(title: "second \($0)")) }, atomic: true)
        let second = walIndex(path).frames
        try #require(second > first.frames && second < first.frames + Checkpointer.frames)
        let copied = try await copiedWhole(path)
        #expect(copied.frames == second && copied.copied == second)
        await store.close()
    }
}
