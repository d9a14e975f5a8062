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
        // …and leaves out the sort key the taggings carry: a trigger adds it.
        #expect(try other.integer("SELECT count(*) FROM task_tag WHERE tag = 'w' AND task_id = 'one' AND created_at > 0") == 1)
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["w"]))).tasks.map(\.id) == ["one"])
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

    /// `includeTotal` with only a project, or only tags, is read from `project_total` and
    /// task_tag's key, not counted over the tasks: the counts follow every write.
    @Test func projectAndTagCountsFollowEveryWrite() async throws {
        let store = try makeStore(directory)
        func total(_ filter: TaskFilter) async throws -> Int? {
            try await store.fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true)).total
        }
        func expectTotals(_ home: Int, _ garage: Int, _ x: Int, _ xy: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let found = [try await total(TaskFilter(project: "Home")), try await total(TaskFilter(project: "Home.Garage")),
                         try await total(TaskFilter(tags: ["x"])), try await total(TaskFilter(tags: ["x", "y"])),
                         try await total(TaskFilter(tags: ["y", "x"]))]
            #expect(found == [home, garage, x, xy, xy], sourceLocation: sourceLocation)
        }
        try await expectTotals(0, 0, 0, 0)
        _ = try await store.apply([
            .create(TaskDraft(id: "a", title: "a", tags: ["x"], project: "Home")),
            .create(TaskDraft(id: "b", title: "b", tags: ["x", "y"], project: "Home.Garage")),
            .create(TaskDraft(id: "c", title: "c", tags: ["y"], project: "Home-x")),
            .create(TaskDraft(id: "d", title: "d", tags: ["x", "y", "z"], project: "Homework")),
        ], atomic: true)
        try await expectTotals(2, 1, 3, 2)
        _ = try await store.update(id: "c", changes: TaskChanges(tags: ["x", "y"], project: .some("Home.Attic")))
        _ = try await store.update(id: "a", changes: TaskChanges(project: .some(nil)))
        try await expectTotals(2, 1, 4, 3)
        _ = try await store.delete(id: "b")
        try await expectTotals(1, 0, 3, 2)
        // Another writer of the file.
        let other = try Database(path: directory.file("tasks.sqlite"))
        try other.run("UPDATE task SET project = 'Home.Garage' WHERE id IN ('a', 'd')")
        try other.run("DELETE FROM task_tag WHERE tag = 'y' AND task_pk = (SELECT pk FROM task WHERE id = 'd')")
        try await expectTotals(3, 2, 3, 1)
        #expect(try other.integer("SELECT count(*) FROM project_total WHERE project = 'Homework'") == 0)
        let report = try TaskStore.check(path: directory.file("tasks.sqlite"))
        #expect(report.isSound, "\(report.ruleProblems)")
        try other.run("UPDATE project_total SET count = 5 WHERE project = 'Home.Garage'")
        try other.run("UPDATE tag_pair_total SET count = 7 WHERE tag = 'x' AND other = 'y'")
        let problems = try TaskStore.check(path: directory.file("tasks.sqlite")).ruleProblems
        #expect(problems == ["project_total's count of project Home.Garage does not match its tasks",
                             "tag_pair_total's count of the tasks tagged x and y does not match their tags"], "\(problems)")
    }

    /// `includeTotal` with two tags alone reads `tag_pair_total`, which every way of
    /// tagging and untagging keeps: creates, updates, deletes, undo and redo, import and
    /// another writer of the file.
    @Test func tagPairCountsFollowEveryWrite() async throws {
        let store = try makeStore(directory)
        let other = try Database(path: directory.file("tasks.sqlite"))
        func pairs() throws -> [String] {
            var rows: [String] = []
            try other.cachedStatement("SELECT tag, other, count FROM tag_pair_total ORDER BY 1, 2").forEachRow {
                rows.append("\($0.text(0)) \($0.text(1)) \($0.int(2))")
            }
            return rows
        }
        func expectCounted(_ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
            #expect(try pairs() == expected, sourceLocation: sourceLocation)
            for pair in expected {
                let words = pair.split(separator: " ").map(String.init)
                for tags in [[words[0], words[1]], [words[1], words[0]], [words[1], words[0], words[1]]] {
                    let total = try await store.fetch(TaskQuery(filter: TaskFilter(tags: tags), limit: 1, includeTotal: true)).total
                    let listed = try await store.fetch(TaskQuery(filter: TaskFilter(tags: tags), limit: TaskQuery.maxLimit)).tasks.count
                    #expect(total == Int(words[2]) && listed == total, "\(tags)", sourceLocation: sourceLocation)
                }
            }
            let report = try TaskStore.check(path: directory.file("tasks.sqlite"))
            #expect(report.isSound, "\(report.ruleProblems)", sourceLocation: sourceLocation)
        }
        _ = try await store.apply([
            .create(TaskDraft(id: "a", title: "a", tags: ["x", "y", "é"])),
            .create(TaskDraft(id: "b", title: "b", tags: ["x", "y"])),
            .create(TaskDraft(id: "c", title: "c", tags: ["y"])),
        ], atomic: true)
        try await expectCounted(["x y 2", "x é 1", "y é 1"])
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["x", "z"]), limit: 1, includeTotal: true)).total == 0)
        _ = try await store.update(id: "c", changes: TaskChanges(tags: ["x", "é"]))
        try await expectCounted(["x y 2", "x é 2", "y é 1"])
        _ = try await store.delete(id: "a")
        try await expectCounted(["x y 1", "x é 1"])
        _ = try await store.undo()
        try await expectCounted(["x y 2", "x é 2", "y é 1"])
        _ = try await store.redo()
        try await expectCounted(["x y 1", "x é 1"])
        _ = try await store.importTasks([.task(TaskItem(id: "d", title: "d", tags: ["x", "y", "z"], createdAt: 1_000, updatedAt: 1_000, version: 1), line: 1)],
                                        onConflict: .fail)
        try await expectCounted(["x y 2", "x z 1", "x é 1", "y z 1"])
        try other.run("DELETE FROM task_tag WHERE tag = 'x' AND task_pk = (SELECT pk FROM task WHERE id = 'd')")
        try await expectCounted(["x y 1", "x é 1", "y z 1"])
    }

    /// `includeTotal` with one tag, alone or with `done`, reads `tag_total`, which every write
    /// keeps: tagging and untagging, completing and reopening, deleting (the taggings go by
    /// the cascade, after the task), undo and redo, a failed apply, import and another
    /// writer of the file.
    @Test func tagCountsOfOpenAndDoneFollowEveryWrite() async throws {
        let store = try makeStore(directory)
        let other = try Database(path: directory.file("tasks.sqlite"))
        func kept() throws -> [String] {
            var rows: [String] = []
            #expect(try other.integer("SELECT count(*) FROM tag_total WHERE open < 0 OR open > count") == 0)
            // A tag on no task keeps its row of 0.
            try other.cachedStatement("SELECT tag, count, open FROM tag_total WHERE count <> 0 ORDER BY 1").forEachRow {
                rows.append("\($0.text(0)) \($0.int(1)) \($0.int(2))")
            }
            return rows
        }
        func expectCounted(_ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
            #expect(try kept() == expected, sourceLocation: sourceLocation)
            for tag in ["x", "y", "é"] {
                for done in [nil, false, true] {
                    let filter = TaskFilter(done: done, tags: [tag])
                    let total = try await store.fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true)).total
                    let listed = try await store.fetch(TaskQuery(filter: filter, limit: TaskQuery.maxLimit)).tasks.count
                    #expect(total == listed, "\(filter)", sourceLocation: sourceLocation)
                }
            }
            let report = try TaskStore.check(path: directory.file("tasks.sqlite"))
            #expect(report.isSound, "\(report.ruleProblems)", sourceLocation: sourceLocation)
        }
        _ = try await store.apply([
            .create(TaskDraft(id: "a", title: "a", tags: ["x", "y"])),
            .create(TaskDraft(id: "b", title: "b", done: true, tags: ["x"])),
            .create(TaskDraft(id: "c", title: "c", tags: ["é"])),
        ], atomic: true)
        try await expectCounted(["x 2 1", "y 1 1", "é 1 1"])
        _ = try await store.update(id: "a", changes: TaskChanges(done: true))
        try await expectCounted(["x 2 0", "y 1 0", "é 1 1"])
        _ = try await store.update(id: "b", changes: TaskChanges(done: false, tags: ["y", "é"]))
        try await expectCounted(["x 1 0", "y 2 1", "é 2 2"])
        _ = try await store.delete(id: "a")
        try await expectCounted(["y 1 1", "é 2 2"])
        _ = try await store.undo()
        try await expectCounted(["x 1 0", "y 2 1", "é 2 2"])
        _ = try await store.redo()
        try await expectCounted(["y 1 1", "é 2 2"])
        await #expect(throws: TaskStoreError.self) {
            try await store.apply([.update(id: "c", changes: TaskChanges(done: true, tags: ["x"]), ifVersion: nil), .update(id: "missing", changes: TaskChanges(title: "m"), ifVersion: nil)],
                                  atomic: true)
        }
        try await expectCounted(["y 1 1", "é 2 2"])
        _ = try await store.importTasks([.task(TaskItem(id: "d", title: "d", done: true, tags: ["x", "y"], createdAt: 1_000, updatedAt: 1_000,
                                                        completedAt: 1_000, version: 1), line: 1)], onConflict: .fail)
        try await expectCounted(["x 1 0", "y 2 1", "é 2 2"])
        try other.run("UPDATE task SET done = 1, completed_at = updated_at WHERE id = 'c'")
        try other.run("DELETE FROM task_tag WHERE tag = 'y' AND task_pk = (SELECT pk FROM task WHERE id = 'b')")
        try await expectCounted(["x 1 0", "y 1 0", "é 2 1"])
        try other.run("UPDATE tag_total SET count = 9 WHERE tag = 'x'")
        let problems = try TaskStore.check(path: directory.file("tasks.sqlite")).ruleProblems
        #expect(problems == ["tag_total's counts of the tasks tagged x do not match their tags"], "\(problems)")
    }

    @Test func checkFindsCopiesOutOfStep() async throws {
        let store = try makeStore(directory)
        try await store.add("one", tags: ["a"], id: "one")
        try await store.add("two", tags: ["a", "b"], id: "two")
        let other = try Database(path: directory.file("tasks.sqlite"))
        try other.run("UPDATE task SET tags = 'b' WHERE id = 'one'")
        try other.run("UPDATE task_total SET count = 7 WHERE done = 1")
        try other.run("UPDATE task_tag SET created_at = 0 WHERE tag = 'b'")
        let report = try TaskStore.check(path: directory.file("tasks.sqlite"))
        #expect(report.ruleProblems.sorted() == [
            "task one: its tags column does not match task_tag",
            "task two: its taggings' copy of its sort key does not match it",
            "task_total says 2 open and 7 done; the tasks are 2 and 0",
        ])
    }

    /// A page by creation time with a tag is read through the taggings' copy of the sort
    /// key, so the copy follows the task whoever changes it.
    @Test func taggingsFollowTheirTasksSortKey() async throws {
        let store = try makeStore(directory)
        for name in ["a", "b", "c"] { try await store.add(name, tags: ["x"], id: name) }
        let other = try Database(path: directory.file("tasks.sqlite"))
        try other.run("UPDATE task SET created_at = 1 WHERE id = 'c'")
        try other.run("UPDATE task SET id = 'z' WHERE id = 'a'")
        // Every task has the tag: read through the taggings or the tasks, the order is one.
        for descending in [false, true] {
            let sort = [SortKey(field: .createdAt, descending: descending)]
            let throughTaggings = try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["x"]), sort: sort)).tasks.map(\.id)
            #expect(throughTaggings == (try await store.fetch(TaskQuery(sort: sort)).tasks.map(\.id)))
            #expect(throughTaggings.contains("z") && (descending ? throughTaggings.last : throughTaggings.first) == "c")
        }
        #expect(try TaskStore.check(path: directory.file("tasks.sqlite")).ruleProblems.isEmpty)
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
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["b"]),
                                                sort: [SortKey(field: .createdAt, descending: true)])).tasks.map(\.id) == ["t1"])
        for (tag, done, count) in [("a", false, 1), ("a", true, 0), ("c", true, 1), ("c", false, 0)] {
            let filter = TaskFilter(done: done, tags: [tag])
            #expect(try await store.fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true)).total == count, "\(filter)")
        }
        // (Its done tasks have no completedAt, which check reports; the copies are what matter here.)
        let report = try TaskStore.check(path: path)
        #expect(report.ruleProblems.allSatisfy { $0.hasSuffix("completedAt must be set when done is true") }, "\(report.ruleProblems)")
    }
}
