import TaskModel
import TestSupport
import Testing

/// Change groups, undo and redo on each store: what comes back, whose groups a scope means,
/// conflicts between stores on one database, and what clears the redo list.
@Suite struct UndoContractTests {
    /// Every field but `updatedAt` and `version`, which a reversal moves on.
    func fields(_ task: TaskItem?) -> TaskItem? {
        guard var task else { return nil }
        task.updatedAt = 0
        task.version = 0
        return task
    }

    @Test(arguments: StoreKind.allCases)
    func undoingACreateDeletesTheTaskAndRedoBringsItBack(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let created = try await store.create(TaskDraft(id: "a", title: "A", tags: ["x"], project: "Home")).value
        let undone = try #require(try await store.undo())
        #expect(undone.group == ChangeGroup(firstSeq: 1, lastSeq: 1, kind: .write, own: true, at: undone.group.at))
        #expect(undone.deleted == ["a"] && undone.tasks.isEmpty)
        #expect(undone.changes.map(\.seq) == [2] && undone.changes.map(\.kind) == [.deleted])
        #expect(try await !store.exists("a"))
        #expect(try await store.changes(since: 1).changes == undone.changes)
        let redone = try #require(try await store.redo())
        #expect(redone.group.kind == .undo && redone.group.firstSeq == 2)
        let back = try await store.get(id: "a")
        #expect(fields(back) == fields(created) && back.version == 2)
        #expect(redone.changes.map(\.kind) == [.created] && redone.changes[0].task == back)
        #expect(try await store.redo() == nil)
        #expect(try await store.currentSeq() == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func undoingAnUpdatePutsBackEveryFieldAtTheNextVersion(kind: StoreKind) async throws {
        let store = try openStore(kind)
        _ = try await store.create(TaskDraft(id: "dep", title: "dep"))
        let before = try await store.create(
            TaskDraft(
                id: "a", title: "Before", notes: "n", priority: 2, tags: ["b", "a"], due: "2026-12-01", project: "Home.Garage",
                dependsOn: ["dep"], wait: "2026-11-01T08:00:00Z", meta: #"{"k":[1]}"#, remindAt: "2026-11-30T09:00:00Z")
        ).value
        let after = try await store.update(
            id: "a",
            changes: TaskChanges(
                title: "After", notes: "m", done: true, priority: 0, tags: ["z"], due: .some(nil), project: .some(nil),
                dependsOn: [], wait: .some(nil), meta: "{}", remindAt: .some(nil))
        ).value
        let undone = try #require(try await store.undo())
        let now = try #require(undone.tasks.first)
        #expect(fields(now) == fields(before))
        #expect(now.version == after.version + 1)
        #expect(undone.changes.map(\.kind) == [.updated] && undone.changes[0].task == now)
        #expect(try await store.get(id: "a") == now)
        // What is derived from the fields follows: the open dependency, the tags, the due date.
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(blocked: true))).tasks.map(\.id) == ["a"])
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["b"]))).tasks.map(\.id) == ["a"])
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(dueBefore: "2026-12-02"))).tasks.map(\.id) == ["a"])
        #expect(try await store.redo()?.tasks.map(\.title) == ["After"])
    }

    @Test(arguments: StoreKind.allCases)
    func undoingADeleteBringsBackTheTaskItsTagsAndDependenciesBothWays(kind: StoreKind) async throws {
        let store = try openStore(kind)
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
        #expect(undone.tasks.map(\.id) == ["a", "b"] && undone.deleted.isEmpty)
        let back = try await store.get(id: "b")
        #expect(fields(back) == fields(deleted))
        #expect(back.version == deleted.version + 1)
        #expect(fields(try await store.get(id: "a")) == fields(dependent))
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["t2"]))).tasks.map(\.id) == ["b"])
        // Redo deletes it again, and takes it out of its dependent again.
        let redone = try #require(try await store.redo())
        #expect(redone.deleted == ["b"])
        #expect(try await !store.exists("b"))
        #expect(try await store.get(id: "a").dependsOn == ["c"])
        // Deleted a second time (at version 2), it comes back past that version.
        #expect(try await store.undo()?.tasks.first { $0.id == "b" }?.version == deleted.version + 2)
    }

    @Test(arguments: StoreKind.allCases)
    func anApplyIsOneGroupAndEachGroupCommittedRequestIsItsOwn(kind: StoreKind) async throws {
        let store = try openStore(kind)
        _ = try await store.create(TaskDraft(id: "x", title: "x"))
        _ = try await store.apply(
            [
                .success(.create(TaskDraft(id: "a", title: "a"))), .success(.update(id: "x", changes: TaskChanges(title: "X"), ifVersion: nil)),
                .success(.update(id: "missing", changes: TaskChanges(title: "m"), ifVersion: nil)),
                .success(.create(TaskDraft(id: "b", title: "b", dependsOn: ["a"]))),
            ], atomic: false)
        let undone = try #require(try await store.undo())
        #expect(undone.group.firstSeq == 2 && undone.group.lastSeq == 4)
        #expect(undone.deleted.sorted() == ["a", "b"] && undone.tasks.map(\.title) == ["x"])
        _ = try await store.redo()
        _ = try await store.performEach([.create(TaskDraft(id: "c", title: "c")), .create(TaskDraft(id: "d", title: "d"))])
        #expect(try await store.undo()?.deleted == ["d"])
        #expect(try await store.undo()?.deleted == ["c"])
        #expect(try await store.undo()?.deleted.sorted() == ["a", "b"])
        #expect(try await store.undo()?.deleted == ["x"])
        #expect(try await store.undo() == nil)
    }

    /// The order of a reversal's changes (protocol/README.md, tasks/undo): the deletions of
    /// the tasks the group created in the order of their first change in the group; the
    /// rewrites in an order the spec leaves to each store, so compared as a set.
    @Test(arguments: StoreKind.allCases)
    func aReversalDeletesInTheGroupsOrderAndRewritesAsASet(kind: StoreKind) async throws {
        let store = try openStore(kind)
        _ = try await store.create(TaskDraft(id: "c", title: "c"))
        _ = try await store.create(TaskDraft(id: "d", title: "d"))
        _ = try await store.apply(
            [
                .update(id: "d", changes: TaskChanges(title: "D"), ifVersion: nil),
                .update(id: "c", changes: TaskChanges(title: "C"), ifVersion: nil),
            ], atomic: true)
        let rewrites = try #require(try await store.undo())
        #expect(Set(rewrites.changes.map(\.id)) == ["c", "d"] && rewrites.changes.count == 2)
        #expect(rewrites.tasks.map(\.id) == ["d", "c"], "the group's tasks in the order of their first change")
        _ = try await store.apply([.create(TaskDraft(id: "t2", title: "t2")), .create(TaskDraft(id: "t1", title: "t1"))], atomic: true)
        let deletions = try #require(try await store.undo())
        #expect(deletions.changes.map(\.id) == ["t2", "t1"] && deletions.deleted == ["t2", "t1"])
    }

    @Test(arguments: StoreKind.allCases)
    func aTaskTheReversalLeavesAsItIsComesBackAsItIs(kind: StoreKind) async throws {
        let store = try openStore(kind)
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

    @Test(arguments: StoreKind.allCases)
    func aDependentTheReversalAlsoChangesIsAnsweredAtItsLastVersion(kind: StoreKind) async throws {
        let store = try openStore(kind)
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

    @Test(arguments: StoreKind.allCases)
    func scopeConnectionMeansThisStoresOwnGroupsAndDatabaseAnyones(kind: StoreKind) async throws {
        let (mine, theirs) = try twoStores(kind)
        _ = try await mine.create(TaskDraft(id: "m", title: "m"))
        _ = try await theirs.create(TaskDraft(id: "t", title: "t"))
        let undone = try #require(try await mine.undo())
        #expect(undone.deleted == ["m"] && undone.group.own)
        #expect(try await mine.undo() == nil)
        #expect(try await mine.exists("t"))
        let other = try #require(try await mine.undo(scope: .database, force: false))
        #expect(other.deleted == ["t"] && !other.group.own)
        // Their own scope sees their group as undone already, and the undo as mine.
        #expect(try await theirs.undo() == nil)
        #expect(try await theirs.redo() == nil)
        #expect(try await mine.redo(scope: .database, force: false)?.tasks.map(\.id) == ["t"])
    }

    @Test(arguments: StoreKind.allCases)
    func aTaskChangedOnAnotherStoreIsAConflictThatRevertsNothingUnlessForced(kind: StoreKind) async throws {
        let (first, second) = try twoStores(kind)
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
        let forced = try #require(try await first.undo(scope: .connection, force: true))
        #expect(forced.tasks.map(\.title) == ["one", "b"])
        // A task deleted since is a conflict too, and comes back when forced.
        _ = try await first.update(id: "b", changes: TaskChanges(title: "again"))
        _ = try await second.delete(id: "b")
        await #expect(throws: TaskStoreError.undoConflict(tasks: [], deleted: ["b"])) { try await first.undo() }
        #expect(try await first.undo(scope: .connection, force: true)?.tasks.map(\.title) == ["b"])
        // The same for redo: their edit after my undo.
        _ = try await first.update(id: "a", changes: TaskChanges(title: "four"))
        _ = try await first.undo()
        let edited = try await second.update(id: "a", changes: TaskChanges(title: "five")).value
        await #expect(throws: TaskStoreError.undoConflict(tasks: [edited], deleted: [])) { try await first.redo() }
        #expect(try await first.redo(scope: .connection, force: true)?.tasks.map(\.title) == ["four"])
    }

    /// A dependency the reversal would restore that closes a cycle through a task outside
    /// the group fails the whole undo with 1006.
    @Test(arguments: StoreKind.allCases)
    func aDependencyThatWouldCloseACycleFailsTheUndo(kind: StoreKind) async throws {
        let (mine, theirs) = try twoStores(kind)
        _ = try await mine.create(TaskDraft(id: "a", title: "a"))
        _ = try await mine.create(TaskDraft(id: "b", title: "b", dependsOn: ["a"]))
        _ = try await mine.update(id: "b", changes: TaskChanges(dependsOn: []))
        _ = try await theirs.update(id: "a", changes: TaskChanges(dependsOn: ["b"]))
        let seq = try await mine.currentSeq()
        await #expect(throws: TaskStoreError.dependencyCycle(ids: ["b", "a"])) { try await mine.undo() }
        #expect(try await mine.currentSeq() == seq)
        #expect(try await mine.get(id: "b").dependsOn.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func groupsThatLaterReversalsCancelAreNoConflict(kind: StoreKind) async throws {
        let store = try openStore(kind)
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

    @Test(arguments: StoreKind.allCases)
    func aNewWriteClearsTheRedoListOfItsScopeOnly(kind: StoreKind) async throws {
        let (mine, theirs) = try twoStores(kind)
        _ = try await mine.create(TaskDraft(id: "a", title: "a"))
        _ = try await mine.undo()
        _ = try await theirs.create(TaskDraft(id: "t", title: "t"))
        #expect(try await mine.redo(scope: .database, force: false) == nil)
        #expect(try await mine.redo()?.tasks.map(\.id) == ["a"])
        _ = try await mine.undo()
        _ = try await mine.create(TaskDraft(id: "b", title: "b"))
        #expect(try await mine.redo() == nil)
    }

    /// A store opened again with the same origin (the command line's) finds its groups; the
    /// pruned history takes whole groups with it, and keeps the newest change's.
    @Test(arguments: StoreKind.allCases)
    func groupsOutliveTheStoreAndGoWithThePrunedHistory(kind: StoreKind) async throws {
        let database = try StoreUnderTest(kind)
        do {
            let store = try database.open(origin: WriteOrigin.commandLine)
            _ = try await store.create(TaskDraft(id: "a", title: "a"))
            _ = try await store.update(id: "a", changes: TaskChanges(title: "b"))
            await store.close()
        }
        let reopened = try database.open(origin: WriteOrigin.commandLine)
        #expect(try await reopened.undo()?.tasks.map(\.title) == ["a"])
        #expect(try await database.open().undo() == nil)
        #expect(try await database.open().undo(scope: .database, force: false)?.deleted == ["a"])
        // Pruning keeps the newest change, the last undo's: its group is whole and stays.
        _ = try await reopened.pruneHistory(before: .max)
        #expect(try await reopened.undo(scope: .database, force: false) == nil)
        #expect(try await reopened.redo(scope: .database, force: false)?.tasks.map(\.title) == ["a"])
    }
}
