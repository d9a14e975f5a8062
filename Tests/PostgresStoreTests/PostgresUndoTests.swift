import PostgreSQL
import TaskModel
import TestSupport
import Testing

@testable import PostgresStore

/// Change groups in PostgreSQL's tables: what a write keeps, what pruning takes, and the
/// upgrade of a database from before them (the contract of undo and redo is
/// StoreContractTests').
@Suite(Cluster.available) struct PostgresUndoTests {
    func create(_ store: PostgresTaskStore, _ draft: TaskDraft) async throws -> TaskItem {
        try #require(try await store.perform(.create(draft)).task)
    }

    func update(_ store: PostgresTaskStore, _ id: String, _ changes: TaskChanges) async throws -> TaskItem {
        try #require(try await store.perform(.update(id: id, changes: changes, ifVersion: nil)).task)
    }

    @Test func pruningTakesTheGroupsBeforeTheNewestChange() async throws {
        let schema = try Cluster.freshSchema()
        do {
            let store = try PostgresTaskStore(connectionString: schema, origin: WriteOrigin.commandLine)
            _ = try await create(store, TaskDraft(id: "a", title: "a"))
            _ = try await update(store, "a", TaskChanges(title: "b"))
            await store.close()
        }
        let reopened = try PostgresTaskStore(connectionString: schema, origin: WriteOrigin.commandLine)
        _ = try await reopened.undo(scope: .connection, force: false)
        _ = try await Cluster.store(schema).undo(scope: .database, force: false)
        // Pruning keeps the newest change, the last undo's: its group is whole and stays.
        let database = try PostgresConnection(schema)
        #expect(try database.query("SELECT count(*) AS n FROM change_group")[0].int("n") == 4)
        _ = try await reopened.pruneHistory(before: .max)
        #expect(try database.query("SELECT count(*) AS n FROM change_group")[0].int("n") == 1)
        #expect(try database.query("SELECT count(*) AS n FROM change_before WHERE group_seq < 4")[0].int("n") == 0)
    }

    @Test func aCreateKeepsNoSnapshotAndAnUpdateThatChangesNothingNoGroup() async throws {
        let schema = try Cluster.freshSchema()
        let store = try Cluster.store(schema)
        _ = try await create(store, TaskDraft(id: "a", title: "a"))
        _ = try await update(store, "a", TaskChanges(title: "a"))
        let database = try PostgresConnection(schema)
        #expect(try database.query("SELECT count(*) AS n FROM change_group")[0].int("n") == 1)
        #expect(try database.query("SELECT count(*) AS n FROM change_before")[0].int("n") == 0)
    }

    /// A database made before change groups gains their tables when opened; its earlier
    /// writes are no groups, the writes after are.
    @Test func aDatabaseFromBeforeChangeGroupsIsUpgraded() async throws {
        let schema = try Cluster.freshSchema()
        let old = try Cluster.store(schema)
        _ = try await create(old, TaskDraft(id: "old", title: "old", tags: ["t"], project: "P"))
        _ = try await create(old, TaskDraft(id: "older", title: "older", done: true, tags: ["t"], project: "P"))
        // What versions 3 to 11 made goes, so that the schema is version 2's.
        try PostgresConnection(schema).execute(
            """
            ALTER TABLE task DROP COLUMN annotations, DROP COLUMN started_at;
            DROP INDEX IF EXISTS task_text_trigrams;
            DROP TRIGGER task_blockers_on_insert ON task; DROP TRIGGER task_blockers_on_update ON task;
            DROP TRIGGER task_dependents_on_done ON task;
            DROP FUNCTION task_count_blockers(), task_recount_dependents(), task_blockers(text[]);
            ALTER TABLE task DROP COLUMN blocked_by;
            DROP TABLE change_group, change_before, task_total, project_total, tag_total;
            DROP INDEX task_by_updated, task_by_due, task_by_priority, task_by_title, task_by_project, task_by_wait,
                task_by_due_priority, task_by_priority_due, task_by_project_due, task_by_project_due_desc,
                task_waiting_by_priority_due;
            UPDATE taskline_schema SET version = 2
            """)
        let store = try Cluster.store(schema)
        #expect(try PostgresConnection(schema).query("SELECT version FROM taskline_schema")[0].int("version") > 2)
        #expect(try PostgresTaskStore.keptCountProblems(PostgresConnection(schema)) == [], "the kept counts are filled from the tasks")
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(done: false), limit: 1, includeTotal: true)).total == 1)
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(done: false, tags: ["t"]), limit: 1, includeTotal: true)).total == 1)
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(done: true, project: "P"), limit: 1, includeTotal: true)).total == 1)
        #expect(try await store.undo(scope: .database, force: false) == nil)
        _ = try await update(store, "old", TaskChanges(title: "new"))
        #expect(try await store.undo(scope: .connection, force: false)?.tasks.map(\.title) == ["old"])
    }

}
