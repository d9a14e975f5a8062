import TaskModel
import TestSupport
import Testing

/// Projects, dependencies, wait times and meta on each store: what it keeps, refuses,
/// filters and sorts by.
@Suite struct ProjectDependencyContractTests {
    func create(
        _ store: any TaskStoring, _ id: String, project: String? = nil, dependsOn: [String] = [], wait: String? = nil,
        priority: Int = 0
    ) async throws {
        _ = try await store.create(TaskDraft(id: id, title: id, priority: priority, project: project, dependsOn: dependsOn, wait: wait))
    }

    @Test(arguments: StoreKind.allCases, [false, true])
    func theProjectFilterMatchesTheProjectAndWhatIsUnderIt(kind: StoreKind, common: Bool) async throws {
        let store = try openStore(kind)
        for (id, project) in [
            ("a", "Home"), ("b", "Home.Garage"), ("c", "Homework"), ("d", "Home-x"), ("e", "Home.Garage.Shelf"),
            ("f", "Ho"), ("g", "Work.Home"),
        ] {
            try await create(store, id, project: project)
        }
        if common {
            // Past a few tasks (512, the SQLite store's `FetchPlan.fewTasks`), tasks are
            // checked along the sort order instead of read from the index.
            let many = (0..<600).map { TaskOperation.create(TaskDraft(id: "z\($0)", title: "z", project: "Home.Bulk")) }
            _ = try await store.apply(many, atomic: true)
        }
        let found = try await store.fetch(TaskQuery(filter: TaskFilter(project: "Home"), limit: 1000)).tasks.map(\.id).filter { !$0.hasPrefix("z") }
        #expect(found == ["a", "b", "e"])
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(project: "Home.Garage"))).tasks.map(\.id) == ["b", "e"])
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(project: "Hom"))).tasks.isEmpty)
        #expect(await invalidField { _ = try await store.fetch(TaskQuery(filter: TaskFilter(project: "Home."))) } == "filter.project")
    }

    @Test(
        arguments: StoreKind.allCases,
        [
            [SortKey(field: .project)],
            [SortKey(field: .project, descending: true)],
            [SortKey(field: .priority), SortKey(field: .project)],
            [SortKey(field: .priority, descending: true), SortKey(field: .project, descending: true)],
            [SortKey(field: .project), SortKey(field: .priority, descending: true)],
        ])
    func pagesByProjectPutTheTasksWithoutOneLastAndNeverSkipOrRepeat(kind: StoreKind, sort: [SortKey]) async throws {
        let store = try openStore(kind)
        var tasks: [(id: String, project: String?, priority: Int)] = []
        for index in 0..<24 {
            let project: String? = index % 3 == 0 ? nil : ["Home", "Home.Garage", "Work", "Alpha"][index % 4]
            let id = "t\(String(index * 7 % 24, radix: 16))"
            tasks.append((id, project, index % 2))
            try await create(store, id, project: project, priority: index % 2)
        }
        func before(_ a: (id: String, project: String?, priority: Int), _ b: (id: String, project: String?, priority: Int)) -> Bool {
            for key in sort {
                switch key.field {
                case .priority where a.priority != b.priority: return (a.priority < b.priority) != key.descending
                case .project where a.project != b.project:
                    guard let x = a.project else { return false }
                    guard let y = b.project else { return true }
                    return (x < y) != key.descending
                default: continue
                }
            }
            return (a.id < b.id) != sort.last!.descending
        }
        let expected = tasks.sorted(by: before).map(\.id)
        for limit in [1, 4, 7] {
            #expect(try await store.idsPagedByCursor(sort: sort, limit: limit, atMost: expected.count) == expected, "limit \(limit)")
        }
        for offset in [0, 10, 15, 16, 20] {
            let window = try await store.fetch(TaskQuery(sort: sort, limit: 5, offset: offset))
            #expect(window.tasks.map(\.id) == Array(expected.dropFirst(offset).prefix(5)), "offset \(offset)")
        }
        let home = try await store.fetch(TaskQuery(filter: TaskFilter(project: "Home"), sort: sort, limit: 100)).tasks.map(\.id)
        #expect(home == expected.filter { id in tasks.first { $0.id == id }!.project?.hasPrefix("Home") ?? false })
    }

    @Test(arguments: StoreKind.allCases)
    func unknownDependenciesAndCyclesAreRefused(kind: StoreKind) async throws {
        let store = try openStore(kind)
        try await create(store, "a")
        try await create(store, "b", dependsOn: ["a"])
        try await create(store, "c", dependsOn: ["b"])
        #expect(await invalidField { try await create(store, "x", dependsOn: ["a", "b", "nope"]) } == "dependsOn[2]")
        #expect(await invalidField { _ = try await store.update(id: "a", changes: TaskChanges(dependsOn: ["nope"])) } == "changes.dependsOn[0]")
        await #expect(throws: TaskStoreError.dependencyCycle(ids: ["x"])) { try await create(store, "x", dependsOn: ["x"]) }
        await #expect(throws: TaskStoreError.dependencyCycle(ids: ["a"])) {
            _ = try await store.update(id: "a", changes: TaskChanges(dependsOn: ["a"]))
        }
        await #expect(throws: TaskStoreError.dependencyCycle(ids: ["a", "c", "b"])) {
            _ = try await store.update(id: "a", changes: TaskChanges(dependsOn: ["c"]))
        }
        #expect(try await store.get(id: "a").dependsOn == [])
        // In an apply, the error names its operation.
        let results = try await store.apply([.update(id: "a", changes: TaskChanges(dependsOn: ["b", "gone"]), ifVersion: nil)], atomic: false)
        guard case .failure(.invalid(let field, _)) = results[0] else {
            Issue.record("\(results)")
            return
        }
        #expect(field == "operations[0].update.changes.dependsOn[1]")
    }

    @Test(arguments: StoreKind.allCases)
    func deletingATaskTakesItOutOfItsDependentsInTheSameWrite(kind: StoreKind) async throws {
        let store = try openStore(kind)
        try await create(store, "a")
        try await create(store, "z")
        try await create(store, "b", dependsOn: ["a", "z"])
        try await create(store, "c", dependsOn: ["a"])
        let outcome = try await store.perform(.delete(id: "a", ifVersion: nil))
        #expect(outcome.changes.map(\.kind) == [.updated, .updated, .deleted])
        #expect(outcome.changes.map(\.id) == ["b", "c", "a"])
        #expect(outcome.changes.map(\.seq) == outcome.changes.map(\.seq).sorted())
        #expect(outcome.otherChanges.map { $0.task!.dependsOn } == [["z"], []])
        #expect(try await store.get(id: "b").version == 2)
        #expect(try await store.get(id: "b").dependsOn == ["z"])
        let logged = try await store.changes(since: outcome.changes[0].seq - 1)
        #expect(logged.changes.map(\.id) == ["b", "c", "a"])
    }

    @Test(arguments: StoreKind.allCases)
    func blockedFollowsTheDependenciesDoneState(kind: StoreKind) async throws {
        let database = try StoreUnderTest(kind)
        let store = try database.open()
        try await create(store, "a")
        try await create(store, "b", dependsOn: ["a"])
        try await create(store, "c")
        func blocked(_ value: Bool) async throws -> [String] {
            try await store.fetch(TaskQuery(filter: TaskFilter(blocked: value))).tasks.map(\.id)
        }
        #expect(try await blocked(true) == ["b"])
        #expect(try await blocked(false) == ["a", "c"])
        _ = try await store.update(id: "a", changes: TaskChanges(done: true))
        #expect(try await blocked(true) == [])
        _ = try await store.update(id: "a", changes: TaskChanges(done: false))
        _ = try await store.update(id: "c", changes: TaskChanges(dependsOn: ["a", "b"]))
        #expect(try await blocked(true) == ["b", "c"])
        _ = try await store.update(id: "c", changes: TaskChanges(dependsOn: []))
        #expect(try await blocked(true) == ["b"])
        #expect(try database.check().isSound)
    }

    @Test(arguments: StoreKind.allCases)
    func waitingIsJudgedByTheStoresClock(kind: StoreKind) async throws {
        let clock = ManualClock(Timestamp.parse("2026-06-01T00:00:00Z")!)
        let store = try openStore(kind, clock: clock)
        try await create(store, "a", wait: "2026-06-02")
        try await create(store, "b", wait: "2026-05-01T00:00:00+02:00")
        try await create(store, "c")
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(waiting: true))).tasks.map(\.id) == ["a"])
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(waiting: false))).tasks.map(\.id) == ["b", "c"])
        clock.set(Timestamp.parse("2026-06-02T00:00:01Z")!)
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(waiting: true))).tasks.isEmpty)
        #expect(await invalidField { try await create(store, "x", wait: "tomorrow") } == "wait")
        _ = try await store.update(id: "a", changes: TaskChanges(wait: .some(nil)))
        #expect(try await store.get(id: "a").wait == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func projectsAndMetaAreCheckedAndKeptExactly(kind: StoreKind) async throws {
        let store = try openStore(kind)
        for bad in [
            "", "Home..Garage", ".Home", "Home.", "Home Garage", "a\u{7}", String(repeating: "x", count: 65),
            (1...9).map(String.init).joined(separator: "."), String(repeating: "abcdefgh.", count: 28) + "x",
        ] {
            #expect(await invalidField { try await create(store, "x", project: bad) } == "project", "\(bad)")
        }
        let meta = #"{"b":1.50,"a":[true,null,"e\u0301"],"é":{}}"#
        let task = try await store.create(TaskDraft(id: "m", title: "m", meta: meta)).value
        #expect(try await store.get(id: "m").meta.utf8.elementsEqual(meta.utf8))
        #expect(task.meta == meta)
        let large = "{\"x\":\"" + String(repeating: "y", count: TaskRules.maxMetaSize) + "\"}"
        #expect(await invalidField { _ = try await store.create(TaskDraft(title: "m", meta: large)) } == "meta")
        let cleared = try await store.update(id: "m", changes: TaskChanges(project: .some("Home"), meta: TaskItem.emptyMeta)).value
        #expect(cleared.meta == "{}")
        #expect(cleared.project == "Home")
        #expect(try await store.update(id: "m", changes: TaskChanges(project: .some(nil))).value.project == nil)
    }
}
