import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// The SQLite store's fetch plans: what they know before reading a task, the indexes they
/// read and the migrations that changed them (the contract of fetch is StoreContractTests').
@Suite struct FetchTests {
    let directory = TemporaryDirectory()

    /// Two tags on no task together match nothing, known from `tag_pair_total` before a task
    /// is read; once a task has both, it is found. Each tag is on more tasks than
    /// `fewTasks`, so that a sort led by creation time merges the open and done runs.
    @Test func tagsOnNoTaskTogetherMatchNothing() async throws {
        let store = try makeStore(directory)
        _ = try await store.apply(
            (0..<(2 * FetchPlan.fewTasks + 2)).map { index in
                .create(TaskDraft(id: "t\(index)", title: "t\(index)", done: index % 3 == 0, tags: [index % 2 == 0 ? "x" : "z", "y"]))
            }, atomic: true)
        let database = try Database(path: directory.file("tasks.sqlite"))
        func matchesNothing(_ tags: [String]) throws -> Bool {
            try FetchPlan(filter: TaskFilter(tags: tags), sort: [SortKey(field: .createdAt)], now: 0, database: database).matchesNothing
        }
        #expect(try matchesNothing(["x", "z"]))
        #expect(try matchesNothing(["z", "y", "x"]))
        #expect(try !matchesNothing(["x", "y"]) && !matchesNothing(["y", "x"]) && !matchesNothing(["x", "x"]) && !matchesNothing(["x"]))

        let sorts: [[SortKey]] = [
            [SortKey(field: .createdAt)], [SortKey(field: .createdAt), SortKey(field: .title)],
            [SortKey(field: .title, descending: true)], [SortKey(field: .due)],
        ]
        func listed(_ tags: [String], _ sort: [SortKey], offset: Int? = nil) async throws -> (ids: [String], total: Int?, more: Bool) {
            let page = try await store.fetch(TaskQuery(filter: TaskFilter(tags: tags), sort: sort, limit: 5, offset: offset, includeTotal: true))
            return (page.tasks.map(\.id), page.total, page.nextCursor != nil)
        }
        for sort in sorts {
            for offset in [nil, 1] {
                let page = try await listed(["x", "z"], sort, offset: offset)
                #expect(page.ids.isEmpty && page.total == 0 && !page.more, "\(sort) from \(String(describing: offset))")
                #expect(try await listed(["y", "z", "x"], sort, offset: offset).total == 0)
            }
            #expect(try await listed(["x", "y"], sort).total == FetchPlan.fewTasks + 1)
        }

        _ = try await store.update(id: "t1", changes: TaskChanges(tags: ["x", "z"]))
        #expect(try !matchesNothing(["x", "z"]))
        #expect(try !matchesNothing(["x", "y", "z"]), "every two of them are on some task")
        for sort in sorts {
            let page = try await listed(["z", "x"], sort)
            #expect(page.ids == ["t1"] && page.total == 1 && !page.more, "\(sort)")
            #expect(try await listed(["z", "x"], sort, offset: 1).ids.isEmpty)
            #expect(try await listed(["x", "y", "z"], sort).ids.isEmpty, "no task has all three")
        }
    }
}

/// A page in creation order merges the open tasks' run of `task_by_done`
/// with the done tasks' run: there is no index on `(created_at, id)` alone.
@Suite struct CreationOrderTests {
    let directory = TemporaryDirectory()

    /// The plan SQLite makes: both runs read in order from task_by_done, nothing sorted.
    @Test(arguments: [false, true])
    func pagesAreMergedFromTheIndexWithoutSorting(withCursor: Bool) async throws {
        let store = try makeStore(directory)
        for index in 0..<24 { try await store.add("task \(index)", done: index % 2 == 1) }
        let database = try Database(path: directory.file("tasks.sqlite"))
        #expect(try database.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'task_by_created'") == 0)
        let plan = try FetchPlan(filter: TaskFilter(), sort: [SortKey(field: .createdAt)], now: 0, database: database)
        let cursor = withCursor ? Cursor(signature: plan.signature, values: [.integer(1_780_000_000_003), .text("t20")]) : nil
        let runs = plan.pageRuns(after: cursor)
        #expect(runs.count == 1)
        let steps = try queryPlan(runs[0], in: database)
        #expect(steps.contains("MERGE (UNION ALL)"), "\(steps)")
        #expect(steps.filter { $0.contains("task_by_done") }.count == 2, "\(steps)")
        #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(steps)")
        _ = store
    }

    /// A file at schema 14 loses the index when it is opened, and its pages keep their order.
    @Test func theMigrationDropsTheIndexAndKeepsTheOrder() async throws {
        let database = try Database(path: directory.file("v14.sqlite"))
        try Migrator(Array(Schema.migrator.migrations.prefix(14))).migrate(database)
        for (index, id) in ["c", "a", "b"].enumerated() {
            try database.run(
                """
                INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, created_at, updated_at, completed_at, version)
                VALUES (?1, 'old', 'old', '', '', ?2, 0, ?3, ?3, CASE ?2 WHEN 1 THEN ?3 END, 1)
                """, [.text(id), .integer(Int64(index % 2)), .integer(index == 0 ? 5 : 1)])
        }
        #expect(try database.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'task_by_created'") == 1)
        let store = try TaskStore(path: database.path)
        #expect(try database.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'task_by_created'") == 0)
        #expect(try await store.fetch(TaskQuery()).tasks.map(\.id) == ["a", "b", "c"])
        #expect(try TaskStore.check(path: database.path).isSound)
    }
}

/// The steps of SQLite's plan for `run`.
func queryPlan(_ run: FetchPlan.Run, in database: Database) throws -> [String] {
    var steps: [String] = []
    try database.cachedStatement("EXPLAIN QUERY PLAN " + run.sql).forEachRow(run.values + [.integer(51)]) {
        steps.append($0.text(3))
    }
    return steps
}

/// A page by due date descending reads task_by_due_asc in two runs: the
/// dated tasks backwards, then the undated ones.
@Suite struct DueDescendingTests {
    let directory = TemporaryDirectory()

    /// 30 tasks: due dates on five days (six tasks a day, so ties), a third undated, and
    /// priorities and titles that disagree with creation order.
    func seeded() async throws -> (TaskStore, [TaskItem]) {
        let store = try makeStore(directory)
        var tasks: [TaskItem] = []
        for index in 0..<30 {
            let due = index % 3 == 0 ? nil : "2026-12-1\(index % 5)"
            tasks.append(try await store.add("task \((index * 11) % 30)", priority: (index * 7) % 4, due: due))
        }
        return (store, tasks)
    }

    /// Both runs are read in order from task_by_due_asc; a cursor among the undated tasks
    /// leaves only the second run.
    @Test func bothRunsReadTheIndexInOrder() async throws {
        let (store, _) = try await seeded()
        let database = try Database(path: directory.file("tasks.sqlite"))
        #expect(try database.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'task_by_due_desc'") == 0)
        let plan = try FetchPlan(filter: TaskFilter(), sort: [SortKey(field: .due, descending: true)], now: 0, database: database)
        let runs = plan.pageRuns(after: nil)
        #expect(runs.count == 2)
        for run in runs {
            let steps = try queryPlan(run, in: database)
            #expect(steps.contains { $0.contains("task_by_due_asc") }, "\(steps)")
            #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(steps)")
        }
        let undatedCursor = Cursor(signature: plan.signature, values: [.integer(Schema.undatedDescendingKey), .text("x")])
        #expect(plan.pageRuns(after: undatedCursor).count == 1)
        _ = store
    }

    /// A file at schema 15 loses the index when it is opened, and its pages keep their order.
    @Test func theMigrationDropsTheIndexAndKeepsTheOrder() async throws {
        let database = try Database(path: directory.file("v15.sqlite"))
        try Migrator(Array(Schema.migrator.migrations.prefix(15))).migrate(database)
        for (id, due) in [("a", nil), ("b", 5 as Int64?), ("c", 9), ("d", nil)] {
            try database.run(
                """
                INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, due, due_at, created_at, updated_at, version)
                VALUES (?1, 'old', 'old', '', '', 0, 0, CASE WHEN ?2 IS NOT NULL THEN '1970-01-01T00:00:00.00' || ?2 || 'Z' END, ?2, 1, 1, 1)
                """, [.text(id), due.map(SQLValue.integer) ?? .null])
        }
        #expect(try database.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'task_by_due_desc'") == 1)
        let store = try TaskStore(path: database.path)
        #expect(try database.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'task_by_due_desc'") == 0)
        #expect(try await store.fetch(TaskQuery(sort: [SortKey(field: .due, descending: true)])).tasks.map(\.id) == ["c", "b", "d", "a"])
        #expect(try TaskStore.check(path: database.path).isSound)
    }
}

@Suite struct TextIndexMigrationTests {
    let directory = TemporaryDirectory()

    /// A database whose index held the raw texts (schema 6) gets one over the folded texts,
    /// rebuilt from the tasks already there.
    @Test func theFoldedIndexIsBuiltFromExistingTasks() async throws {
        let path = directory.file("v6.sqlite")
        do {
            let database = try Database(path: path)
            try Migrator(Array(Schema.migrator.migrations.prefix(6))).migrate(database)
            try database.run(
                """
                INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, created_at, updated_at, version)
                VALUES ('old', 'İstanbul trip', ?, '', '', 0, 0, 1, 1, 1)
                """, [.text("İstanbul trip".lowercased())])
            #expect(try database.userVersion() == 6)
        }
        let store = try TaskStore(path: path)
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "İSTANBUL"))).tasks.map(\.id) == ["old"])
        try await store.add("İzmir", id: "new")
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "izmir".uppercased()))).tasks.map(\.id) == [])
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "İzm"))).tasks.map(\.id) == ["new"])
    }
}
