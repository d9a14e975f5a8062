import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// Projects, dependencies and wait times in the SQLite store: the indexes its plans read, and
/// what its check finds (what the store keeps, refuses, filters and sorts by is
/// ProjectDependencyContractTests').
@Suite struct ProjectDependencyTests {
    let directory = TemporaryDirectory()

    func create(
        _ store: TaskStore, _ id: String, project: String? = nil, dependsOn: [String] = [], wait: String? = nil,
        priority: Int = 0
    ) async throws {
        _ = try await store.create(TaskDraft(id: id, title: id, priority: priority, project: project, dependsOn: dependsOn, wait: wait))
    }

    /// The plans: a rare project starts from task_by_project; the blocked and the waiting
    /// tasks are read in page order from their partial indexes, nothing sorted; a sort by
    /// project reads task_by_project in order.
    @Test func filtersAndTheProjectSortUseTheirIndexes() async throws {
        let store = try makeStore(directory)
        try await create(store, "a", project: "Home")
        try await create(store, "b", dependsOn: ["a"], wait: "2999-01-01")
        let database = try Database(path: directory.file("tasks.sqlite"))
        for (filter, index) in [
            (TaskFilter(project: "Home"), "task_by_project"), (TaskFilter(blocked: true), "task_blocked"),
            (TaskFilter(waiting: true), "task_by_wait"),
        ] {
            let plan = try FetchPlan(filter: filter, sort: [SortKey(field: .createdAt)], now: 0, database: database)
            let steps = try queryPlan(plan.pageRuns(after: nil)[0], in: database)
            #expect(steps.contains { $0.contains(index) }, "\(steps)")
            if filter.project == nil {
                #expect(steps.filter { $0.contains(index) }.count == 2, "both runs of the merge: \(steps)")
                #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(steps)")
            }
        }
        for descending in [false, true] {
            let plan = try FetchPlan(filter: TaskFilter(), sort: [SortKey(field: .project, descending: descending)], now: 0, database: database)
            let runs = plan.pageRuns(after: nil)
            #expect(runs.count == 2)
            let steps = try queryPlan(runs[0], in: database)
            #expect(steps.contains { $0.contains("task_by_project") }, "\(steps)")
            #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(steps)")
        }
        // By project and due date, each way, the tasks with a project are read in order.
        for (descending, index) in [(false, "task_by_project_due_asc"), (true, "task_by_project_due_desc")] {
            let sort = [SortKey(field: .project, descending: descending), SortKey(field: .due, descending: descending)]
            for filter in [TaskFilter(), TaskFilter(blocked: false)] {
                let plan = try FetchPlan(filter: filter, sort: sort, now: 0, database: database)
                let steps = try queryPlan(plan.pageRuns(after: nil)[0], in: database)
                #expect(steps.contains { $0.contains(index) }, "\(steps)")
                #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(steps)")
            }
        }
        _ = store
    }

    /// More waiting tasks than are read from an index and sorted: a page of them by due
    /// date (or by priority, then due date) walks task_waiting_by_due, in order, not every
    /// task along task_by_due_asc.
    @Test func waitingTasksByDueDateAreReadFromTheirOwnIndex() async throws {
        let store = try makeStore(directory)
        let waiting = FetchPlan.fewTasks + 8
        _ = try await store.apply(
            (0..<waiting + 40).map { index in
                .create(
                    TaskDraft(
                        title: "t\(index)", due: index % 3 == 0 ? nil : "2027-01-\(index % 20 + 10)",
                        wait: index < waiting ? "2999-01-01" : nil))
            }, atomic: true)
        let database = try Database(path: directory.file("tasks.sqlite"))
        for sort in [
            [SortKey(field: .due)], [SortKey(field: .due, descending: true)],
            [SortKey(field: .priority), SortKey(field: .due)], [SortKey(field: .priority, descending: true), SortKey(field: .due, descending: true)],
        ] {
            let plan = try FetchPlan(filter: TaskFilter(waiting: true), sort: sort, now: 0, database: database)
            let steps = try queryPlan(plan.pageRuns(after: nil)[0], in: database)
            #expect(steps.contains { $0.contains("task_waiting_by_due") }, "\(sort): \(steps)")
            #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(sort): \(steps)")
        }
        _ = store
    }

    /// More waiting tasks than are read from an index and sorted: a page of them by project,
    /// or by project then due date, each way, walks the waiting tasks' project indexes, for
    /// those with a project and those without, not every task along task_by_project.
    @Test func waitingTasksByProjectAreReadFromTheirOwnIndexes() async throws {
        let store = try makeStore(directory)
        let waiting = FetchPlan.fewTasks + 8
        let drafts = (0..<waiting + 40).map { (index: Int) -> TaskOperation in
            let due: String? = index % 3 == 0 ? nil : "2027-01-\(index % 20 + 10)"
            let project: String? = index % 5 == 0 ? nil : "P\(index % 7)"
            let wait: String? = index < waiting ? "2999-01-01" : nil
            return .create(TaskDraft(title: "t\(index)", due: due, project: project, wait: wait))
        }
        _ = try await store.apply(drafts, atomic: true)
        let database = try Database(path: directory.file("tasks.sqlite"))
        for sort in [
            [SortKey(field: .project)], [SortKey(field: .project, descending: true)],
            [SortKey(field: .project), SortKey(field: .due)], [SortKey(field: .project, descending: true), SortKey(field: .due, descending: true)],
        ] {
            for filter in [TaskFilter(waiting: true), TaskFilter(done: false, waiting: true)] {
                let plan = try FetchPlan(filter: filter, sort: sort, now: 0, database: database)
                for run in plan.pageRuns(after: nil) {
                    let steps = try queryPlan(run, in: database)
                    #expect(steps.contains { $0.contains("task_waiting_by_project") }, "\(sort): \(steps)")
                    #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(sort): \(steps)")
                }
            }
        }
        _ = store
    }

    /// A store with more blocked tasks than are read from an index and sorted (and 40 that
    /// are not), a quarter of each priority, a third undated and a quarter without a project;
    /// returns how many are blocked.
    func storeWithManyBlockedTasks() async throws -> (TaskStore, Int) {
        let store = try makeStore(directory)
        let blocked = FetchPlan.fewTasks + 8
        _ = try await store.create(TaskDraft(id: "open", title: "open"))
        _ = try await store.apply(
            (0..<blocked + 40).map { (index: Int) -> TaskOperation in
                let due: String? = index % 3 == 0 ? nil : "2027-01-\(index % 20 + 10)"
                let project: String? = index % 4 == 1 ? nil : "P\(index % 5)"
                return .create(
                    TaskDraft(
                        title: "t\(index)", priority: index % 4, due: due, project: project,
                        dependsOn: index < blocked ? ["open"] : []))
            }, atomic: true)
        return (store, blocked)
    }

    /// More blocked tasks than are read from an index and sorted: a page of them by
    /// priority, then due date, each way, walks task_blocked_by_priority_due, a run per
    /// priority, in order, not every task of a priority along task_by_due_asc.
    @Test func blockedTasksByPriorityThenDueAreReadFromTheirOwnIndex() async throws {
        let (store, _) = try await storeWithManyBlockedTasks()
        let database = try Database(path: directory.file("tasks.sqlite"))
        for sort in [
            [SortKey(field: .priority), SortKey(field: .due)], [SortKey(field: .priority, descending: true), SortKey(field: .due, descending: true)],
        ] {
            let plan = try FetchPlan(filter: TaskFilter(blocked: true), sort: sort, now: 0, database: database)
            try expectRuns(of: plan, after: [nil], readFrom: "task_blocked_by_priority_due", in: database)
        }
        _ = store
    }

    /// Expects every run of `plan`'s page after each of `cursors` to be read from `index`,
    /// in its order: no sort of SQLite's own.
    func expectRuns(of plan: FetchPlan, after cursors: [Cursor?], readFrom index: String, in database: Database) throws {
        for cursor in cursors {
            for run in plan.pageRuns(after: cursor) {
                let steps = try queryPlan(run, in: database)
                #expect(steps.contains { $0.split(separator: " ").contains(Substring(index)) }, "\(plan.signature): \(steps)")
                #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(plan.signature): \(steps)")
            }
        }
    }

    /// More blocked tasks than are read from an index and sorted: a page of them by due
    /// date, then priority, each way, first or after a cursor in either run (the dated tasks,
    /// the undated ones), is a range of task_blocked_by_due_priority in order, not every
    /// task along task_by_due_asc.
    @Test func blockedTasksByDueThenPriorityAreReadFromTheirOwnIndex() async throws {
        let (store, blocked) = try await storeWithManyBlockedTasks()
        let database = try Database(path: directory.file("tasks.sqlite"))
        for sort in [
            [SortKey(field: .due), SortKey(field: .priority)], [SortKey(field: .due, descending: true), SortKey(field: .priority, descending: true)],
        ] {
            for filter in [TaskFilter(blocked: true), TaskFilter(done: false, blocked: true)] {
                let plan = try FetchPlan(filter: filter, sort: sort, now: 0, database: database)
                let dated = try await store.fetch(TaskQuery(filter: filter, sort: sort, limit: 5)).nextCursor
                let undated = try await store.fetch(TaskQuery(filter: filter, sort: sort, limit: 5, offset: blocked - 20)).nextCursor
                for cursor in [nil, dated, undated] {
                    #expect(plan.pageRuns(after: cursor.flatMap(Cursor.init(encoded:))).count == (cursor == undated ? 1 : 2), "\(sort)")
                }
                try expectRuns(
                    of: plan, after: [nil, dated, undated].map { $0.flatMap(Cursor.init(encoded:)) },
                    readFrom: "task_blocked_by_due_priority", in: database)
            }
        }
        _ = store
    }

    /// More blocked tasks than are read from an index and sorted: a page of them by due date,
    /// by project, and by project then due date, each way, first or after a cursor in each run (the
    /// dated tasks and the undated ones; those with a project and those without), is a range
    /// of the blocked tasks' own index in order, not every task along the sort's own index.
    @Test func blockedTasksByDueAndByProjectThenDueAreReadFromTheirOwnIndexes() async throws {
        let (store, blocked) = try await storeWithManyBlockedTasks()
        let database = try Database(path: directory.file("tasks.sqlite"))
        let indexes: [([SortKey], String)] = [
            ([SortKey(field: .due)], "task_blocked_by_due"),
            ([SortKey(field: .due, descending: true)], "task_blocked_by_due"),
            ([SortKey(field: .project), SortKey(field: .due)], "task_blocked_by_project_due_asc"),
            ([SortKey(field: .project, descending: true), SortKey(field: .due, descending: true)], "task_blocked_by_project_due_desc"),
            ([SortKey(field: .project)], "task_blocked_by_project"),
            ([SortKey(field: .project, descending: true)], "task_blocked_by_project"),
        ]
        for (sort, index) in indexes {
            for filter in [TaskFilter(blocked: true), TaskFilter(done: false, blocked: true)] {
                let plan = try FetchPlan(filter: filter, sort: sort, now: 0, database: database)
                var cursors: [Cursor?] = [nil]
                for offset in [5, blocked / 2, blocked - 20] {
                    let page = try await store.fetch(TaskQuery(filter: filter, sort: sort, limit: 5, offset: offset))
                    let cursor = try #require(page.nextCursor.flatMap(Cursor.init(encoded:)))
                    cursors.append(cursor)
                }
                try expectRuns(of: plan, after: cursors, readFrom: index, in: database)
            }
        }
        _ = store
    }

    /// Tasks with two tags too common to be read from the taggings and sorted: a page of
    /// them by priority, then due date, each way, first or after a cursor among a
    /// priority's dated or undated tasks, is two runs per priority, each in order: its dated
    /// tasks a range of task_dated_by_priority_due, its undated ones of task_by_priority;
    /// not every priority's tasks along task_by_due_asc. Its tasks are those of the sort.
    @Test func tasksByPriorityThenDueAreReadFromThePriorityIndexes() async throws {
        let store = try makeStore(directory)
        let common = FetchPlan.fewTasks + 8
        _ = try await store.apply(
            (0..<common + 40).map { index in
                .create(
                    TaskDraft(
                        title: "t\(index)", priority: index % 4, tags: index < common ? ["a", "b"] : [],
                        due: index % 3 == 0 ? nil : "2027-01-\(index % 20 + 10)"))
            }, atomic: true)
        let database = try Database(path: directory.file("tasks.sqlite"))
        let all = try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["a", "b"]), limit: 1000)).tasks
        #expect(all.count == common)
        for sort in [
            [SortKey(field: .priority), SortKey(field: .due)], [SortKey(field: .priority, descending: true), SortKey(field: .due, descending: true)],
        ] {
            let filter = TaskFilter(tags: ["a", "b"])
            let plan = try FetchPlan(filter: filter, sort: sort, now: 0, database: database)
            // Cursors at the second priority's first task, which is dated, and at its last
            // but one, which is not.
            let (first, second) = sort[0].descending ? (3, 2) : (0, 1)
            let ofFirst = all.filter { $0.priority == first }.count
            let ofSecond = all.filter { $0.priority == second }.count
            let dated = try await store.fetch(TaskQuery(filter: filter, sort: sort, limit: ofFirst + 1)).nextCursor
            let undated = try await store.fetch(TaskQuery(filter: filter, sort: sort, limit: ofFirst + ofSecond - 1)).nextCursor
            for (cursor, runs) in zip([nil, dated, undated].map({ $0.flatMap(Cursor.init(encoded:)) }), [8, 6, 5]) {
                #expect(plan.pageRuns(after: cursor).count == runs, "\(sort)")
                for run in plan.pageRuns(after: cursor) {
                    let steps = try queryPlan(run, in: database)
                    let index =
                        run.clauses.contains(Schema.undatedClause) || run.clauses.contains("+" + Schema.undatedClause)
                        ? "task_by_priority" : "task_dated_by_priority_due"
                    #expect(steps.contains { $0.split(separator: " ").contains(Substring(index)) }, "\(sort): \(steps)")
                    #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(sort): \(steps)")
                }
            }
            var paged: [TaskItem] = []
            var cursor: String?
            repeat {
                let page = try await store.fetch(TaskQuery(filter: filter, sort: sort, limit: 7, cursor: cursor))
                paged += page.tasks
                cursor = page.nextCursor
            } while cursor != nil
            // The undated tasks last, either way.
            let expected = all.sorted { a, b in
                if a.priority != b.priority { return sort[0].descending ? a.priority > b.priority : a.priority < b.priority }
                if a.due != b.due {
                    guard let dueA = a.due else { return false }
                    guard let dueB = b.due else { return true }
                    return sort[1].descending ? dueA > dueB : dueA < dueB
                }
                return sort[1].descending ? a.id > b.id : a.id < b.id
            }
            #expect(paged.map(\.id) == expected.map(\.id), "\(sort)")
        }
        _ = store
    }

    @Test func theCheckFindsBrokenCopiesAndCycles() async throws {
        let store = try makeStore(directory)
        try await create(store, "a")
        try await create(store, "b", dependsOn: ["a"])
        let path = directory.file("tasks.sqlite")
        #expect(try TaskStore.check(path: path).isSound)
        let database = try Database(path: path)
        try database.execute(
            """
            INSERT INTO task_dependency (task_pk, depends_on_pk) SELECT a.pk, b.pk FROM task a, task b WHERE a.id = 'a' AND b.id = 'b';
            UPDATE task SET meta = '[1]', wait = 'soon' WHERE id = 'a';
            """)
        let problems = try TaskStore.check(path: path).ruleProblems
        #expect(problems.contains("task a: meta is not a JSON object"), "\(problems)")
        #expect(problems.contains { $0.hasPrefix("task a: wait ") }, "\(problems)")
        #expect(problems.contains("task a: its dependencies lead back to it (a dependency cycle)"), "\(problems)")
        #expect(problems.contains("task b: its dependencies lead back to it (a dependency cycle)"), "\(problems)")
        _ = store
    }
}
