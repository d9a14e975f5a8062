import TaskModel
import TestSupport
import Testing

/// `importTasks` and `exportTasks` on each store: every field kept, the whole import or none
/// of it, and the conflict policies.
@Suite struct ImportContractTests {
    func task(_ id: String, _ title: String = "t", createdAt: Int64 = 1_000, version: Int64 = 1) -> TaskItem {
        TaskItem(id: id, title: title, tags: ["b", "a", "b"], createdAt: createdAt, updatedAt: createdAt + 5, version: version)
    }

    @Test(arguments: StoreKind.allCases)
    func importKeepsEveryFieldAndExportReadsItBack(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let summary = try await store.importTasks(
            [.task(task("b", createdAt: 2_000, version: 9), line: 1), .task(task("a"), line: 2)], onConflict: .fail,
            maxProblems: ImportFailure.detailedProblems)
        #expect(summary.inserted == 2)
        let tasks = try await store.exported()
        #expect(tasks.map(\.id) == ["a", "b"], "oldest first")
        #expect(tasks[1] == TaskItem(id: "b", title: "t", tags: ["a", "b"], createdAt: 2_000, updatedAt: 2_005, version: 9))
        #expect(try await store.changes(since: 0).changes.map(\.id) == ["b", "a"], "logged in input order")
    }

    @Test(arguments: StoreKind.allCases)
    func aBadRecordUndoesTheWholeImport(kind: StoreKind) async throws {
        let store = try openStore(kind)
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
        #expect(try await store.exported().map(\.id) == ["kept"])
        #expect(try await store.currentSeq() == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func conflictPolicies(kind: StoreKind) async throws {
        let store = try openStore(kind)
        _ = try await store.importTasks([.task(task("x", "first"), line: 1)], onConflict: .fail, maxProblems: ImportFailure.detailedProblems)
        let skipped = try await store.importTasks(
            [.task(task("x", "second"), line: 1)], onConflict: .skip, maxProblems: ImportFailure.detailedProblems)
        #expect(skipped.skipped == 1)
        #expect(try await store.get(id: "x").title == "first")
        let replaced = try await store.importTasks(
            [.task(task("x", "second", version: 4), line: 1)], onConflict: .replace, maxProblems: ImportFailure.detailedProblems)
        #expect(replaced.replaced == 1)
        #expect(try await store.get(id: "x") == TaskItem(id: "x", title: "second", tags: ["a", "b"], createdAt: 1_000, updatedAt: 1_005, version: 4))
        let again = try await store.importTasks(
            [.task(task("x", "second", version: 4), line: 1)], onConflict: .replace, maxProblems: ImportFailure.detailedProblems)
        #expect(again.unchanged == 1)
        #expect(try await store.currentSeq() == 2, "nothing written for an identical record")
    }

    /// A record that differs from its task in the tags alone, at the same version, is a
    /// change like any other: the log records it.
    @Test(arguments: StoreKind.allCases)
    func aReplaceOfTheTagsAloneIsLogged(kind: StoreKind) async throws {
        let store = try openStore(kind)
        _ = try await store.importTasks([.task(task("x"), line: 1)], onConflict: .fail, maxProblems: ImportFailure.detailedProblems)
        var retagged = task("x")
        retagged.tags = ["c"]
        let replaced = try await store.importTasks([.task(retagged, line: 1)], onConflict: .replace, maxProblems: ImportFailure.detailedProblems)
        #expect(replaced.replaced == 1)
        #expect(try await store.get(id: "x").tags == ["c"])
        #expect(try await store.currentSeq() == 2)
    }
}
