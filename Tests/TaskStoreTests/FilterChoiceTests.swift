import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// The planner reads a filter's few tasks from its index and sorts them, or checks many
/// along the sort's own index (FetchPlan), as `task_total` and the partial indexes count
/// them. Either way the pages must be the protocol's order: here every filter is on both
/// sides of `fewTasks` (one database where its tasks are many, one where they are few),
/// under sorts of one key and of two, paged by cursor and by offset, against the order
/// computed apart.
@Suite struct FilterChoiceTests {
    let directory = TemporaryDirectory()

    static let sorts: [[SortKey]] = [
        [SortKey(field: .createdAt)], [SortKey(field: .updatedAt, descending: true)],
        [SortKey(field: .due)], [SortKey(field: .due, descending: true)],
        [SortKey(field: .priority, descending: true)], [SortKey(field: .title)], [SortKey(field: .project)],
        [SortKey(field: .project, descending: true)],
        [SortKey(field: .due), SortKey(field: .priority)], [SortKey(field: .due, descending: true), SortKey(field: .priority, descending: true)],
        [SortKey(field: .priority), SortKey(field: .due)], [SortKey(field: .priority, descending: true), SortKey(field: .due, descending: true)],
        [SortKey(field: .priority), SortKey(field: .project, descending: true)],
        [SortKey(field: .priority, descending: true), SortKey(field: .title)],
        [SortKey(field: .project, descending: true), SortKey(field: .due, descending: true)], [SortKey(field: .project), SortKey(field: .priority)],
        [SortKey(field: .project), SortKey(field: .due)],
        [SortKey(field: .due), SortKey(field: .priority, descending: true)], [SortKey(field: .priority, descending: true), SortKey(field: .due)],
    ]

    static let filters: [TaskFilter] = [
        TaskFilter(done: true), TaskFilter(done: false), TaskFilter(blocked: true), TaskFilter(blocked: false),
        TaskFilter(waiting: true), TaskFilter(waiting: false), TaskFilter(dueBefore: "2026-12-14", dueAfter: "2026-12-11"),
        TaskFilter(dueAfter: "2026-12-12"), TaskFilter(done: false, blocked: true), TaskFilter(done: false, waiting: true),
        TaskFilter(done: false, blocked: false, waiting: false),
        // A sort led by project starts from the filter's bound or the cursor's (FetchPlan.projectStartBound).
        TaskFilter(project: "Home"), TaskFilter(done: false, project: "Home"),
        // The blocked tasks' own indexes (FetchPlan.BlockedIndex), with a project's range in them.
        TaskFilter(project: "Home", blocked: true),
        // And one led by due, or by priority then due, from the due filter's (FetchPlan.dueStartBound).
        TaskFilter(done: false, dueBefore: "2026-12-14", dueAfter: "2026-12-11"), TaskFilter(dueBefore: "2026-12-13"),
    ]

    /// `many`: most tasks are blocked, waiting and due in the window, and most are done;
    /// otherwise each of those is a small share, well under `fewTasks`.
    @Test(arguments: [true, false])
    func pagesAreTheOrderWhicheverWayTheyAreRead(many: Bool) async throws {
        let store = try makeStore(directory)
        let count = FetchPlan.fewTasks + 300
        let share = many ? 2 : 40
        var operations: [TaskOperation] = []
        for index in 0..<count {
            let id = "t\(String(index, radix: 16))"
            // Dependencies on the task before, which is open unless its number is a multiple of 3.
            let dependsOn = index % share == 1 ? ["t\(String(index - 1, radix: 16))"] : []
            let wait = index % share == 2 ? "2999-01-01" : index % share == 3 ? "2000-01-01" : nil
            let due = index % share == 4 || (many && index % 3 == 0) ? "2026-12-1\(index % 5)" : index % 7 == 0 ? "2026-12-0\(index % 9 + 1)" : nil
            let done = many ? index % 3 != 1 : index % 3 == 0
            operations.append(
                .create(
                    TaskDraft(
                        id: id, title: "Task \((index * 37) % 101)", done: done, priority: (index * 7) % 4, due: due,
                        project: [nil, "Home", "Home.Garage", "Work", "Home-x", "Alpha"][index % 6],
                        dependsOn: dependsOn, wait: wait)))
        }
        _ = try await store.apply(operations, atomic: true)
        let tasks = Array(try await store.fetch(TaskQuery(limit: TaskQuery.maxLimit)).tasks)
        #expect(tasks.count == count)

        for filter in Self.filters {
            let matching = try await matches(filter, among: tasks, store: store)
            for sort in Self.sorts {
                let expected = Self.ordered(matching, by: sort)
                var seen: [String] = []
                var cursor: String?
                repeat {
                    let page = try await store.fetch(TaskQuery(filter: filter, sort: sort, limit: 97, cursor: cursor, includeTotal: true))
                    #expect(page.total == expected.count, "\(filter) \(sort)")
                    seen += page.tasks.map(\.id)
                    cursor = page.nextCursor
                } while cursor != nil && seen.count <= count
                #expect(seen == expected, "\(filter) by \(sort)")
                // An offset skips across the runs a page is read from.
                for offset in [1, expected.count / 3, expected.count / 2, max(0, expected.count - 1), expected.count + 5] {
                    let window = try await store.fetch(TaskQuery(filter: filter, sort: sort, limit: 13, offset: offset))
                    #expect(window.tasks.map { $0.id } == Array(expected.dropFirst(offset).prefix(13)), "\(filter) by \(sort) from \(offset)")
                }
            }
        }
    }

    /// A tag, a project or a due window that holds more tasks than `fewTasks` but fewer than
    /// `smallSetLimit` (√(50 × the tasks)) is read and sorted, not checked along the sort's
    /// order: a project or a window also with a common tag under a sort by creation time,
    /// which the tag's taggings would otherwise drive.
    @Test func aTagProjectOrWindowOfAFewHundredIsReadAndSorted() async throws {
        let store = try makeStore(directory)
        let count = 12_000
        var operations: [TaskOperation] = []
        for index in 0..<count {
            let tags = (index % 2 == 0 ? ["common"] : []) + (index % 20 == 2 ? ["mid"] : [])
            let due = index % 20 == 0 ? "2026-12-11" : "2027-0\(1 + index % 9)-1\(index % 10)"
            let project = index % 20 == 1 ? "Mid" : "Other"
            operations.append(
                .create(
                    TaskDraft(
                        id: "t\(String(index, radix: 16))", title: "Task \((index * 37) % 101)", done: index % 3 == 0,
                        priority: (index * 7) % 4, tags: tags, due: due, project: project)))
        }
        _ = try await store.apply(operations, atomic: true)
        var tasks: [TaskItem] = []
        var cursor: String?
        repeat {
            let page = try await store.fetch(TaskQuery(limit: TaskQuery.maxLimit, cursor: cursor))
            tasks += page.tasks
            cursor = page.nextCursor
        } while cursor != nil
        #expect(tasks.count == count)
        let database = try Database(path: directory.file("tasks.sqlite"))
        let limit = try FetchPlan.smallSetLimit(in: database)
        #expect(limit > 600 && 600 > FetchPlan.fewTasks, "600 tasks each in Mid, on 2026-12-11 and tagged mid, between the two")
        let readSet = "task.pk IN (SELECT pk FROM task WHERE"
        let readTag = "task.pk IN (SELECT task_pk FROM task_tag WHERE tag = ?)"
        let byCreation = [SortKey(field: .createdAt)]
        let otherSorts = [[SortKey(field: .title)], [SortKey(field: .priority, descending: true)], [SortKey(field: .updatedAt, descending: true)]]
        let cases: [(TaskFilter, String, [[SortKey]])] = [
            (TaskFilter(project: "Mid"), readSet, [byCreation] + otherSorts),
            (TaskFilter(tags: ["common"], project: "Mid"), readSet, [byCreation] + otherSorts),
            (TaskFilter(dueBefore: "2026-12-12", dueAfter: "2026-12-11"), readSet, [byCreation] + otherSorts),
            (TaskFilter(tags: ["common"], dueBefore: "2026-12-12", dueAfter: "2026-12-11"), readSet, [byCreation] + otherSorts),
            (TaskFilter(tags: ["mid"]), readTag, otherSorts),
            (TaskFilter(tags: ["common", "mid"]), readTag, [byCreation] + otherSorts),
        ]
        for (filter, fragment, sorts) in cases {
            let matching = try await matches(filter, among: tasks, store: store)
            for sort in sorts {
                let plan = try FetchPlan(filter: filter, sort: sort, now: 1_800_000_000_000, database: database)
                let sql = plan.pageRuns(after: nil).map(\.sql).joined(separator: "; ")
                #expect(sql.contains(fragment), "\(filter) by \(sort): \(sql)")
                #expect(fragment == readTag || !sql.contains("task_tag.tag = ?"), "\(filter) by \(sort): \(sql)")
                let expected = Self.ordered(matching, by: sort)
                var seen: [String] = []
                var cursor: String?
                repeat {
                    let page = try await store.fetch(TaskQuery(filter: filter, sort: sort, limit: 97, cursor: cursor))
                    seen += page.tasks.map(\.id)
                    cursor = page.nextCursor
                } while cursor != nil && seen.count <= count
                #expect(seen == expected, "\(filter) by \(sort)")
            }
        }
    }

    /// Not blocked and not waiting, which most tasks are, are counted as all the tasks less
    /// the few: `next`'s filter is four terms, the open tasks less the open blocked and the
    /// open waiting, plus those both.
    @Test func aFilterOfMostTasksIsCountedAsAllLessTheFew() {
        let terms = TaskFilter(done: false, blocked: false, waiting: false).countTerms
        #expect(
            terms.map(\.filter) == [
                TaskFilter(done: false), TaskFilter(done: false, waiting: true),
                TaskFilter(done: false, blocked: true), TaskFilter(done: false, blocked: true, waiting: true),
            ])
        #expect(terms.map(\.sign) == [1, -1, -1, 1])
        #expect(TaskFilter(tags: ["x"], blocked: true).countTerms.map(\.filter) == [TaskFilter(tags: ["x"], blocked: true)])
    }

    /// Under any sort, `includeTotal` for not blocked or not waiting reads no task that is
    /// neither blocked nor waiting: each term's count is a kept count or a partial index's
    /// range (at a million tasks, checking every task took 169–260 ms).
    @Test func countsOfMostTasksReadOnlyTheFew() async throws {
        let store = try makeStore(directory)
        let operations = (0..<200).map { index in
            TaskOperation.create(
                TaskDraft(
                    id: "t\(index)", title: "Task \(index)", done: index % 3 == 0, dependsOn: index % 9 == 1 ? ["t\(index - 1)"] : [],
                    wait: index % 11 == 2 ? "2999-01-01" : nil))
        }
        _ = try await store.apply(operations, atomic: true)
        let database = try Database(path: directory.file("tasks.sqlite"))
        for filter in [
            TaskFilter(blocked: false), TaskFilter(waiting: false), TaskFilter(done: false, blocked: false),
            TaskFilter(done: true, waiting: false), TaskFilter(done: false, blocked: false, waiting: false),
        ] {
            for sort in [
                [SortKey(field: .createdAt)], [SortKey(field: .priority, descending: true), SortKey(field: .due)], [SortKey(field: .title)],
            ] {
                let plan = try FetchPlan(filter: filter, sort: sort, now: 1_800_000_000_000, database: database)
                for count in try plan.totalCounts(of: filter, now: 1_800_000_000_000, in: database) {
                    var steps: [String] = []
                    try database.cachedStatement("EXPLAIN QUERY PLAN " + count.sql).forEachRow(count.values) { steps.append($0.text(3)) }
                    let readsEveryTask = steps.contains {
                        ($0 == "SCAN task" || $0.hasPrefix("SCAN task ")) && !$0.contains("task_blocked") && !$0.contains("task_by_wait")
                    }
                    #expect(!readsEveryTask, "\(filter) by \(sort): \(count.sql) \(steps)")
                }
            }
            let total = try await store.fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true)).total
            #expect(total == (try await store.fetch(TaskQuery(filter: filter, limit: 500)).tasks.count), "\(filter)")
        }
    }

    /// A common tag's blocked or waiting tasks, by creation time, are read from the blocked or
    /// the waiting tasks' index with each one's tagging probed for, not through the tag's
    /// taggings: those are most of the tasks (at a million, a count through them took
    /// 140 ms, a `next` list's total for a tag 590 ms).
    @Test func aCommonTagsBlockedOrWaitingTasksAreReadFromTheFew() async throws {
        let store = try makeStore(directory)
        let count = FetchPlan.fewTasks + 100
        let operations = (0..<count).map { index in
            TaskOperation.create(
                TaskDraft(
                    id: "t\(index)", title: "Task \(index)", done: index % 3 == 0,
                    tags: index % 7 == 6 ? ["other"] : ["common"],
                    dependsOn: index % 9 == 1 ? ["t\(index - 1)"] : [], wait: index % 11 == 2 ? "2999-01-01" : nil))
        }
        _ = try await store.apply(operations, atomic: true)
        let tasks = Array(try await store.fetch(TaskQuery(limit: TaskQuery.maxLimit)).tasks)
        let byID = Dictionary(uniqueKeysWithValues: tasks.map { ($0.id, $0) })
        let database = try Database(path: directory.file("tasks.sqlite"))
        let now: Int64 = 1_800_000_000_000
        for filter in [
            TaskFilter(tags: ["common"], blocked: true), TaskFilter(tags: ["common"], waiting: true),
            TaskFilter(tags: ["common"], blocked: false), TaskFilter(done: false, tags: ["common"], blocked: false, waiting: false),
        ] {
            for descending in [false, true] {
                let sort = [SortKey(field: .createdAt, descending: descending)]
                let plan = try FetchPlan(filter: filter, sort: sort, now: now, database: database)
                var statements = try plan.totalCounts(of: filter, now: now, in: database).map { ($0.sql, $0.values) }
                if filter.blocked == true || filter.waiting == true {
                    statements += plan.pageRuns(after: nil).map { ($0.sql, $0.values + [.integer(51)]) }
                }
                for (sql, values) in statements where sql.contains("blocked_by > 0") || sql.contains("wait_at > ?") {
                    var steps: [String] = []
                    try database.cachedStatement("EXPLAIN QUERY PLAN " + sql).forEachRow(values) { steps.append($0.text(3)) }
                    // The tag only probed for, each task's, along the few.
                    #expect(
                        steps.allSatisfy { !$0.contains("task_tag") || $0.hasPrefix("SEARCH tagged USING PRIMARY KEY") }, "\(filter): \(sql) \(steps)"
                    )
                    #expect(steps.contains { $0.contains("task_blocked") || $0.contains("task_by_wait") }, "\(filter): \(sql) \(steps)")
                }
                let expected = tasks.filter { task in
                    let blocked = task.dependsOn.contains { byID[$0]?.done == false }
                    let waiting = task.wait != nil
                    return task.tags == ["common"] && (filter.done.map { task.done == $0 } ?? true)
                        && (filter.blocked.map { blocked == $0 } ?? true) && (filter.waiting.map { waiting == $0 } ?? true)
                }.map(\.id)
                let page = try await store.fetch(TaskQuery(filter: filter, sort: sort, limit: TaskQuery.maxLimit, includeTotal: true))
                #expect(page.total == expected.count, "\(filter)")
                #expect(page.tasks.map(\.id) == (descending ? expected.reversed() : expected), "\(filter) by \(sort)")
            }
        }
    }

    /// A rare text's few candidates are what a page and a count start from, whatever else
    /// the filter holds: a count of the open tasks with it read task_by_done's open tasks,
    /// and in creation order a tag's taggings drove the read (at a million, 250 and 110 ms
    /// a count against 10).
    @Test func aRareTextsCandidatesAreWhatACountStartsFrom() async throws {
        let store = try makeStore(directory)
        let count = FetchPlan.fewTasks + 100
        let operations = (0..<count).map { index in
            TaskOperation.create(
                TaskDraft(
                    id: "t\(index)", title: index % 10 == 3 ? "Find the needle \(index)" : "Task \(index)",
                    done: index % 3 == 0, tags: index % 8 == 7 ? ["common"] : ["common", "other"]))
        }
        _ = try await store.apply(operations, atomic: true)
        let tasks = Array(try await store.fetch(TaskQuery(limit: TaskQuery.maxLimit)).tasks)
        let database = try Database(path: directory.file("tasks.sqlite"))
        let now: Int64 = 1_800_000_000_000
        for filter in [
            TaskFilter(done: false, text: "needle"), TaskFilter(done: true, text: "needle"),
            TaskFilter(tags: ["common"], text: "needle"), TaskFilter(done: false, tags: ["common", "other"], text: "needle"),
        ] {
            for descending in [false, true] {
                let sort = [SortKey(field: .createdAt, descending: descending)]
                let plan = try FetchPlan(filter: filter, sort: sort, now: now, database: database)
                for count in try plan.totalCounts(of: filter, now: now, in: database) {
                    var steps: [String] = []
                    try database.cachedStatement("EXPLAIN QUERY PLAN " + count.sql).forEachRow(count.values) { steps.append($0.text(3)) }
                    #expect(steps.contains { $0.hasPrefix("SEARCH task USING INTEGER PRIMARY KEY") }, "\(filter): \(count.sql) \(steps)")
                    #expect(!steps.contains { $0.contains("task_by_done") || $0.contains("task_tag") }, "\(filter): \(count.sql) \(steps)")
                }
                let expected = tasks.filter { task in
                    task.title.contains("needle") && (filter.done.map { task.done == $0 } ?? true) && filter.tags.allSatisfy(task.tags.contains)
                }.map(\.id)
                let page = try await store.fetch(TaskQuery(filter: filter, sort: sort, limit: TaskQuery.maxLimit, includeTotal: true))
                #expect(page.total == expected.count, "\(filter)")
                #expect(page.tasks.map(\.id) == (descending ? expected.reversed() : expected), "\(filter) by \(sort)")
            }
        }
    }

    /// Counts read the indexes a page keeps out of its way: only a column's `+` comes off.
    @Test func countsTakeThePlusOffColumnsOnly() {
        #expect(
            FetchPlan.unplussed(" WHERE +done = ? AND (+task.wait_at IS NULL OR +task.wait_at <= ?) AND +task.x > 1 + 2")
                == " WHERE done = ? AND (task.wait_at IS NULL OR task.wait_at <= ?) AND task.x > 1 + 2")
    }

    /// The tasks `filter` matches, decided apart from SQL.
    func matches(_ filter: TaskFilter, among tasks: [TaskItem], store: TaskStore) async throws -> [TaskItem] {
        let byID = Dictionary(uniqueKeysWithValues: tasks.map { ($0.id, $0) })
        return tasks.filter { task in
            if let done = filter.done, task.done != done { return false }
            if !filter.tags.allSatisfy(task.tags.contains) { return false }
            if let project = filter.project, task.project != project && !(task.project?.hasPrefix(project + ".") ?? false) { return false }
            if let blocked = filter.blocked, task.dependsOn.contains(where: { byID[$0]?.done == false }) != blocked { return false }
            if let waiting = filter.waiting, (task.wait.map { $0 > "2026" } ?? false) != waiting { return false }
            if filter.dueAfter != nil || filter.dueBefore != nil {
                guard let due = task.due else { return false }
                if let after = filter.dueAfter, due < after { return false }
                if let before = filter.dueBefore, due >= before { return false }
            }
            return true
        }
    }

    /// `tasks` in the protocol's order for `sort`: undated and projectless tasks last in
    /// either direction, ties broken by id in the last key's direction. Every due date here
    /// is a date of the same month, so the texts order as the instants do.
    static func ordered(_ tasks: [TaskItem], by sort: [SortKey]) -> [String] {
        func compare<T: Comparable>(_ a: T?, _ b: T?, descending: Bool) -> Bool? {
            switch (a, b) {
            case (nil, nil): return nil
            case (nil, _): return false
            case (_, nil): return true
            case (let x?, let y?): return x == y ? nil : (x < y) != descending
            }
        }
        return tasks.sorted { a, b in
            for key in sort {
                let before: Bool? =
                    switch key.field {
                    case .createdAt: compare(a.createdAt, b.createdAt, descending: key.descending)
                    case .updatedAt: compare(a.updatedAt, b.updatedAt, descending: key.descending)
                    case .due: compare(a.due, b.due, descending: key.descending)
                    case .priority: compare(a.priority, b.priority, descending: key.descending)
                    case .title: compare(a.title.lowercased(), b.title.lowercased(), descending: key.descending)
                    case .project:
                        compare(
                            a.project.map { Array($0.unicodeScalars.map(\.value)) }.map(CodePoints.init),
                            b.project.map { Array($0.unicodeScalars.map(\.value)) }.map(CodePoints.init), descending: key.descending)
                    }
                if let before { return before }
            }
            return (a.id < b.id) != sort.last!.descending
        }.map(\.id)
    }

    struct CodePoints: Comparable {
        var values: [UInt32]
        init(_ values: [UInt32]) { self.values = values }
        static func < (a: Self, b: Self) -> Bool { a.values.lexicographicallyPrecedes(b.values) }
    }
}
