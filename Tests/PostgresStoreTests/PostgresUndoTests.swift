import PostgreSQL
import TaskModel
import Testing

@testable import PostgresStore

/// Change groups, undo and redo on PostgreSQL: what comes back, whose groups a scope means,
/// conflicts between stores on one database, and what clears the redo list.
@Suite(Cluster.available) struct PostgresUndoTests {
    /// Every field but `updatedAt` and `version`, which a reversal moves on.
    func fields(_ task: TaskItem?) -> TaskItem? {
        guard var task else { return nil }
        task.updatedAt = 0
        task.version = 0
        return task
    }

    /// Two stores on one database, as two servers are.
    func twoStores() throws -> (PostgresTaskStore, PostgresTaskStore) {
        let schema = try Cluster.freshSchema()
        return (try Cluster.store(schema), try Cluster.store(schema))
    }

    func create(_ store: PostgresTaskStore, _ draft: TaskDraft) async throws -> TaskItem {
        try #require(try await store.perform(.create(draft)).task)
    }

    func update(_ store: PostgresTaskStore, _ id: String, _ changes: TaskChanges) async throws -> TaskItem {
        try #require(try await store.perform(.update(id: id, changes: changes, ifVersion: nil)).task)
    }

    func exists(_ store: PostgresTaskStore, _ id: String) async throws -> Bool {
        try await store.fetch(TaskQuery(filter: TaskFilter(ids: [id]))).tasks.isEmpty == false
    }

    @Test func undoingACreateDeletesTheTaskAndRedoBringsItBack() async throws {
        let store = try Cluster.store()
        let created = try await create(store, TaskDraft(id: "a", title: "A", tags: ["x"], project: "Home"))
        let undone = try #require(try await store.undo(scope: .connection, force: false))
        #expect(undone.group == ChangeGroup(firstSeq: 1, lastSeq: 1, kind: .write, own: true, at: undone.group.at))
        #expect(undone.deleted == ["a"] && undone.tasks.isEmpty)
        #expect(undone.changes.map(\.seq) == [2] && undone.changes.map(\.kind) == [.deleted])
        #expect(try await !exists(store, "a"))
        #expect(try await store.changes(since: 1, limit: 10).changes == undone.changes)
        let redone = try #require(try await store.redo(scope: .connection, force: false))
        #expect(redone.group.kind == .undo && redone.group.firstSeq == 2)
        let back = try await store.get(id: "a")
        #expect(fields(back) == fields(created) && back.version == 2)
        #expect(redone.changes.map(\.kind) == [.created] && redone.changes[0].task == back)
        #expect(try await store.redo(scope: .connection, force: false) == nil)
        #expect(try await store.currentSeq() == 3)
    }

    @Test func undoingAnUpdatePutsBackEveryFieldAtTheNextVersion() async throws {
        let store = try Cluster.store()
        _ = try await create(store, TaskDraft(id: "dep", title: "dep"))
        let before = try await create(
            store,
            TaskDraft(
                id: "a", title: "Before", notes: "n", priority: 2, tags: ["b", "a"], due: "2026-12-01", project: "Home.Garage",
                dependsOn: ["dep"], wait: "2026-11-01T08:00:00Z", meta: #"{"k":[1]}"#, remindAt: "2026-11-30T09:00:00Z"))
        let after = try await update(
            store, "a",
            TaskChanges(
                title: "After", notes: "m", done: true, priority: 0, tags: ["z"], due: .some(nil), project: .some(nil),
                dependsOn: [], wait: .some(nil), meta: "{}", remindAt: .some(nil)))
        let undone = try #require(try await store.undo(scope: .connection, force: false))
        let now = try #require(undone.tasks.first)
        #expect(fields(now) == fields(before))
        #expect(now.version == after.version + 1)
        #expect(undone.changes.map(\.kind) == [.updated] && undone.changes[0].task == now)
        #expect(try await store.get(id: "a") == now)
        // The columns derived from the fields follow: the due date and the tag filter.
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["b"]))).tasks.map(\.id) == ["a"])
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(dueBefore: "2026-12-02"))).tasks.map(\.id) == ["a"])
        #expect(try await store.redo(scope: .connection, force: false)?.tasks.map(\.title) == ["After"])
    }

    @Test func undoingADeleteBringsBackTheTaskItsTagsAndDependenciesBothWays() async throws {
        let store = try Cluster.store()
        _ = try await create(store, TaskDraft(id: "c", title: "C"))
        let deleted = try await create(
            store,
            TaskDraft(
                id: "b", title: "B", notes: "notes", done: true, tags: ["t1", "t2"],
                due: "2026-12-05T10:00:00+01:00", dependsOn: ["c"], meta: #"{"x":true}"#))
        let dependent = try await create(store, TaskDraft(id: "a", title: "A", dependsOn: ["b", "c"]))
        _ = try await store.perform(.delete(id: "b", ifVersion: nil))
        #expect(try await store.get(id: "a").dependsOn == ["c"])
        let undone = try #require(try await store.undo(scope: .connection, force: false))
        #expect(undone.tasks.map(\.id) == ["a", "b"] && undone.deleted.isEmpty)
        let back = try await store.get(id: "b")
        #expect(fields(back) == fields(deleted))
        #expect(back.version == deleted.version + 1)
        #expect(fields(try await store.get(id: "a")) == fields(dependent))
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["t2"]))).tasks.map(\.id) == ["b"])
        // Redo deletes it again, and takes it out of its dependent again.
        let redone = try #require(try await store.redo(scope: .connection, force: false))
        #expect(redone.deleted == ["b"])
        #expect(try await !exists(store, "b"))
        #expect(try await store.get(id: "a").dependsOn == ["c"])
        // Deleted a second time (at version 2), it comes back past that version.
        #expect(try await store.undo(scope: .connection, force: false)?.tasks.first { $0.id == "b" }?.version == deleted.version + 2)
    }

    @Test func anApplyIsOneGroupAndEachGroupCommittedRequestIsItsOwn() async throws {
        let store = try Cluster.store()
        _ = try await create(store, TaskDraft(id: "x", title: "x"))
        _ = try await store.apply(
            [
                .success(.create(TaskDraft(id: "a", title: "a"))), .success(.update(id: "x", changes: TaskChanges(title: "X"), ifVersion: nil)),
                .success(.update(id: "missing", changes: TaskChanges(title: "m"), ifVersion: nil)),
                .success(.create(TaskDraft(id: "b", title: "b", dependsOn: ["a"]))),
            ], atomic: false)
        let undone = try #require(try await store.undo(scope: .connection, force: false))
        #expect(undone.group.firstSeq == 2 && undone.group.lastSeq == 4)
        #expect(undone.deleted == ["a", "b"] && undone.tasks.map(\.title) == ["x"])
        _ = try await store.redo(scope: .connection, force: false)
        _ = try await store.performEach([.create(TaskDraft(id: "c", title: "c")), .create(TaskDraft(id: "d", title: "d"))])
        #expect(try await store.undo(scope: .connection, force: false)?.deleted == ["d"])
        #expect(try await store.undo(scope: .connection, force: false)?.deleted == ["c"])
        #expect(try await store.undo(scope: .connection, force: false)?.deleted.sorted() == ["a", "b"])
        #expect(try await store.undo(scope: .connection, force: false)?.deleted == ["x"])
        #expect(try await store.undo(scope: .connection, force: false) == nil)
    }

    @Test func scopeConnectionMeansThisStoresOwnGroupsAndDatabaseAnyones() async throws {
        let (mine, theirs) = try twoStores()
        _ = try await create(mine, TaskDraft(id: "m", title: "m"))
        _ = try await create(theirs, TaskDraft(id: "t", title: "t"))
        let undone = try #require(try await mine.undo(scope: .connection, force: false))
        #expect(undone.deleted == ["m"] && undone.group.own)
        #expect(try await mine.undo(scope: .connection, force: false) == nil)
        #expect(try await exists(mine, "t"))
        let other = try #require(try await mine.undo(scope: .database, force: false))
        #expect(other.deleted == ["t"] && !other.group.own)
        // Their own scope sees their group as undone already, and the undo as mine.
        #expect(try await theirs.undo(scope: .connection, force: false) == nil)
        #expect(try await theirs.redo(scope: .connection, force: false) == nil)
        #expect(try await mine.redo(scope: .database, force: false)?.tasks.map(\.id) == ["t"])
    }

    @Test func aTaskChangedOnAnotherStoreIsAConflictThatRevertsNothingUnlessForced() async throws {
        let (first, second) = try twoStores()
        _ = try await create(first, TaskDraft(id: "a", title: "one"))
        _ = try await create(first, TaskDraft(id: "b", title: "b"))
        _ = try await first.apply(
            [
                .success(.update(id: "a", changes: TaskChanges(title: "two"), ifVersion: nil)),
                .success(.update(id: "b", changes: TaskChanges(title: "B"), ifVersion: nil)),
            ], atomic: true)
        let theirs = try await update(second, "a", TaskChanges(title: "three"))
        let seq = try await first.currentSeq()
        await #expect(throws: TaskStoreError.undoConflict(tasks: [theirs], deleted: [])) {
            try await first.undo(scope: .connection, force: false)
        }
        #expect(try await first.currentSeq() == seq)
        #expect(try await first.get(id: "b").title == "B")
        let forced = try #require(try await first.undo(scope: .connection, force: true))
        #expect(forced.tasks.map(\.title) == ["one", "b"])
        // A task deleted since is a conflict too, and comes back when forced.
        _ = try await update(first, "b", TaskChanges(title: "again"))
        _ = try await second.perform(.delete(id: "b", ifVersion: nil))
        await #expect(throws: TaskStoreError.undoConflict(tasks: [], deleted: ["b"])) {
            try await first.undo(scope: .connection, force: false)
        }
        #expect(try await first.undo(scope: .connection, force: true)?.tasks.map(\.title) == ["b"])
        // The same for redo: their edit after my undo.
        _ = try await update(first, "a", TaskChanges(title: "four"))
        _ = try await first.undo(scope: .connection, force: false)
        let edited = try await update(second, "a", TaskChanges(title: "five"))
        await #expect(throws: TaskStoreError.undoConflict(tasks: [edited], deleted: [])) {
            try await first.redo(scope: .connection, force: false)
        }
        #expect(try await first.redo(scope: .connection, force: true)?.tasks.map(\.title) == ["four"])
    }

    @Test func groupsThatLaterReversalsCancelAreNoConflict() async throws {
        let store = try Cluster.store()
        _ = try await create(store, TaskDraft(id: "a", title: "1"))
        _ = try await update(store, "a", TaskChanges(title: "2"))
        _ = try await update(store, "a", TaskChanges(title: "3"))
        _ = try await store.undo(scope: .connection, force: false)
        _ = try await store.redo(scope: .connection, force: false)
        _ = try await store.undo(scope: .connection, force: false)
        #expect(try await store.get(id: "a").title == "2")
        #expect(try await store.undo(scope: .connection, force: false)?.tasks.map(\.title) == ["1"])
        #expect(try await store.undo(scope: .connection, force: false)?.deleted == ["a"])
        // Redone in the order undone, newest undo first.
        #expect(try await store.redo(scope: .connection, force: false)?.tasks.map(\.title) == ["1"])
        #expect(try await store.redo(scope: .connection, force: false)?.tasks.map(\.title) == ["2"])
        #expect(try await store.redo(scope: .connection, force: false)?.tasks.map(\.title) == ["3"])
        #expect(try await store.redo(scope: .connection, force: false) == nil)
    }

    @Test func aNewWriteClearsTheRedoListOfItsScopeOnly() async throws {
        let (mine, theirs) = try twoStores()
        _ = try await create(mine, TaskDraft(id: "a", title: "a"))
        _ = try await mine.undo(scope: .connection, force: false)
        _ = try await create(theirs, TaskDraft(id: "t", title: "t"))
        #expect(try await mine.redo(scope: .database, force: false) == nil)
        #expect(try await mine.redo(scope: .connection, force: false)?.tasks.map(\.id) == ["a"])
        _ = try await mine.undo(scope: .connection, force: false)
        _ = try await create(mine, TaskDraft(id: "b", title: "b"))
        #expect(try await mine.redo(scope: .connection, force: false) == nil)
    }

    @Test func groupsOutliveTheStoreAndGoWithThePrunedHistory() async throws {
        let schema = try Cluster.freshSchema()
        do {
            let store = try PostgresTaskStore(connectionString: schema, origin: WriteOrigin.commandLine)
            _ = try await create(store, TaskDraft(id: "a", title: "a"))
            _ = try await update(store, "a", TaskChanges(title: "b"))
            await store.close()
        }
        let reopened = try PostgresTaskStore(connectionString: schema, origin: WriteOrigin.commandLine)
        #expect(try await reopened.undo(scope: .connection, force: false)?.tasks.map(\.title) == ["a"])
        #expect(try await Cluster.store(schema).undo(scope: .connection, force: false) == nil)
        #expect(try await Cluster.store(schema).undo(scope: .database, force: false)?.deleted == ["a"])
        // Pruning keeps the newest change, the last undo's: its group is whole and stays.
        let database = try PostgresConnection(schema)
        #expect(try database.query("SELECT count(*) AS n FROM change_group")[0].int("n") == 4)
        _ = try await reopened.pruneHistory(before: .max)
        #expect(try database.query("SELECT count(*) AS n FROM change_group")[0].int("n") == 1)
        #expect(try database.query("SELECT count(*) AS n FROM change_before WHERE group_seq < 4")[0].int("n") == 0)
        #expect(try await reopened.undo(scope: .database, force: false) == nil)
        #expect(try await reopened.redo(scope: .database, force: false)?.tasks.map(\.title) == ["a"])
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

    /// A dependency the reversal would restore that closes a cycle through a task outside
    /// the group fails the whole undo with 1006.
    @Test func aDependencyThatWouldCloseACycleFailsTheUndo() async throws {
        let (mine, theirs) = try twoStores()
        _ = try await create(mine, TaskDraft(id: "a", title: "a"))
        _ = try await create(mine, TaskDraft(id: "b", title: "b", dependsOn: ["a"]))
        _ = try await update(mine, "b", TaskChanges(dependsOn: []))
        _ = try await update(theirs, "a", TaskChanges(dependsOn: ["b"]))
        let seq = try await mine.currentSeq()
        await #expect(throws: TaskStoreError.dependencyCycle(ids: ["b", "a"])) {
            try await mine.undo(scope: .connection, force: false)
        }
        #expect(try await mine.currentSeq() == seq)
        #expect(try await mine.get(id: "b").dependsOn.isEmpty)
    }
}
