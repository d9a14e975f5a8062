import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

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

    /// A tagging's task is checked when the transaction commits (schema 36), not when the
    /// tagging is written: a tagging of no task is refused then, and a task's deletion still
    /// takes its taggings with it.
    @Test func aTaggingOfNoTaskIsRefusedAtCommit() async throws {
        let store = try makeStore(directory)
        let tagged = try await store.add("a", tags: ["x"])
        let other = try Database(path: directory.file("tasks.sqlite"))
        try other.execute("PRAGMA foreign_keys = ON")
        try other.run("BEGIN IMMEDIATE")
        try other.run("INSERT INTO task_tag (tag, task_pk, created_at, task_id) VALUES ('y', 999, 0, 'none')")
        let refusal = #expect(throws: SQLiteError.self) { try other.run("COMMIT") }
        #expect(refusal?.message == "FOREIGN KEY constraint failed")
        try other.run("ROLLBACK")
        #expect(try other.integer("SELECT count(*) FROM task_tag") == 1)
        _ = try await store.delete(id: tagged.id)
        #expect(try other.integer("SELECT count(*) FROM task_tag") == 0)
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
            let found = [
                try await total(TaskFilter(project: "Home")), try await total(TaskFilter(project: "Home.Garage")),
                try await total(TaskFilter(tags: ["x"])), try await total(TaskFilter(tags: ["x", "y"])),
                try await total(TaskFilter(tags: ["y", "x"])),
            ]
            #expect(found == [home, garage, x, xy, xy], sourceLocation: sourceLocation)
        }
        try await expectTotals(0, 0, 0, 0)
        _ = try await store.apply(
            [
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
        #expect(
            problems == [
                "project_total's counts of project Home.Garage do not match its tasks",
                "tag_pair_total's counts of the tasks tagged x and y do not match their tags",
            ], "\(problems)")
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
        _ = try await store.apply(
            [
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
        _ = try await store.importTasks(
            [.task(TaskItem(id: "d", title: "d", tags: ["x", "y", "z"], createdAt: 1_000, updatedAt: 1_000, version: 1), line: 1)],
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
        // A tag on no task keeps its row of 0.
        let counts = KeptCounts(
            store: store, other: other, rows: "SELECT tag, count, open FROM tag_total WHERE count <> 0 ORDER BY 1",
            filters: ["x", "y", "é"].map { TaskFilter(tags: [$0]) })
        func expectCounted(_ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
            #expect(try other.integer("SELECT count(*) FROM tag_total WHERE open < 0 OR open > count") == 0, sourceLocation: sourceLocation)
            try await counts.expect(expected, sourceLocation: sourceLocation)
        }
        _ = try await store.apply(
            [
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
            try await store.apply(
                [
                    .update(id: "c", changes: TaskChanges(done: true, tags: ["x"]), ifVersion: nil),
                    .update(id: "missing", changes: TaskChanges(title: "m"), ifVersion: nil),
                ],
                atomic: true)
        }
        try await expectCounted(["y 1 1", "é 2 2"])
        _ = try await store.importTasks(
            [
                .task(
                    TaskItem(
                        id: "d", title: "d", done: true, tags: ["x", "y"], createdAt: 1_000, updatedAt: 1_000,
                        completedAt: 1_000, version: 1), line: 1)
            ], onConflict: .fail)
        try await expectCounted(["x 1 0", "y 2 1", "é 2 2"])
        try other.run("UPDATE task SET done = 1, completed_at = updated_at WHERE id = 'c'")
        try other.run("DELETE FROM task_tag WHERE tag = 'y' AND task_pk = (SELECT pk FROM task WHERE id = 'b')")
        try await expectCounted(["x 1 0", "y 1 0", "é 2 1"])
        try other.run("UPDATE tag_total SET count = 9 WHERE tag = 'x'")
        // A tag on no task keeps its row of zeros; the counts may be NULL (schema 36).
        try other.run("INSERT INTO tag_total (tag, count, open) VALUES ('none', NULL, 0)")
        let problems = try TaskStore.check(path: directory.file("tasks.sqlite")).ruleProblems
        #expect(
            problems == [
                "tag_total's counts of the tasks tagged none do not match their tags",
                "tag_total's counts of the tasks tagged x do not match their tags",
            ], "\(problems)")
    }

    /// `includeTotal` with a project, alone or with `done`, reads `project_total`, which
    /// every write keeps: creating, completing and reopening, moving a task to another
    /// project (with its state changed in the same write or not), deleting, undo and redo,
    /// a failed apply, import and another writer of the file.
    @Test func projectCountsOfOpenAndDoneFollowEveryWrite() async throws {
        let store = try makeStore(directory)
        let other = try Database(path: directory.file("tasks.sqlite"))
        let counts = KeptCounts(
            store: store, other: other, rows: "SELECT project, count, open FROM project_total ORDER BY 1",
            filters: ["Home", "Home.Garage", "Work"].map { TaskFilter(project: $0) })
        _ = try await store.apply(
            [
                .create(TaskDraft(id: "a", title: "a", project: "Home")),
                .create(TaskDraft(id: "b", title: "b", done: true, project: "Home.Garage")),
                .create(TaskDraft(id: "c", title: "c", project: "Work")),
                .create(TaskDraft(id: "d", title: "d")),
            ], atomic: true)
        try await counts.expect(["Home 1 1", "Home.Garage 1 0", "Work 1 1"])
        _ = try await store.update(id: "a", changes: TaskChanges(done: true))
        try await counts.expect(["Home 1 0", "Home.Garage 1 0", "Work 1 1"])
        _ = try await store.update(id: "b", changes: TaskChanges(done: false, project: .some("Work")))
        try await counts.expect(["Home 1 0", "Work 2 2"])
        _ = try await store.update(id: "c", changes: TaskChanges(done: true, project: .some(nil)))
        try await counts.expect(["Home 1 0", "Work 1 1"])
        _ = try await store.update(id: "d", changes: TaskChanges(project: .some("Home.Garage")))
        try await counts.expect(["Home 1 0", "Home.Garage 1 1", "Work 1 1"])
        _ = try await store.delete(id: "b")
        try await counts.expect(["Home 1 0", "Home.Garage 1 1"])
        _ = try await store.undo()
        try await counts.expect(["Home 1 0", "Home.Garage 1 1", "Work 1 1"])
        _ = try await store.redo()
        try await counts.expect(["Home 1 0", "Home.Garage 1 1"])
        await #expect(throws: TaskStoreError.self) {
            try await store.apply(
                [
                    .update(id: "d", changes: TaskChanges(done: true, project: .some("Work")), ifVersion: nil),
                    .update(id: "missing", changes: TaskChanges(title: "m"), ifVersion: nil),
                ], atomic: true)
        }
        try await counts.expect(["Home 1 0", "Home.Garage 1 1"])
        _ = try await store.importTasks(
            [
                .task(
                    TaskItem(
                        id: "e", title: "e", done: true, project: "Work", createdAt: 1_000, updatedAt: 1_000,
                        completedAt: 1_000, version: 1), line: 1)
            ], onConflict: .fail)
        try await counts.expect(["Home 1 0", "Home.Garage 1 1", "Work 1 0"])
        try other.run("UPDATE task SET done = 0, completed_at = NULL, project = 'Home' WHERE id = 'e'")
        try other.run("UPDATE task SET done = 1, completed_at = updated_at WHERE id = 'd'")
        try await counts.expect(["Home 2 1", "Home.Garage 1 0"])
        #expect(try await store.projectCounts(all: false) == ["Home": 1])
        try other.run("UPDATE project_total SET open = 2 WHERE project = 'Home'")
        let problems = try TaskStore.check(path: directory.file("tasks.sqlite")).ruleProblems
        #expect(problems == ["project_total's counts of project Home do not match its tasks"], "\(problems)")
    }

    /// `includeTotal` with two tags, alone or with `done`, reads `tag_pair_total`, which every
    /// write keeps: tagging and untagging, completing and reopening (also in the write that
    /// changes the tags), deleting (the taggings go by the cascade, after the task), undo
    /// and redo, a failed apply, import and another writer of the file.
    @Test func tagPairCountsOfOpenAndDoneFollowEveryWrite() async throws {
        let store = try makeStore(directory)
        let other = try Database(path: directory.file("tasks.sqlite"))
        let counts = KeptCounts(
            store: store, other: other, rows: "SELECT tag || other, count, open FROM tag_pair_total ORDER BY 1",
            filters: [["x", "y"], ["y", "x"], ["x", "z"], ["y", "z"]].map { TaskFilter(tags: $0) })
        _ = try await store.apply(
            [
                .create(TaskDraft(id: "a", title: "a", tags: ["x", "y", "z"])),
                .create(TaskDraft(id: "b", title: "b", done: true, tags: ["x", "y"])),
                .create(TaskDraft(id: "c", title: "c", tags: ["y"])),
            ], atomic: true)
        try await counts.expect(["xy 2 1", "xz 1 1", "yz 1 1"])
        _ = try await store.update(id: "a", changes: TaskChanges(done: true))
        try await counts.expect(["xy 2 0", "xz 1 0", "yz 1 0"])
        _ = try await store.update(id: "b", changes: TaskChanges(done: false, tags: ["y", "z"]))
        try await counts.expect(["xy 1 0", "xz 1 0", "yz 2 1"])
        _ = try await store.update(id: "c", changes: TaskChanges(tags: ["x", "y"]))
        try await counts.expect(["xy 2 1", "xz 1 0", "yz 2 1"])
        _ = try await store.delete(id: "b")
        try await counts.expect(["xy 2 1", "xz 1 0", "yz 1 0"])
        _ = try await store.delete(id: "c")
        try await counts.expect(["xy 1 0", "xz 1 0", "yz 1 0"])
        _ = try await store.undo()
        try await counts.expect(["xy 2 1", "xz 1 0", "yz 1 0"])
        _ = try await store.redo()
        try await counts.expect(["xy 1 0", "xz 1 0", "yz 1 0"])
        await #expect(throws: TaskStoreError.self) {
            try await store.apply(
                [
                    .update(id: "a", changes: TaskChanges(done: false, tags: ["x"]), ifVersion: nil),
                    .update(id: "missing", changes: TaskChanges(title: "m"), ifVersion: nil),
                ], atomic: true)
        }
        try await counts.expect(["xy 1 0", "xz 1 0", "yz 1 0"])
        _ = try await store.importTasks(
            [.task(TaskItem(id: "d", title: "d", tags: ["x", "z"], createdAt: 1_000, updatedAt: 1_000, version: 1), line: 1)],
            onConflict: .fail)
        try await counts.expect(["xy 1 0", "xz 2 1", "yz 1 0"])
        try other.run("UPDATE task SET done = 0, completed_at = NULL WHERE id = 'a'")
        try other.run("DELETE FROM task_tag WHERE tag = 'z' AND task_pk = (SELECT pk FROM task WHERE id = 'd')")
        try await counts.expect(["xy 1 1", "xz 1 1", "yz 1 1"])
        try other.execute("PRAGMA foreign_keys = ON")
        try other.run("DELETE FROM task WHERE id = 'a'")
        try await counts.expect([])
        _ = try await store.apply([.create(TaskDraft(id: "e", title: "e", tags: ["x", "y"]))], atomic: true)
        try other.run("UPDATE tag_pair_total SET open = 0")
        let problems = try TaskStore.check(path: directory.file("tasks.sqlite")).ruleProblems
        #expect(problems == ["tag_pair_total's counts of the tasks tagged x and y do not match their tags"], "\(problems)")
    }

    /// `includeTotal` with a due window, alone or with `done`, reads a range of
    /// task_by_due_asc, which holds each task's `done`: no task row is read. With a project
    /// too, it reads a range of task_by_project_due_asc for each of the projects
    /// `project_total` names.
    @Test func dueWindowsAreCountedFromTheirIndexAlone() async throws {
        let store = try makeStore(directory)
        _ = try await store.apply(
            (0..<60).map { index in
                .create(
                    TaskDraft(
                        id: "t\(index)", title: "t\(index)", done: index % 3 == 0, due: index % 4 == 0 ? nil : "2026-12-\(10 + index % 15)",
                        project: [nil, "Home", "Home.Garage", "Home-x", "Work"][index % 5]))
            }, atomic: true)
        _ = try await store.update(id: "t1", changes: TaskChanges(done: true))
        _ = try await store.update(id: "t3", changes: TaskChanges(done: false))
        let database = try Database(path: directory.file("tasks.sqlite"))
        for window in [
            TaskFilter(dueBefore: "2026-12-20", dueAfter: "2026-12-12"), TaskFilter(dueAfter: "2026-12-15"), TaskFilter(dueBefore: "2026-12-13"),
        ] {
            for done in [nil, false, true] {
                var filter = window
                filter.done = done
                let plan = try FetchPlan(filter: filter, sort: [SortKey(field: .createdAt)], now: 1_800_000_000_000, database: database)
                for count in try plan.totalCounts(of: filter, now: 1_800_000_000_000, in: database) {
                    var steps: [String] = []
                    try database.cachedStatement("EXPLAIN QUERY PLAN " + count.sql).forEachRow(count.values) { steps.append($0.text(3)) }
                    // (SQLite names the index not covering, for its generated column, yet seeks no
                    // row: the row's seek is deferred until a column the index lacks is read.)
                    #expect(steps == ["SEARCH task USING INDEX task_by_due_asc (due_sort_asc>? AND due_sort_asc<?)"], "\(filter): \(steps)")
                }
                let total = try await store.fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true)).total
                #expect(total == (try await store.fetch(TaskQuery(filter: filter, limit: TaskQuery.maxLimit)).tasks.count), "\(filter)")
                #expect(total ?? 0 > 0, "\(filter)")
                filter.project = "Home"
                let projectPlan = try FetchPlan(filter: filter, sort: [SortKey(field: .due)], now: 1_800_000_000_000, database: database)
                for count in try projectPlan.totalCounts(of: filter, now: 1_800_000_000_000, in: database) {
                    var steps: [String] = []
                    try database.cachedStatement("EXPLAIN QUERY PLAN " + count.sql).forEachRow(count.values) { steps.append($0.text(3)) }
                    #expect(
                        steps.first == "SEARCH task USING INDEX task_by_project_due_asc (project=? AND due_sort_asc>? AND due_sort_asc<?)",
                        "\(filter): \(steps)")
                }
                let inProject = try await store.fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true)).total
                #expect(inProject == (try await store.fetch(TaskQuery(filter: filter, limit: TaskQuery.maxLimit)).tasks.count), "\(filter)")
                #expect(inProject ?? 0 > 0, "\(filter)")
            }
        }
    }

    /// `includeTotal` with tags and a due window or a project, alone or with `done`, reads
    /// the window's range of task_by_due_asc (the project's of task_by_project) with each tag
    /// probed in task_tag's key, when the window (the project) holds fewer tasks than the
    /// rarest tag; otherwise it counts the tagged tasks.
    @Test func tagsInASmallDueWindowOrProjectAreCountedFromIt() async throws {
        let store = try makeStore(directory)
        _ = try await store.apply(
            (0..<60).map { index in
                .create(
                    TaskDraft(
                        id: "t\(index)", title: "t\(index)", done: index % 3 == 0, tags: index % 2 == 0 ? ["x", "y"] : ["x"],
                        due: index % 4 == 0 ? nil : "2026-12-\(10 + index % 15)", project: index % 5 == 0 ? "Home" : "Home.Garage"))
            }, atomic: true)
        let database = try Database(path: directory.file("tasks.sqlite"))
        // (Covering or not: with `done`, the project's tasks are looked up.)
        let byWindow = " task_by_due_asc (due_sort_asc>? AND due_sort_asc<?)"
        let byProject = " task_by_project (project>? AND project<?)"
        let cases: [(tags: [String], filter: TaskFilter, first: String?)] = [
            (["x"], TaskFilter(dueBefore: "2026-12-14", dueAfter: "2026-12-12"), byWindow),
            (["x", "y"], TaskFilter(dueBefore: "2026-12-14", dueAfter: "2026-12-11"), byWindow),
            (["y"], TaskFilter(dueAfter: "2026-12-11"), nil),
            (["x"], TaskFilter(project: "Home.Garage"), byProject),
            (["y", "x"], TaskFilter(project: "Home.Garage"), nil),
            (["y"], TaskFilter(project: "Home"), nil),
        ]
        for (tags, base, first) in cases {
            for done in [nil, false, true] {
                var filter = base
                filter.tags = tags
                filter.done = done
                let plan = try FetchPlan(filter: filter, sort: [SortKey(field: .createdAt)], now: 1_800_000_000_000, database: database)
                let count = try plan.count(in: database)
                var steps: [String] = []
                try database.cachedStatement("EXPLAIN QUERY PLAN " + count.sql).forEachRow(count.values) { steps.append($0.text(3)) }
                let start = steps.first ?? ""
                if let first {
                    #expect(start.hasPrefix("SEARCH task USING") && start.hasSuffix(first), "\(filter): \(steps)")
                } else {
                    #expect(!start.hasSuffix(byWindow) && !start.hasSuffix(byProject), "\(filter): \(steps)")
                }
                let total = try await store.fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true)).total
                #expect(total == (try await store.fetch(TaskQuery(filter: filter, limit: TaskQuery.maxLimit)).tasks.count), "\(filter)")
                #expect(total ?? 0 > 0, "\(filter)")
            }
        }
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
        #expect(
            report.ruleProblems.sorted() == [
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

    /// A file of schema 34 gets each project's open tasks counted.
    @Test func migrationCountsEachProjectsOpenTasks() async throws {
        let path = directory.file("v34.sqlite")
        do {
            let database = try Database(path: path)
            try Migrator(Array(Schema.migrator.migrations.prefix(34))).migrate(database)
            for (pk, done, project) in [(1, 0, "Home"), (2, 1, "Home"), (3, 1, "Work"), (4, 0, nil)] {
                try database.run(
                    """
                    INSERT INTO task (pk, id, title, title_fold, notes, notes_fold, done, priority, created_at, updated_at, version, project)
                    VALUES (?, ?, 'old', 'old', '', '', ?, 0, ?, ?, 1, ?)
                    """, [.integer(Int64(pk)), .text("t\(pk)"), .integer(Int64(done)), .integer(Int64(pk)), .integer(Int64(pk)), SQLValue(project)])
            }
        }
        let store = try TaskStore(path: path)
        for (project, done, count) in [("Home", false, 1), ("Home", true, 1), ("Work", false, 0), ("Work", true, 1)] {
            let filter = TaskFilter(done: done, project: project)
            #expect(try await store.fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true)).total == count, "\(filter)")
        }
        // (Its done tasks have no completedAt, which check reports; the counts are what matter here.)
        let report = try TaskStore.check(path: path)
        #expect(report.ruleProblems.allSatisfy { $0.hasSuffix("completedAt must be set when done is true") }, "\(report.ruleProblems)")
    }

    /// A database from before the copies (schema 7) gets them filled from what it holds.
    @Test func migrationFillsTheCopiesFromExistingTasks() async throws {
        let path = directory.file("v7.sqlite")
        do {
            let database = try Database(path: path)
            try Migrator(Array(Schema.migrator.migrations.prefix(7))).migrate(database)
            for (pk, done) in [(1, 0), (2, 1), (3, 1)] {
                try database.run(
                    """
                    INSERT INTO task (pk, id, title, title_fold, notes, notes_fold, done, priority, created_at, updated_at, version)
                    VALUES (?, ?, 'old', 'old', '', '', ?, 0, ?, ?, 1)
                    """, [.integer(Int64(pk)), .text("t\(pk)"), .integer(Int64(done)), .integer(Int64(pk)), .integer(Int64(pk))])
            }
            try database.run("INSERT INTO task_tag (tag, task_pk) VALUES ('b', 1), ('a', 1), ('c', 3)")
        }
        let store = try TaskStore(path: path)
        #expect(try await store.fetch(TaskQuery()).tasks.map(\.tags) == [["a", "b"], [], ["c"]])
        #expect(try await totals(store) == [3, 1, 2])
        #expect(
            try await store.fetch(
                TaskQuery(
                    filter: TaskFilter(tags: ["b"]),
                    sort: [SortKey(field: .createdAt, descending: true)])
            ).tasks.map(\.id) == ["t1"])
        for (tag, done, count) in [("a", false, 1), ("a", true, 0), ("c", true, 1), ("c", false, 0)] {
            let filter = TaskFilter(done: done, tags: [tag])
            #expect(try await store.fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true)).total == count, "\(filter)")
        }
        // (Its done tasks have no completedAt, which check reports; the copies are what matter here.)
        let report = try TaskStore.check(path: path)
        #expect(report.ruleProblems.allSatisfy { $0.hasSuffix("completedAt must be set when done is true") }, "\(report.ruleProblems)")
    }
}

/// A kept-count table as another connection reads it (`rows`: a name, its count and its
/// open count, each row), and `includeTotal` for each of `filters`, alone and with `done`
/// either way, against the tasks a page lists; `taskline check` finds the file sound.
struct KeptCounts {
    let store: TaskStore
    let other: Database
    let rows: String
    let filters: [TaskFilter]

    func expect(_ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var kept: [String] = []
        try other.cachedStatement(rows).forEachRow { kept.append("\($0.text(0)) \($0.int(1)) \($0.int(2))") }
        #expect(kept == expected, sourceLocation: sourceLocation)
        for var filter in filters {
            for done in [nil, false, true] {
                filter.done = done
                let total = try await store.fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true)).total
                let listed = try await store.fetch(TaskQuery(filter: filter, limit: TaskQuery.maxLimit)).tasks.count
                #expect(total == listed, "\(filter)", sourceLocation: sourceLocation)
            }
        }
        let report = try TaskStore.check(path: other.path)
        #expect(report.isSound, "\(report.ruleProblems)", sourceLocation: sourceLocation)
    }
}
