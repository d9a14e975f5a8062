import SQLite
@testable import TaskStore
import TestSupport
import Testing

/// What the schema keeps beside the tasks so that reads stay cheap (each task's tags in its
/// row, the open and done totals) stays in step with the tasks, whoever writes the file.
@Suite struct DerivedDataTests {
    let directory = TemporaryDirectory()

    func totals(_ store: TaskStore) async throws -> [Int?] {
        var totals: [Int?] = []
        for done in [nil, false, true] as [Bool?] {
            totals.append(try await store.fetch(TaskQuery(filter: TaskFilter(done: done), limit: 1, includeTotal: true)).total)
        }
        return totals
    }

    @Test func tagsAreReadInCodePointOrderWhoeverWritesThem() async throws {
        let store = try makeStore(directory)
        try await store.add("one", tags: ["b", "é", "Z", "a"], id: "one")
        #expect(try await store.get(id: "one").tags == ["Z", "a", "b", "é"])
        _ = try await store.update(id: "one", changes: TaskChanges(tags: ["y", "x"]))
        #expect(try await store.get(id: "one").tags == ["x", "y"])

        // Another writer of the file (the sqlite3 shell, a script) touches only task_tag.
        let other = try Database(path: directory.file("tasks.sqlite"))
        try other.run("INSERT INTO task_tag (tag, task_pk) SELECT 'w', pk FROM task WHERE id = 'one'")
        #expect(try await store.get(id: "one").tags == ["w", "x", "y"])
        try other.run("DELETE FROM task_tag WHERE tag IN ('w', 'y')")
        #expect(try await store.get(id: "one").tags == ["x"])
        try other.run("DELETE FROM task_tag")
        #expect(try await store.get(id: "one").tags == [])
        // Keeping the copy in step is not a change of its own: only the update was logged.
        #expect(try await store.changes(since: 0).changes.map(\.kind) == [.created, .updated])
        #expect(try TaskStore.check(path: directory.file("tasks.sqlite")).isSound)
    }

    @Test func totalsFollowEveryWrite() async throws {
        let store = try makeStore(directory)
        #expect(try await totals(store) == [0, 0, 0])
        try await store.add("a", id: "a")
        try await store.add("b", done: true, tags: ["x"], id: "b")
        try await store.add("c", id: "c")
        #expect(try await totals(store) == [3, 2, 1])
        _ = try await store.update(id: "a", changes: TaskChanges(done: true))
        _ = try await store.update(id: "b", changes: TaskChanges(title: "still done"))
        #expect(try await totals(store) == [3, 1, 2])
        _ = try await store.delete(id: "b")
        #expect(try await totals(store) == [2, 1, 1])
        // A failed atomic batch leaves them as they were.
        await #expect(throws: TaskStoreError.self) {
            try await store.apply([.delete(id: "a", ifVersion: nil), .delete(id: "nobody", ifVersion: nil)], atomic: true)
        }
        #expect(try await totals(store) == [2, 1, 1])

        let other = try Database(path: directory.file("tasks.sqlite"))
        try other.run("UPDATE task SET done = 1, completed_at = updated_at WHERE id = 'c'")
        try other.run("DELETE FROM task WHERE id = 'a'")
        #expect(try await totals(store) == [1, 0, 1])
        // Filters beyond `done` are counted from the tasks.
        try await store.add("d", done: true, tags: ["x"], id: "d")
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(done: true, tags: ["x"]), includeTotal: true)).total == 1)
        let report = try TaskStore.check(path: directory.file("tasks.sqlite"))
        #expect(report.ruleProblems.isEmpty && report.isSound, "\(report.ruleProblems)")
    }

    @Test func checkFindsCopiesOutOfStep() async throws {
        let store = try makeStore(directory)
        try await store.add("one", tags: ["a"], id: "one")
        let other = try Database(path: directory.file("tasks.sqlite"))
        try other.run("UPDATE task SET tags = 'b' WHERE id = 'one'")
        try other.run("UPDATE task_total SET count = 7 WHERE done = 1")
        let report = try TaskStore.check(path: directory.file("tasks.sqlite"))
        #expect(report.ruleProblems.sorted() == [
            "task one: its tags column does not match task_tag",
            "task_total says 1 open and 7 done; the tasks are 1 and 0",
        ])
    }

    /// A database from before the copies (schema 7) gets them filled from what it holds.
    @Test func migrationFillsTheCopiesFromExistingTasks() async throws {
        let path = directory.file("v7.sqlite")
        do {
            let database = try Database(path: path)
            try Migrator(Array(Schema.migrator.migrations.prefix(7))).migrate(database)
            for (pk, done) in [(1, 0), (2, 1), (3, 1)] {
                try database.run("""
                    INSERT INTO task (pk, id, title, title_fold, notes, notes_fold, done, priority, created_at, updated_at, version)
                    VALUES (?, ?, 'old', 'old', '', '', ?, 0, ?, ?, 1)
                    """, [.integer(Int64(pk)), .text("t\(pk)"), .integer(Int64(done)), .integer(Int64(pk)), .integer(Int64(pk))])
            }
            try database.run("INSERT INTO task_tag (tag, task_pk) VALUES ('b', 1), ('a', 1), ('c', 3)")
        }
        let store = try TaskStore(path: path)
        #expect(try await store.fetch(TaskQuery()).tasks.map(\.tags) == [["a", "b"], [], ["c"]])
        #expect(try await totals(store) == [3, 1, 2])
    }
}
