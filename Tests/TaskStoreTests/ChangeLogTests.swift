import SQLite
import TaskModel
import TaskStore
import TestSupport
import Testing

@Suite struct ChangeLogTests {
    let directory = TemporaryDirectory()

    @Test func changesListEveryKindOldestFirstWithTheCurrentTask() async throws {
        let store = try makeStore(directory)
        try await store.add("a", id: "a")
        try await store.add("b", id: "b")
        let a2 = try await store.update(id: "a", changes: TaskChanges(title: "a2")).value
        _ = try await store.delete(id: "b")
        let page = try await store.changes(since: 0)
        #expect(page.changes.map(\.seq) == [1, 2, 3, 4])
        #expect(page.changes.map(\.kind) == [.created, .created, .updated, .deleted])
        #expect(page.changes.map(\.version) == [1, 1, 2, 1])
        #expect(page.changes[0].task == a2, "creations carry the task as it is now")
        #expect(page.changes[1].task == nil, "b is gone")
        #expect(page.changes[3].task == nil)
        #expect(page.seq == 4)
        #expect(!page.hasMore)
    }

    @Test func pagingWithLimitAndHasMore() async throws {
        let store = try makeStore(directory)
        for index in 0..<5 { try await store.add("t\(index)") }
        let first = try await store.changes(since: 0, limit: 2)
        #expect(first.changes.map(\.seq) == [1, 2])
        #expect(first.hasMore)
        let second = try await store.changes(since: first.seq, limit: 3)
        #expect(second.changes.map(\.seq) == [3, 4, 5])
        #expect(!second.hasMore)
        let none = try await store.changes(since: 5)
        #expect(none.changes.isEmpty)
        #expect(none.seq == 5)
    }

    @Test func sinceAheadOfTheDatabaseIsInvalid() async throws {
        let store = try makeStore(directory)
        try await store.add("x")
        #expect(await invalidField { _ = try await store.changes(since: 2) } == "since")
        #expect(await invalidField { _ = try await store.changes(since: -1) } == "since")
        #expect(await invalidField { _ = try await store.changes(since: 0, limit: 0) } == "limit")
    }

    @Test func prunedHistoryIsReportedAsExpired() async throws {
        let store = try makeStore(directory)
        for index in 0..<3 { try await store.add("t\(index)") }
        #expect(try await store.pruneHistory(before: Timestamp.now() + 60_000) == 2, "the newest change stays")
        try await store.add("after")
        await #expect(throws: TaskStoreError.historyExpired(since: 1, oldestSeq: 3)) { try await store.changes(since: 1) }
        #expect(try await store.changes(since: 2).changes.map(\.seq) == [3, 4])
        #expect(try await store.pruneHistory(before: 0) == 0)
        #expect(try await store.currentSeq() == 4)
    }

    /// SQLite numbers a change after the largest seq in the log: were the log ever emptied,
    /// the seqs clients hold would be handed out again.
    @Test func pruningEverythingStillNeverRepeatsASeq() async throws {
        let store = try makeStore(directory)
        for index in 0..<3 { try await store.add("t\(index)") }
        for _ in 0..<2 { try await store.pruneHistory(before: Timestamp.now() + 60_000) }
        #expect(try await store.currentSeq() == 3)
        let created = try await store.create(TaskDraft(title: "next"))
        #expect(created.change?.seq == 4)
        #expect(try await store.changes(since: 3).changes.map(\.seq) == [4])
    }

    /// What goes is the run of changes before the first recent one: a change stamped before
    /// the cutoff after it (the clock stepped back) stays, as do all that follow.
    @Test func pruningStopsAtTheFirstRecentChange() async throws {
        let store = try makeStore(directory)
        for index in 0..<5 { try await store.add("t\(index)") }
        let database = try Database(path: directory.file("tasks.sqlite"))
        try database.run("UPDATE change SET at = CASE seq WHEN 3 THEN 2000 ELSE 1000 END")
        #expect(try await store.pruneHistory(before: 1500) == 2)
        #expect(try database.integer("SELECT min(seq) FROM change") == 3)
        #expect(try await store.changes(since: 2).changes.map(\.seq) == [3, 4, 5])
    }

    @Test func atomicApplyIsAllOrNothing() async throws {
        let store = try makeStore(directory)
        try await store.add("existing", id: "e")
        await #expect(throws: TaskStoreError.operationFailed(index: 2, error: .notFound(id: "missing"))) {
            try await store.apply(
                [
                    .create(TaskDraft(id: "n", title: "new")),
                    .update(id: "e", changes: TaskChanges(title: "changed"), ifVersion: 1),
                    .delete(id: "missing", ifVersion: nil),
                ], atomic: true)
        }
        #expect(try await store.get(id: "e").title == "existing")
        await #expect(throws: TaskStoreError.notFound(id: "n")) { try await store.get(id: "n") }
        #expect(try await store.currentSeq() == 1)

        let results = try await store.apply(
            [
                .create(TaskDraft(id: "n", title: "new")),
                .update(id: "e", changes: TaskChanges(done: true), ifVersion: 1),
                .delete(id: "n", ifVersion: 1),
            ], atomic: true)
        #expect(results.compactMap { try? $0.get().change?.seq } == [2, 3, 4])
    }

    @Test func atomicApplyNamesTheBadOperationsField() async throws {
        let store = try makeStore(directory)
        await #expect(
            throws: TaskStoreError.operationFailed(
                index: 1,
                error: .invalid(
                    field: "operations[1].update.changes.priority",
                    reason: "must be 0 (none), 1 (low), 2 (medium) or 3 (high)"))
        ) {
            try await store.apply(
                [.create(TaskDraft(title: "ok")), .update(id: "x", changes: TaskChanges(priority: 9), ifVersion: nil)], atomic: true)
        }
        #expect(try await store.currentSeq() == 0)
    }

    @Test func nonAtomicApplyLetsEachOperationFailAlone() async throws {
        let store = try makeStore(directory)
        let results = try await store.apply(
            [
                .create(TaskDraft(id: "a", title: "a")),
                .create(TaskDraft(id: "a", title: "duplicate")),
                .create(TaskDraft(title: " ")),
                .update(id: "a", changes: TaskChanges(priority: 2), ifVersion: 1),
            ], atomic: false)
        #expect((try? results[0].get())?.task?.title == "a")
        #expect(throws: TaskStoreError.alreadyExists(id: "a")) { try results[1].get() }
        #expect(throws: TaskStoreError.invalid(field: "operations[2].create.title", reason: "must contain a character that is not white space")) {
            try results[2].get()
        }
        #expect((try? results[3].get())?.task?.priority == 2)
        #expect(try await store.changes(since: 0).changes.map(\.seq) == [1, 2], "failed operations leave no gap in seq")
    }

    @Test func anotherConnectionsCommitsAreDetectedAndLogged() async throws {
        let path = directory.file("shared.sqlite")
        let mine = try TaskStore(path: path)
        let theirs = try TaskStore(path: path)
        #expect(try await mine.hasExternalChanges() == true)  // the first call has nothing to compare with
        #expect(try await mine.hasExternalChanges() == false)
        _ = try await mine.create(TaskDraft(title: "mine"))
        #expect(try await mine.hasExternalChanges() == false, "own commits do not count")
        _ = try await theirs.create(TaskDraft(title: "theirs"))
        #expect(try await mine.hasExternalChanges() == true)
        #expect(try await mine.changes(since: 1).changes.map { $0.task?.title } == ["theirs"])

        // A writer that is not Taskline at all is logged by the triggers.
        let raw = try Database(path: path)
        try raw.execute("UPDATE task SET title = 'raw', version = version + 1 WHERE title = 'mine'")
        let logged = try await mine.changes(since: 2).changes
        #expect(logged.map(\.kind) == [.updated])
        #expect(logged.first?.task?.title == "raw")
    }
}

@Suite struct ChangeLogEdgeTests {
    let directory = TemporaryDirectory()

    @Test func aReusedIDDoesNotLendItsTaskToTheOldCreation() async throws {
        let store = try makeStore(directory)
        try await store.add("first life", id: "x")
        _ = try await store.delete(id: "x")
        try await store.add("second life", id: "x")
        let changes = try await store.changes(since: 0).changes
        #expect(changes.map(\.kind) == [.created, .deleted, .created])
        #expect(changes[0].task == nil)
        #expect(changes[2].task?.title == "second life")
    }

    @Test func anAtomicConflictReportsTheCommittedTask() async throws {
        let store = try makeStore(directory)
        let committed = try await store.add("x", id: "x")
        await #expect(throws: TaskStoreError.operationFailed(index: 1, error: .versionConflict(current: committed))) {
            try await store.apply(
                [
                    .update(id: "x", changes: TaskChanges(priority: 3), ifVersion: nil),
                    .delete(id: "x", ifVersion: 1),
                ], atomic: true)
        }
    }
}
