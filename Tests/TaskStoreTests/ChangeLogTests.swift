import SQLite
import TaskModel
import TaskStore
import TestSupport
import Testing

/// The change log's SQLite side: pruning by the stored times, and the triggers that log
/// another writer's commits (the store contract's part is in StoreContractTests).
@Suite struct ChangeLogTests {
    let directory = TemporaryDirectory()

    /// What goes is the run of changes before the first recent one: a change stamped before
    /// the cutoff after it (the clock stepped back) stays, as do all that follow.
    @Test func pruningStopsAtTheFirstRecentChange() async throws {
        let store = try makeStore(directory)
        for index in 0..<5 { try await store.add("t\(index)") }
        let database = try Database(path: directory.file("tasks.sqlite"))
        try database.run("UPDATE change SET at = CASE seq WHEN 3 THEN 2000 ELSE 1000 END")
        #expect(try await store.pruneHistory(before: 1500) == 2)
        #expect(try database.integer("SELECT min(seq) FROM change") == 3)
        #expect(try await store.changes(since: 2).changes.map(\.seq) == [3, 4, 5])
    }

    @Test func anotherConnectionsCommitsAreDetectedAndLogged() async throws {
        let path = directory.file("shared.sqlite")
        let mine = try TaskStore(path: path)
        let theirs = try TaskStore(path: path)
        #expect(try await mine.hasExternalChanges() == true)  // the first call has nothing to compare with
        #expect(try await mine.hasExternalChanges() == false)
        _ = try await mine.create(TaskDraft(title: "mine"))
        #expect(try await mine.hasExternalChanges() == false, "own commits do not count")
        _ = try await theirs.create(TaskDraft(title: "theirs"))
        #expect(try await mine.hasExternalChanges() == true)
        #expect(try await mine.changes(since: 1).changes.map { $0.task?.title } == ["theirs"])

        // A writer that is not Taskline at all is logged by the triggers.
        let raw = try Database(path: path)
        try raw.execute("UPDATE task SET title = 'raw', version = version + 1 WHERE title = 'mine'")
        let logged = try await mine.changes(since: 2).changes
        #expect(logged.map(\.kind) == [.updated])
        #expect(logged.first?.task?.title == "raw")
    }
}
