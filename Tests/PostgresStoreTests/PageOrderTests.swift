import Foundation
import PostgreSQL
import TaskModel
import TaskStore
import TestSupport
import Testing

@testable import PostgresStore

/// Pages by each sort key, each way, against the SQLite store's on the same tasks, and the
/// plans PostgreSQL makes for them: read along an index, never sorted.
@Suite(Cluster.available) struct PageOrderTests {
    /// Each key each way, the sorts by two keys that taskline-bench measures, each way, and
    /// priority then due date in opposite directions (`taskline next` reads by the first).
    static let sorts: [[SortKey]] =
        SortKey.Field.allCases.flatMap { field in [false, true].map { [SortKey(field: field, descending: $0)] } }
        + [(SortKey.Field.due, SortKey.Field.priority), (.priority, .due), (.project, .due)].flatMap { first, second in
            [false, true].map { [SortKey(field: first, descending: $0), SortKey(field: second, descending: $0)] }
        }
        + [true, false].map { [SortKey(field: .priority, descending: $0), SortKey(field: .due, descending: !$0)] }

    /// Tasks whose keys tie (created and updated in the same millisecond, titles equal but
    /// for case, priorities, due dates and projects shared) and go missing (no due date,
    /// no project), with ids whose code-point order is not their alphabetical one.
    static let tasks: [TaskItem] = (0..<60).map { number in
        TaskItem(
            id: id(number), title: number % 3 == 0 ? "Same title" : number % 3 == 1 ? "same TITLE" : "Other \(number % 5)",
            done: number % 4 == 0, priority: number % 4, tags: number % 2 == 0 ? ["even"] : [],
            due: number % 3 == 0 ? nil : "2027-0\(1 + number % 5)-1\(number % 3)",
            project: number % 5 == 0 ? nil : ["Home", "Home.Garage", "Home-x", "Work"][number % 4],
            dependsOn: number % 6 == 1 ? [id(number - 1)] : [], wait: number % 10 == 3 ? "2999-01-01" : nil,
            createdAt: 1_800_000_000_000 + Int64(number / 4), updatedAt: 1_800_000_000_000 + Int64(number % 6),
            completedAt: number % 4 == 0 ? 1_800_000_000_100 : nil)
    }

    static func id(_ number: Int) -> String {
        ["B", "a", "b", "Z-", "z_", "é", "A"][number % 7] + String(number * 7919 % 61)
    }

    static let filters = [
        TaskFilter(), TaskFilter(done: false), TaskFilter(project: "Home"), TaskFilter(dueAfter: "2027-02-01"),
        TaskFilter(tags: ["even"]), TaskFilter(done: true, tags: ["even"]),
    ]

    @Test(arguments: sorts) func pagesAreTheSQLiteStoresPages(sort: [SortKey]) async throws {
        let postgres = try Cluster.store()
        let sqlite = try TaskStore(path: ":memory:")
        let records = Self.tasks.enumerated().map { ImportRecord.task($1, line: $0 + 1) }
        _ = try await postgres.importTasks(records, onConflict: .fail, maxProblems: 1)
        _ = try await sqlite.importTasks(records, onConflict: .fail, maxProblems: 1)
        for filter in Self.filters {
            let expected = try await Self.pages(of: sqlite, filter: filter, sort: sort)
            #expect(try await Self.pages(of: postgres, filter: filter, sort: sort) == expected, "filter \(filter)")
            #expect(expected.joined().count == Self.tasks.count || filter != TaskFilter())
            for offset in [5, 23, 47] {
                let query = TaskQuery(filter: filter, sort: sort, limit: 6, offset: offset)
                #expect(try await postgres.fetch(query).tasks.map(\.id) == sqlite.fetch(query).tasks.map(\.id), "offset \(offset), filter \(filter)")
            }
        }
    }

    /// `includeTotal` with each filter, read from the kept counts or counted, is SQLite's.
    @Test func totalsAreTheSQLiteStoresTotals() async throws {
        let postgres = try Cluster.store()
        let sqlite = try TaskStore(path: ":memory:")
        let records = Self.tasks.enumerated().map { ImportRecord.task($1, line: $0 + 1) }
        _ = try await postgres.importTasks(records, onConflict: .fail, maxProblems: 1)
        _ = try await sqlite.importTasks(records, onConflict: .fail, maxProblems: 1)
        for filter in Self.filters + [
            TaskFilter(done: true), TaskFilter(project: "Home.Garage"), TaskFilter(project: "Nowhere"),
            TaskFilter(tags: ["odd"]), TaskFilter(blocked: true), TaskFilter(blocked: false),
            TaskFilter(waiting: true), TaskFilter(waiting: false), TaskFilter(done: false, blocked: false),
            TaskFilter(done: false, blocked: false, waiting: false), TaskFilter(project: "Home", waiting: false),
        ] {
            let query = TaskQuery(filter: filter, limit: 1, includeTotal: true)
            let total = try await sqlite.fetch(query).total
            #expect(try await postgres.fetch(query).total == total, "filter \(filter)")
        }
    }

    /// The ids of every page of 7, following the cursors.
    static func pages(of store: some TaskStoring, filter: TaskFilter, sort: [SortKey]) async throws -> [[String]] {
        var pages: [[String]] = []
        var cursor: String?
        repeat {
            let page = try await store.fetch(TaskQuery(filter: filter, sort: sort, limit: 7, cursor: cursor))
            pages.append(page.tasks.map(\.id))
            cursor = page.nextCursor
        } while cursor != nil && pages.count <= Self.tasks.count
        return pages
    }

    /// At 20,000 tasks a first and a middle page by each key and by the pairs of keys, each
    /// way, come from an index in order: no plan has a Sort node.
    @Test func everyPageIsReadInIndexOrder() async throws {
        let (store, connection) = try Self.twentyThousandTasks()
        for sort in Self.sorts {
            let middle = try #require(try await store.fetch(TaskQuery(sort: sort, limit: 1, offset: 10_000)).nextCursor)
            for cursor in [nil, middle] {
                let nodes = try Self.plans(of: TaskQuery(sort: sort, limit: 50, cursor: cursor), on: connection)
                #expect(!nodes.contains("Sort"), "\(sort) \(cursor == nil ? "first" : "middle") page: \(nodes)")
                #expect(nodes.contains("Index Scan") || nodes.contains("Index Only Scan"), "\(sort): \(nodes)")
            }
        }
    }

    /// `taskline next`'s pages (open tasks neither blocked nor waiting, by priority
    /// descending, then due date) come from an index in order too: the planner must not
    /// take most tasks for blocked.
    @Test func theNextListIsReadInIndexOrder() async throws {
        let (store, connection) = try Self.twentyThousandTasks()
        let filter = TaskFilter(done: false, blocked: false, waiting: false)
        let sort = [SortKey(field: .priority, descending: true), SortKey(field: .due)]
        let middle = try #require(try await store.fetch(TaskQuery(filter: filter, sort: sort, limit: 1, offset: 5_000)).nextCursor)
        for cursor in [nil, middle] {
            let nodes = try Self.plans(of: TaskQuery(filter: filter, sort: sort, limit: 50, cursor: cursor), on: connection)
            #expect(!nodes.contains("Sort") && nodes.contains("Index Scan"), "\(cursor == nil ? "first" : "middle") page: \(nodes)")
        }
    }

    /// Not blocked and not waiting, which most tasks are, are counted as all the tasks less
    /// the few (`TaskFilter.countTerms`): no count reads the task table through, and each
    /// agrees with the tasks a page holds.
    @Test func countsOfMostTasksReadOnlyTheFew() async throws {
        let (store, connection) = try Self.twentyThousandTasks()
        try Self.blockAndWait(connection)
        for filter in [
            TaskFilter(blocked: true), TaskFilter(blocked: false), TaskFilter(waiting: false), TaskFilter(done: false, blocked: false),
            TaskFilter(done: false, blocked: false, waiting: false),
        ] {
            let plan = try PostgresFetchPlan(query: TaskQuery(filter: filter), now: 0, connection: connection, textIndexed: true)
            for count in try plan.totalCounts(of: filter, now: 0, connection: connection) {
                let explained = try connection.query("EXPLAIN (FORMAT JSON) " + count.sql, count.values)[0].text("QUERY PLAN")
                let nodes = Self.values(of: "Node Type", in: try JSONSerialization.jsonObject(with: Data(explained.utf8)))
                let relations = Self.values(of: "Relation Name", in: try JSONSerialization.jsonObject(with: Data(explained.utf8)))
                #expect(!(nodes.contains("Seq Scan") && relations.contains("task")), "\(filter): \(count.sql) \(nodes)")
            }
            let total = try await store.fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true)).total
            var counted = 0
            var cursor: String?
            repeat {
                let page = try await store.fetch(TaskQuery(filter: filter, limit: TaskQuery.maxLimit, cursor: cursor))
                counted += page.tasks.count
                cursor = page.nextCursor
            } while cursor != nil
            #expect(total == counted, "\(filter)")
        }
    }

    /// The blocked tasks' pages by priority or project, then due date, each way, come from
    /// indexes of their own (a run per priority or project), not from every blocked task
    /// (`task_blocked`) sorted nor checked along the sort's index for all tasks.
    @Test func blockedPagesByTwoKeysAreReadFromTheirIndexes() async throws {
        let (store, connection) = try Self.twentyThousandTasks()
        try Self.blockAndWait(connection, blockingOneIn: 5)
        let filter = TaskFilter(blocked: true)
        for sort in Self.sorts where sort.count == 2 && sort[1].field == .due {
            let index =
                switch sort[0].field {
                case .priority: "task_blocked_by_priority_due"
                case .project: sort[0].descending ? "task_blocked_by_project_due_desc" : "task_blocked_by_project_due"
                default: ""
                }
            guard !index.isEmpty else { continue }
            let middle = try #require(try await store.fetch(TaskQuery(filter: filter, sort: sort, limit: 1, offset: 1_300)).nextCursor)
            for cursor in [nil, middle] {
                let indexes = try Self.plans(of: TaskQuery(filter: filter, sort: sort, limit: 50, cursor: cursor), on: connection, key: "Index Name")
                #expect(
                    indexes.contains(index) && !indexes.contains("task_blocked"), "\(sort) \(cursor == nil ? "first" : "middle") page: \(indexes)")
            }
        }
    }

    /// Makes one task in `blockingOneIn` of `twentyThousandTasks` depend on the task after it
    /// (open or done) and one in 90 wait, with the kept counts and statistics to match.
    static func blockAndWait(_ connection: PostgresConnection, blockingOneIn: Int = 75) throws {
        try connection.execute(
            """
            UPDATE task SET depends_on = ARRAY[md5((substr(title, 6)::int + 1)::text)] WHERE substr(title, 6)::int % \(blockingOneIn) = 1;
            UPDATE task SET wait = '2999-01-01', wait_at = 32472144000000 WHERE substr(title, 6)::int % 90 = 7;
            \(PostgresSchema.keptCountsFill)
            ANALYZE task;
            """)
    }

    /// By project alone under a due-date filter: a range of many tasks (all 10,000 dated
    /// ones) is checked along task_by_project, never sorted; one of few (199) is read from an
    /// index led by the due date and sorted, not taken from task_by_project_due with the
    /// rest of a project.
    @Test func aDueRangeByProjectIsReadAlongTheProjectIndexOrTheRangeSorted() async throws {
        let (store, connection) = try Self.twentyThousandTasks()
        for descending in [false, true] {
            let sort = [SortKey(field: .project, descending: descending)]
            let many = TaskFilter(dueAfter: "2027-01-01")
            let middle = try #require(try await store.fetch(TaskQuery(filter: many, sort: sort, limit: 1, offset: 4_000)).nextCursor)
            for cursor in [nil, middle] {
                let nodes = try Self.plans(of: TaskQuery(filter: many, sort: sort, limit: 50, cursor: cursor), on: connection)
                #expect(!nodes.contains("Sort") && !nodes.contains("Incremental Sort") && nodes.contains("Index Scan"), "many, \(sort): \(nodes)")
            }
            // Dated tasks n = 2, 4, … are due n seconds after midnight: 199 in the first 400 s.
            let few = TaskFilter(dueBefore: "2027-01-01T00:06:40Z")
            let indexes = try Self.plans(of: TaskQuery(filter: few, sort: sort, limit: 50), on: connection, key: "Index Name")
            let nodes = try Self.plans(of: TaskQuery(filter: few, sort: sort, limit: 50), on: connection)
            #expect(indexes.first?.hasPrefix("task_by_due") == true && nodes.contains("Sort"), "few, \(sort): \(indexes) \(nodes)")
            #expect(try await store.fetch(TaskQuery(filter: few, sort: sort, limit: 1000)).tasks.count == 199)
        }
    }

    /// 20,000 tasks, half of them due on 2027-01-01, n seconds after midnight, and four in
    /// five in one of 50 projects.
    static func twentyThousandTasks() throws -> (PostgresTaskStore, PostgresConnection) {
        let db = try Cluster.freshSchema()
        let store = try Cluster.store(db)
        let connection = try PostgresConnection(db)
        try connection.execute(
            """
            INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, tags, due, due_at, project,
                              depends_on, meta, created_at, updated_at, version)
            SELECT md5(n::text), 'Task ' || n, 'task ' || n, '', '', n % 3 = 0, n % 4, '{}',
                   CASE WHEN n % 2 = 0 THEN '2027-01-01' END, CASE WHEN n % 2 = 0 THEN 1798761600000 + n * 1000 END,
                   CASE WHEN n % 5 > 0 THEN 'P' || n % 50 END, '{}', '{}', 1735689600000 + n, 1735689600000 + n % 977, 1
            FROM generate_series(1, 20000) AS n;
            ANALYZE task;
            """)
        return (store, connection)
    }

    /// Each value of `key` ("Node Type", "Index Name") in the plans of `query`'s runs.
    static func plans(of query: TaskQuery, on connection: PostgresConnection, key: String = "Node Type") throws -> [String] {
        let plan = try PostgresFetchPlan(query: query, now: 0, connection: connection, textIndexed: true)
        return try plan.runs.flatMap { run in
            let explained = try connection.query("EXPLAIN (FORMAT JSON) " + run.sql, run.values + [.integer(Int64(query.limit + 1)), .integer(0)])[0]
                .text("QUERY PLAN")
            return Self.values(of: key, in: try JSONSerialization.jsonObject(with: Data(explained.utf8)))
        }
    }

    /// Every value of `key` in a plan of `EXPLAIN (FORMAT JSON)`.
    static func values(of key: String, in json: Any) -> [String] {
        switch json {
        case let object as [String: Any]:
            ((object[key] as? String).map { [$0] } ?? []) + object.values.flatMap { values(of: key, in: $0) }
        case let array as [Any]:
            array.flatMap { values(of: key, in: $0) }
        default:
            []
        }
    }
}
