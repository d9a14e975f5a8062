import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// The store side of the operating commands: import and export.
@Suite struct OperationsStoreTests {
    let directory = TemporaryDirectory()

    func task(_ id: String, _ title: String = "t", createdAt: Int64 = 1_000, version: Int64 = 1) -> TaskItem {
        TaskItem(id: id, title: title, tags: ["b", "a", "b"], createdAt: createdAt, updatedAt: createdAt + 5, version: version)
    }

    func exported(_ store: isolated TaskStore) throws -> [TaskItem] {
        var tasks: [TaskItem] = []
        try store.exportTasks { tasks.append(contentsOf: $0) }
        return tasks
    }

    func pragma(_ name: String, _ store: isolated TaskStore) throws -> Int64? {
        try store.database.integer("PRAGMA \(name)")
    }

    @Test func importKeepsEveryFieldAndExportReadsItBack() async throws {
        let store = try makeStore(directory)
        let summary = try await store.importTasks(
            [.task(task("b", createdAt: 2_000, version: 9), line: 1), .task(task("a"), line: 2)],
            onConflict: .fail)
        #expect(summary.inserted == 2)
        let tasks = try await exported(store)
        #expect(tasks.map(\.id) == ["a", "b"], "oldest first")
        #expect(tasks[1] == TaskItem(id: "b", title: "t", tags: ["a", "b"], createdAt: 2_000, updatedAt: 2_005, version: 9))
        #expect(try await store.changes(since: 0).changes.map(\.id) == ["b", "a"], "logged in input order")
    }

    /// The log takes a creation's time from the task's updatedAt, which a write sets to its
    /// own time; an imported task keeps its own, so the import sets its changes' time.
    @Test func anImportIsLoggedAtItsOwnTime() async throws {
        let clock = ManualClock()
        let store = try makeStore(directory, clock: clock)
        let created = try await store.add("created")
        #expect(try await store.loggedChanges(of: created.id).map(\.at) == [created.updatedAt])
        clock.set(1_790_000_000_000)
        _ = try await store.importTasks([.task(task("old", createdAt: 2_000), line: 1)], onConflict: .fail)
        let at = try #require(try await store.loggedChanges(of: "old").first?.at)
        #expect(at > 1_790_000_000_000 && at < 1_790_000_001_000, "the import's time, not the task's (2,005)")
        #expect(try await store.loggedChanges(of: created.id).map(\.at) == [created.updatedAt], "earlier changes keep theirs")
    }

    @Test func aBadRecordUndoesTheWholeImport() async throws {
        let store = try makeStore(directory)
        try await store.add("kept", id: "kept")
        var bad = task("x")
        bad.done = true  // and no completedAt
        let records: [ImportRecord] = [
            .task(task("new-1"), line: 1),
            .task(bad, line: 2),
            .invalid(ImportProblem(line: 3, field: "", reason: "not valid JSON")),
            .task(task("kept"), line: 4),
            .task(task("new-1"), line: 5),
        ]
        do {
            _ = try await store.importTasks(records, onConflict: .fail, maxProblems: 3)
            Issue.record("the import should fail")
        } catch let failure as ImportFailure {
            #expect(failure.count == 4)
            #expect(
                failure.problems.map(\.description) == [
                    "line 2: completedAt must be set when done is true",
                    "line 3: not valid JSON",
                    "line 4: id kept is the id of an existing task",
                ])
        }
        #expect(try await exported(store).map(\.id) == ["kept"])
        #expect(try await store.currentSeq() == 1)
        // The bulk setting is undone.
        #expect(try await pragma("cache_size", store) == -8192)
        #expect(try await pragma("temp_store", store) == 1)  // FILE, as every connection has it
    }

    @Test func conflictPolicies() async throws {
        let store = try makeStore(directory)
        _ = try await store.importTasks([.task(task("x", "first"), line: 1)], onConflict: .fail)
        let skipped = try await store.importTasks([.task(task("x", "second"), line: 1)], onConflict: .skip)
        #expect(skipped.skipped == 1)
        #expect(try await store.get(id: "x").title == "first")
        let replaced = try await store.importTasks([.task(task("x", "second", version: 4), line: 1)], onConflict: .replace)
        #expect(replaced.replaced == 1)
        #expect(try await store.get(id: "x") == TaskItem(id: "x", title: "second", tags: ["a", "b"], createdAt: 1_000, updatedAt: 1_005, version: 4))
        let again = try await store.importTasks([.task(task("x", "second", version: 4), line: 1)], onConflict: .replace)
        #expect(again.unchanged == 1)
        #expect(try await store.currentSeq() == 2, "nothing written for an identical record")
    }

    /// A record that differs from its task in the tags alone, at the same version, is a
    /// change like any other: the log records it, though the row's other columns stay.
    @Test func aReplaceOfTheTagsAloneIsLogged() async throws {
        let store = try makeStore(directory)
        _ = try await store.importTasks([.task(task("x"), line: 1)], onConflict: .fail)
        var retagged = task("x")
        retagged.tags = ["c"]
        let replaced = try await store.importTasks([.task(retagged, line: 1)], onConflict: .replace)
        #expect(replaced.replaced == 1)
        #expect(try await store.get(id: "x").tags == ["c"])
        #expect(try await store.currentSeq() == 2)
    }
}
