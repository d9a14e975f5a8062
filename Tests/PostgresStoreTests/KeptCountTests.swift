import PostgreSQL
import TaskModel
import TestSupport
import Testing

@testable import PostgresStore

/// What `taskline check` reads from the kept counts (`task_total`, `project_total`,
/// `tag_total`, `blocked_by`): a count that differs from the tasks is named. That every write
/// keeps them is CountContractTests'.
@Suite(Cluster.available) struct KeptCountTests {
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
