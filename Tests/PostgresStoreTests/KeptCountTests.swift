import PostgreSQL
import TaskModel
import TestSupport
import Testing

@testable import PostgresStore

/// The kept counts (`task_total`, `project_total`, `tag_total`) against the tasks after each
/// kind of write, and `includeTotal` read from them.
@Suite(Cluster.available) struct KeptCountTests {
    @Test func everyWritePathKeepsTheCounts() async throws {
        let db = try Cluster.freshSchema()
        let store = try Cluster.store(db)
        let connection = try PostgresConnection(db)
        func expectCounted(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(try PostgresTaskStore.keptCountProblems(connection) == [], "after \(step)", sourceLocation: sourceLocation)
            #expect(try PostgresTaskStore.blockedByProblems(connection) == [], "after \(step)", sourceLocation: sourceLocation)
        }

        let home = try #require(try await store.perform(.create(TaskDraft(id: "home", title: "Home", tags: ["a", "b"], project: "Home"))).task)
        _ = try await store.perform(.create(TaskDraft(id: "garage", title: "Garage", done: true, tags: ["a"], project: "Home.Garage")))
        _ = try await store.perform(.create(TaskDraft(id: "after", title: "After", dependsOn: ["home"])))
        try expectCounted("creates")
        _ = try await store.perform(.update(id: home.id, changes: TaskChanges(done: true), ifVersion: nil))
        try expectCounted("completing")
        _ = try await store.perform(.update(id: home.id, changes: TaskChanges(done: false, tags: ["c"], project: .some("Work")), ifVersion: nil))
        try expectCounted("reopening, new tags, another project")
        _ = try await store.perform(.update(id: home.id, changes: TaskChanges(project: .some(nil)), ifVersion: nil))
        try expectCounted("the project taken away")
        _ = try await store.perform(.delete(id: "home", ifVersion: nil))
        try expectCounted("a delete (and its dependent's update)")

        let failing: [Result<TaskOperation, TaskStoreError>] = [
            .success(.create(TaskDraft(id: "kept", title: "Kept", tags: ["a"], project: "Home"))),
            .success(.update(id: "garage", changes: TaskChanges(done: false, project: .some("Work")), ifVersion: nil)),
            .success(.update(id: "missing", changes: TaskChanges(title: "x"), ifVersion: nil)),
            // Written, then refused (a cycle): rolled back to its savepoint, with its counts.
            .success(
                .update(id: "after", changes: TaskChanges(done: true, tags: ["cycle"], project: .some("Cycle"), dependsOn: ["after"]), ifVersion: nil)
            ),
        ]
        await #expect(throws: TaskStoreError.self) { try await store.apply(failing, atomic: true) }
        try expectCounted("an atomic apply that failed")
        _ = try await store.apply(failing, atomic: false)
        try expectCounted("an apply of which one operation failed")

        _ = try #require(try await store.undo(scope: .connection, force: false))
        try expectCounted("undo")
        _ = try #require(try await store.redo(scope: .connection, force: false))
        try expectCounted("redo")
        _ = try #require(try await store.undo(scope: .connection, force: false))
        _ = try #require(try await store.undo(scope: .connection, force: false))
        try expectCounted("undoing a delete")

        let weekly = try #require(
            try await store.perform(
                .create(TaskDraft(title: "Bins", tags: ["w"], due: "2026-12-01", project: "Home", recurrence: "FREQ=WEEKLY;COUNT=3"))
            ).task)
        let completed = try await store.perform(.update(id: weekly.id, changes: TaskChanges(done: true), ifVersion: nil))
        #expect(completed.otherChanges.count == 1)
        try expectCounted("completing a recurring task")

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
        try expectCounted("an import")
        #expect(try connection.query("SELECT count(*) AS n FROM task WHERE blocked_by > 0 AND id LIKE 'i%'")[0].int("n") == 10)
        // Undone, the deletion recreates i1, which depends on i2, before i2.
        _ = try await store.apply([.success(.delete(id: "i1", ifVersion: nil)), .success(.delete(id: "i2", ifVersion: nil))], atomic: true)
        _ = try #require(try await store.undo(scope: .connection, force: false))
        try expectCounted("undoing the deletion of a task and its dependency")
        #expect(try connection.query("SELECT blocked_by FROM task WHERE id = 'i1'")[0].int("blocked_by") == 1)
        let replacing = (0..<300).map { number in
            ImportRecord.task(
                TaskItem(
                    id: "i\(number)", title: "Again", done: number % 2 == 0, tags: ["r"], project: "Work",
                    createdAt: 1_800_000_000_000, updatedAt: 1_800_000_000_001,
                    completedAt: number % 2 == 0 ? 1_800_000_000_001 : nil, version: 2), line: number + 1)
        }
        _ = try await store.importTasks(replacing, onConflict: .replace, maxProblems: 1)
        try expectCounted("an import that replaced tasks")
        let rows = try connection.query(
            """
            SELECT (SELECT count(*) FROM project_total WHERE project LIKE 'Import%') AS projects, (SELECT sum(n) FROM task_total) AS tasks
            """)[0]
        #expect(try rows.int("tasks") == 305)
        #expect(try rows.int("projects") == 0, "projects counted down to none lose their rows")

        for filter in [
            TaskFilter(done: true), TaskFilter(done: false), TaskFilter(), TaskFilter(tags: ["r"]), TaskFilter(tags: ["nothing"]),
            TaskFilter(done: false, tags: ["r"]), TaskFilter(done: true, tags: ["r"]), TaskFilter(done: false, tags: ["nothing"]),
            TaskFilter(project: "Home"), TaskFilter(project: "Work"), TaskFilter(project: "Import"),
            TaskFilter(done: false, project: "Home"), TaskFilter(done: true, project: "Work"), TaskFilter(done: false, project: "Import"),
        ] {
            let total = try await store.fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true)).total
            let tasks = try await store.fetch(TaskQuery(filter: filter, limit: 500)).tasks.count
            #expect(total == tasks, "\(filter)")
        }
    }

    /// `taskline check`'s reading: a count that differs from the tasks is named.
    @Test func aCountThatDiffersIsFound() async throws {
        let db = try Cluster.freshSchema()
        let store = try Cluster.store(db)
        _ = try await store.perform(.create(TaskDraft(title: "One", tags: ["a"], project: "Home")))
        let connection = try PostgresConnection(db)
        try connection.execute("UPDATE task_total SET n = 5 WHERE done; DELETE FROM tag_total; INSERT INTO project_total VALUES ('Gone', 2, 1)")
        #expect(
            try PostgresTaskStore.keptCountProblems(connection) == [
                "project_total's count of Gone is 2; its tasks are 0",
                "project_total (open)'s count of Gone is 1; its tasks are 0",
                "tag_total's count of a is missing; its tasks are 1",
                "tag_total (open)'s count of a is missing; its tasks are 1",
                "task_total's count of true is 5; its tasks are 0",
            ])
        _ = try await store.perform(
            .create(TaskDraft(id: "waits", title: "Waits", dependsOn: [try #require(try await store.fetch(TaskQuery()).tasks.first).id])))
        try connection.execute("UPDATE task SET blocked_by = 0 WHERE id = 'waits'; UPDATE task SET blocked_by = 2 WHERE id <> 'waits'")
        let one = try #require(try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["a"]))).tasks.first).id
        #expect(
            try PostgresTaskStore.blockedByProblems(connection) == [
                "task \(one): blocked_by is 2; 0 of its dependencies are not done",
                "task waits: blocked_by is 0; 1 of its dependencies are not done",
            ])
    }
}
