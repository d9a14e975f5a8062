import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// Change groups, undo and redo: what comes back, whose groups a scope means, conflicts,
/// and what clears the redo list.
@Suite struct UndoTests {
    let directory = TemporaryDirectory()

    func open(origin: Int64 = WriteOrigin.unique()) throws -> TaskStore {
        try TaskStore(path: directory.file("tasks.sqlite"), options: StoreOptions(durability: .normal), origin: origin)
    }

    /// Every field but `updatedAt` and `version`, which a reversal moves on.
    func fields(_ task: TaskItem?) -> TaskItem? {
        guard var task else { return nil }
        task.updatedAt = 0
        task.version = 0
        return task
    }

    @Test func undoingACreateDeletesTheTaskAndRedoBringsItBack() async throws {
        let store = try open()
        let created = try await store.create(TaskDraft(id: "a", title: "A", tags: ["x"], project: "Home")).value
        let seqBefore = try await store.currentSeq()
        let undone = try #require(try await store.undo())
        #expect(undone.group.kind == .write && undone.group.own && undone.group.firstSeq == seqBefore)
        #expect(undone.deleted == ["a"] && undone.tasks.isEmpty)
        #expect(undone.changes.map(\.kind) == [.deleted] && undone.changes[0].seq == seqBefore + 1)
        #expect(try await store.load(id: "a") == nil)
        let redone = try #require(try await store.redo())
        #expect(redone.group.kind == .undo)
        let back = try #require(try await store.load(id: "a"))
        #expect(fields(back) == fields(created))
        #expect(back.version == 2)
        #expect(try await store.redo() == nil)
    }

    @Test func undoingAnUpdatePutsBackEveryFieldAtTheNextVersion() async throws {
        let store = try open()
        _ = try await store.create(TaskDraft(id: "dep", title: "dep"))
        let before = try await store.create(
            TaskDraft(
                id: "a", title: "Before", notes: "n", priority: 2, tags: ["b", "a"], due: "2026-12-01", project: "Home.Garage",
                dependsOn: ["dep"], wait: "2026-11-01T08:00:00Z", meta: #"{"k":[1]}"#)
        ).value
        let after = try await store.update(
            id: "a",
            changes: TaskChanges(
                title: "After", notes: "m", done: true, priority: 0, tags: ["z"], due: .some(nil), project: .some(nil),
                dependsOn: [], wait: .some(nil), meta: "{}")
        ).value
        let undone = try #require(try await store.undo())
        let now = try #require(undone.tasks.first)
        #expect(fields(now) == fields(before))
        #expect(now.version == after.version + 1)
        #expect(undone.changes.map(\.kind) == [.updated] && undone.changes[0].task == now)
        // The derived columns follow: the dependency is open again, the due date sorts.
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(blocked: true))).tasks.map(\.id) == ["a"])
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["b"]))).tasks.map(\.id) == ["a"])
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(dueBefore: "2026-12-02"))).tasks.map(\.id) == ["a"])
    }

    @Test func undoingADeleteBringsBackTheTaskItsTagsAndDependenciesBothWays() async throws {
        let store = try open()
        _ = try await store.create(TaskDraft(id: "c", title: "C"))
        let deleted = try await store.create(
            TaskDraft(
                id: "b", title: "B", notes: "notes", done: true, tags: ["t1", "t2"],
                due: "2026-12-05T10:00:00+01:00", dependsOn: ["c"], meta: #"{"x":true}"#)
        ).value
        let dependent = try await store.create(TaskDraft(id: "a", title: "A", dependsOn: ["b", "c"])).value
        _ = try await store.delete(id: "b")
        #expect(try await store.get(id: "a").dependsOn == ["c"])
        let undone = try #require(try await store.undo())
        #expect(Set(undone.tasks.map(\.id)) == ["a", "b"])
        let back = try await store.get(id: "b")
        #expect(fields(back) == fields(deleted))
        #expect(back.version == deleted.version + 1)
        #expect(fields(try await store.get(id: "a")) == fields(dependent))
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["t2"]))).tasks.map(\.id) == ["b"])
        // Redo deletes it again, and takes it out of its dependent again.
        _ = try #require(try await store.redo())
        #expect(try await store.load(id: "b") == nil)
        #expect(try await store.get(id: "a").dependsOn == ["c"])
    }

    @Test func anApplyIsOneGroupAndEachGroupCommittedRequestIsItsOwn() async throws {
        let store = try open()
        _ = try await store.create(TaskDraft(id: "x", title: "x"))
        _ = try await store.apply(
            [
                .create(TaskDraft(id: "a", title: "a")), .update(id: "x", changes: TaskChanges(title: "X"), ifVersion: nil),
                .create(TaskDraft(id: "b", title: "b", dependsOn: ["a"])),
            ], atomic: true)
        let undone = try #require(try await store.undo())
        #expect(Set(undone.deleted) == ["a", "b"] && undone.tasks.map(\.title) == ["x"])
        _ = try await store.redo()
        _ = try await store.performEach([.create(TaskDraft(id: "c", title: "c")), .create(TaskDraft(id: "d", title: "d"))])
        #expect(try await store.undo()?.deleted == ["d"])
        #expect(try await store.undo()?.deleted == ["c"])
        #expect(try await store.undo()?.deleted.sorted() == ["a", "b"])
    }

    @Test func aTaskTheReversalLeavesAsItIsComesBackAsItIs() async throws {
        let store = try open()
        _ = try await store.create(TaskDraft(id: "a", title: "a"))
        _ = try await store.create(TaskDraft(id: "b", title: "b"))
        _ = try await store.apply(
            [
                .update(id: "a", changes: TaskChanges(title: "A"), ifVersion: nil),
                .update(id: "a", changes: TaskChanges(title: "a"), ifVersion: nil),
                .update(id: "b", changes: TaskChanges(title: "B"), ifVersion: nil),
            ], atomic: true)
        let a = try await store.get(id: "a")
        let undone = try #require(try await store.undo())
        #expect(undone.tasks.map(\.title) == ["a", "b"] && undone.deleted.isEmpty)
        #expect(undone.tasks.first == a)
        #expect(undone.changes.map(\.id) == ["b"])
    }

    @Test func aDependentTheReversalAlsoChangesIsAnsweredAtItsLastVersion() async throws {
        let store = try open()
        _ = try await store.create(TaskDraft(id: "d", title: "d"))
        _ = try await store.apply(
            [
                .create(TaskDraft(id: "c", title: "c")),
                .update(id: "d", changes: TaskChanges(title: "D", dependsOn: ["c"]), ifVersion: nil),
            ], atomic: true)
        // Deleting c takes it out of d's dependencies (a version of d) before d is put back.
        let undone = try #require(try await store.undo())
        #expect(undone.deleted == ["c"])
        let d = try #require(undone.tasks.first)
        #expect(d.title == "d" && d.dependsOn.isEmpty)
        #expect(d == (try await store.get(id: "d")))
        let versions = undone.changes.filter { $0.id == "d" }.map(\.version)
        #expect(versions.count == 2 && versions[0] < versions[1] && versions.last == d.version)
    }

    @Test func scopeConnectionMeansThisStoresOwnGroupsAndDatabaseAnyones() async throws {
        let mine = try open()
        let theirs = try open()
        _ = try await mine.create(TaskDraft(id: "m", title: "m"))
        _ = try await theirs.create(TaskDraft(id: "t", title: "t"))
        let undone = try #require(try await mine.undo())
        #expect(undone.deleted == ["m"] && undone.group.own)
        #expect(try await mine.undo() == nil)
        #expect(try await theirs.load(id: "t") != nil)
        let other = try #require(try await mine.undo(scope: .database))
        #expect(other.deleted == ["t"] && !other.group.own)
        // Their own scope sees their group as undone already.
        #expect(try await theirs.undo() == nil)
        #expect(try await theirs.redo() == nil)
        #expect(try await mine.redo(scope: .database)?.tasks.map(\.id) == ["t"])
    }

    @Test func aTaskChangedSinceIsAConflictThatRevertsNothingUnlessForced() async throws {
        let first = try open()
        let second = try open()
        _ = try await first.create(TaskDraft(id: "a", title: "one"))
        _ = try await first.create(TaskDraft(id: "b", title: "b"))
        _ = try await first.apply(
            [
                .update(id: "a", changes: TaskChanges(title: "two"), ifVersion: nil),
                .update(id: "b", changes: TaskChanges(title: "B"), ifVersion: nil),
            ], atomic: true)
        let theirs = try await second.update(id: "a", changes: TaskChanges(title: "three")).value
        let seq = try await first.currentSeq()
        await #expect(throws: TaskStoreError.undoConflict(tasks: [theirs], deleted: [])) { try await first.undo() }
        #expect(try await first.currentSeq() == seq)
        #expect(try await first.get(id: "b").title == "B")
        let forced = try #require(try await first.undo(force: true))
        #expect(forced.tasks.map(\.title) == ["one", "b"])
        // A task deleted since is a conflict too, and comes back when forced.
        _ = try await first.update(id: "b", changes: TaskChanges(title: "again"))
        _ = try await second.delete(id: "b")
        await #expect(throws: TaskStoreError.undoConflict(tasks: [], deleted: ["b"])) { try await first.undo() }
        #expect(try await first.undo(force: true)?.tasks.map(\.title) == ["b"])
    }

    @Test func groupsThatLaterReversalsCancelAreNoConflict() async throws {
        let store = try open()
        _ = try await store.create(TaskDraft(id: "a", title: "1"))
        _ = try await store.update(id: "a", changes: TaskChanges(title: "2"))
        _ = try await store.update(id: "a", changes: TaskChanges(title: "3"))
        _ = try await store.undo()
        _ = try await store.redo()
        _ = try await store.undo()
        #expect(try await store.get(id: "a").title == "2")
        #expect(try await store.undo()?.tasks.map(\.title) == ["1"])
        #expect(try await store.undo()?.deleted == ["a"])
        // Redone in the order undone, newest undo first.
        #expect(try await store.redo()?.tasks.map(\.title) == ["1"])
        #expect(try await store.redo()?.tasks.map(\.title) == ["2"])
        #expect(try await store.redo()?.tasks.map(\.title) == ["3"])
        #expect(try await store.redo() == nil)
    }

    @Test func aNewWriteClearsTheRedoListOfItsScopeOnly() async throws {
        let mine = try open()
        let theirs = try open()
        _ = try await mine.create(TaskDraft(id: "a", title: "a"))
        _ = try await mine.undo()
        _ = try await theirs.create(TaskDraft(id: "t", title: "t"))
        #expect(try await mine.redo(scope: .database) == nil)
        #expect(try await mine.redo()?.tasks.map(\.id) == ["a"])
        _ = try await mine.undo()
        _ = try await mine.create(TaskDraft(id: "b", title: "b"))
        #expect(try await mine.redo() == nil)
    }

    @Test func groupsOutliveTheStoreAndGoWithThePrunedHistory() async throws {
        do {
            let store = try open(origin: WriteOrigin.commandLine)
            _ = try await store.create(TaskDraft(id: "a", title: "a"))
            _ = try await store.update(id: "a", changes: TaskChanges(title: "b"))
            await store.close()
        }
        let reopened = try open(origin: WriteOrigin.commandLine)
        #expect(try await reopened.undo()?.tasks.map(\.title) == ["a"])
        #expect(try await open().undo() == nil)
        #expect(try await open().undo(scope: .database)?.deleted == ["a"])
        // Pruning keeps the newest change, the last undo's: its group is whole and stays.
        let database = try Database(path: directory.file("tasks.sqlite"))
        #expect(try database.integer("SELECT count(*) FROM change_reversal") == 2)
        _ = try await reopened.pruneHistory(before: .max)
        #expect(try database.integer("SELECT count(*) FROM change_reversal") == 1)
        #expect(try database.integer("SELECT count(*) FROM change_before WHERE group_seq < (SELECT max(seq) FROM change)") == 0)
        #expect(try await reopened.undo(scope: .database) == nil)
        #expect(try await reopened.redo(scope: .database)?.tasks.map(\.title) == ["a"])
    }

    @Test func aCreateKeepsNoSnapshotAndAnUpdateThatChangesNothingNoGroup() async throws {
        let store = try open()
        _ = try await store.create(TaskDraft(id: "a", title: "a"))
        _ = try await store.update(id: "a", changes: TaskChanges(title: "a"))
        let database = try Database(path: directory.file("tasks.sqlite"))
        #expect(try database.integer("SELECT count(*) FROM change WHERE group_origin IS NOT NULL") == 1)
        #expect(try database.integer("SELECT count(*) FROM change_before") == 0)
    }
}
