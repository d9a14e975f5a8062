import TaskModel
import TestSupport
import Testing

/// The counts a store keeps (of tasks, projects, tags, blockers) after each kind of write,
/// as `taskline check` reads them and as `includeTotal` answers from them.
@Suite struct CountContractTests {
    @Test(arguments: StoreKind.allCases)
    func everyWritePathKeepsTheCounts(kind: StoreKind) async throws {
        let database = try StoreUnderTest(kind)
        let store = try database.open()
        func expectCounted(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let report = try database.check()
            #expect(report.ruleProblems == [] && report.isSound, "after \(step)", sourceLocation: sourceLocation)
            for filter in [
                TaskFilter(done: true), TaskFilter(done: false), TaskFilter(), TaskFilter(tags: ["a"]), TaskFilter(tags: ["r"]),
                TaskFilter(tags: ["nothing"]), TaskFilter(done: false, tags: ["a"]), TaskFilter(done: true, tags: ["r"]),
                TaskFilter(tags: ["a", "i"]), TaskFilter(project: "Home"), TaskFilter(project: "Work"), TaskFilter(project: "Import"),
                TaskFilter(done: false, project: "Home"), TaskFilter(done: true, project: "Work"), TaskFilter(blocked: true),
                TaskFilter(done: false, blocked: false),
            ] {
                let total = try await store.fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true)).total
                let tasks = try await store.fetch(TaskQuery(filter: filter, limit: 1000)).tasks.count
                #expect(total == tasks, "after \(step): \(filter)", sourceLocation: sourceLocation)
            }
        }

        let home = try await store.create(TaskDraft(id: "home", title: "Home", tags: ["a", "b"], project: "Home")).value
        _ = try await store.create(TaskDraft(id: "garage", title: "Garage", done: true, tags: ["a"], project: "Home.Garage"))
        _ = try await store.create(TaskDraft(id: "after", title: "After", dependsOn: ["home"]))
        try await expectCounted("creates")
        _ = try await store.update(id: home.id, changes: TaskChanges(done: true))
        try await expectCounted("completing")
        _ = try await store.update(id: home.id, changes: TaskChanges(done: false, tags: ["c"], project: .some("Work")))
        try await expectCounted("reopening, new tags, another project")
        _ = try await store.update(id: home.id, changes: TaskChanges(project: .some(nil)))
        try await expectCounted("the project taken away")
        _ = try await store.delete(id: "home")
        try await expectCounted("a delete (and its dependent's update)")

        let failing: [TaskOperation] = [
            .create(TaskDraft(id: "kept", title: "Kept", tags: ["a"], project: "Home")),
            .update(id: "garage", changes: TaskChanges(done: false, project: .some("Work")), ifVersion: nil),
            .update(id: "missing", changes: TaskChanges(title: "x"), ifVersion: nil),
            // Written, then refused (a cycle): rolled back to its savepoint, with its counts.
            .update(id: "after", changes: TaskChanges(done: true, tags: ["cycle"], project: .some("Cycle"), dependsOn: ["after"]), ifVersion: nil),
        ]
        await #expect(throws: TaskStoreError.self) { try await store.apply(failing, atomic: true) }
        try await expectCounted("an atomic apply that failed")
        _ = try await store.apply(failing, atomic: false)
        try await expectCounted("an apply of which one operation failed")

        _ = try #require(try await store.undo())
        try await expectCounted("undo")
        _ = try #require(try await store.redo())
        try await expectCounted("redo")
        _ = try #require(try await store.undo())
        _ = try #require(try await store.undo())
        try await expectCounted("undoing a delete")

        let weekly = try await store.create(
            TaskDraft(title: "Bins", tags: ["w"], due: "2026-12-01", project: "Home", recurrence: "FREQ=WEEKLY;COUNT=3")
        ).value
        let completed = try await store.perform(.update(id: weekly.id, changes: TaskChanges(done: true), ifVersion: nil))
        #expect(completed.otherChanges.count == 1)
        try await expectCounted("completing a recurring task")

        let imported = (0..<300).map { number in
            ImportRecord.task(
                TaskItem(
                    id: "i\(number)", title: "Imported", done: number % 3 == 0, tags: number % 2 == 0 ? ["a", "i"] : [],
                    project: number % 5 == 0 ? nil : "Import.P\(number % 7)",
                    // On a later task (open) and on an earlier one (done).
                    dependsOn: number % 30 == 1 ? ["i\(number + 1)"] : number % 30 == 4 ? ["i\(number - 1)"] : [],
                    createdAt: 1_800_000_000_000, updatedAt: 1_800_000_000_000,
                    completedAt: number % 3 == 0 ? 1_800_000_000_000 : nil), line: number + 1)
        }
        _ = try await store.importTasks(imported, onConflict: .fail, maxProblems: 1)
        try await expectCounted("an import")
        let blockedImports = TaskQuery(filter: TaskFilter(text: "Imported", blocked: true), limit: 1000, includeTotal: true)
        #expect(try await store.fetch(blockedImports).total == 10)
        // Undone, the deletion recreates i1, which depends on i2, before i2.
        _ = try await store.apply([.delete(id: "i1", ifVersion: nil), .delete(id: "i2", ifVersion: nil)], atomic: true)
        _ = try #require(try await store.undo())
        try await expectCounted("undoing the deletion of a task and its dependency")
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(ids: ["i1"], blocked: true))).tasks.map(\.id) == ["i1"])
        let replacing = (0..<300).map { number in
            ImportRecord.task(
                TaskItem(
                    id: "i\(number)", title: "Again", done: number % 2 == 0, tags: ["r"], project: "Work",
                    createdAt: 1_800_000_000_000, updatedAt: 1_800_000_000_001,
                    completedAt: number % 2 == 0 ? 1_800_000_000_001 : nil, version: 2), line: number + 1)
        }
        _ = try await store.importTasks(replacing, onConflict: .replace, maxProblems: 1)
        try await expectCounted("an import that replaced tasks")
        #expect(try await store.fetch(TaskQuery(limit: 1, includeTotal: true)).total == 305)
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(project: "Import"), limit: 1, includeTotal: true)).total == 0)
    }
}
