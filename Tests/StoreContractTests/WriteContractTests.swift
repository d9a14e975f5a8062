import TaskModel
import TestSupport
import Testing

/// Creates, updates and deletes on each store: defaults, validation, versions, completion,
/// `ifVersion`, dependencies and cycles, and `apply`, atomic or not.
@Suite struct WriteContractTests {
    @Test(arguments: StoreKind.allCases)
    func createFillsDefaults(kind: StoreKind) async throws {
        let store = try openStore(kind, clock: ManualClock(1_780_000_000_000))
        let task = try await store.add("Buy milk")
        #expect(task.title == "Buy milk")
        #expect(task.notes == "")
        #expect(!task.done)
        #expect(task.priority == 0)
        #expect(task.tags == [])
        #expect(task.due == nil)
        #expect(task.version == 1)
        #expect(task.completedAt == nil)
        #expect(task.createdAt == 1_780_000_000_001)
        #expect(task.updatedAt == task.createdAt)
        #expect(task.id.count == 36)
        #expect(task.id == task.id.lowercased())
        #expect(try await store.get(id: task.id) == task)
    }

    @Test(arguments: StoreKind.allCases)
    func createKeepsEveryField(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let task = try await store.add(
            "Plan", notes: "line 1\nline 2", done: true, priority: 3,
            tags: ["work", "home", "work"], due: "2026-12-01T17:00:00+01:00", id: "my-id")
        #expect(task.id == "my-id")
        #expect(task.tags == ["home", "work"])
        #expect(task.completedAt == task.createdAt)
        #expect(try await store.get(id: "my-id") == task)
    }

    @Test(arguments: StoreKind.allCases)
    func notesWithANULAreRefusedAndIDsMatchExactly(kind: StoreKind) async throws {
        let store = try openStore(kind)
        #expect(await invalidField { try await store.add("t", notes: "before\u{0}after") } == "notes")
        let task = try await store.add("t", id: "target")
        await #expect(throws: TaskStoreError.notFound(id: "target\u{0}x")) { try await store.get(id: "target\u{0}x") }
        await #expect(throws: TaskStoreError.notFound(id: "target\u{0}x")) { try await store.delete(id: "target\u{0}x") }
        #expect(try await store.get(id: "target") == task)
    }

    @Test(arguments: StoreKind.allCases)
    func suppliedIDThatExistsIsRefused(kind: StoreKind) async throws {
        let store = try openStore(kind)
        try await store.add("one", id: "x")
        await #expect(throws: TaskStoreError.alreadyExists(id: "x")) { try await store.add("two", id: "x") }
        #expect(try await store.get(id: "x").title == "one")
    }

    @Test(arguments: StoreKind.allCases)
    func createValidatesEveryField(kind: StoreKind) async throws {
        let store = try openStore(kind)
        #expect(await invalidField { try await store.add("   ") } == "title")
        #expect(await invalidField { try await store.add("a\u{7}b") } == "title")
        #expect(await invalidField { try await store.add(String(repeating: "x", count: 1025)) } == "title")
        #expect(await invalidField { try await store.add("ok", notes: String(repeating: "n", count: 65_537)) } == "notes")
        #expect(await invalidField { try await store.add("ok", priority: 4) } == "priority")
        #expect(await invalidField { try await store.add("ok", priority: -1) } == "priority")
        #expect(await invalidField { try await store.add("ok", tags: ["fine", "has space"]) } == "tags[1]")
        #expect(await invalidField { try await store.add("ok", tags: [""]) } == "tags[0]")
        #expect(await invalidField { try await store.add("ok", tags: (0..<65).map { "t\($0)" }) } == "tags")
        #expect(await invalidField { try await store.add("ok", due: "tomorrow") } == "due")
        #expect(await invalidField { try await store.add("ok", due: "2026-02-30") } == "due")
        #expect(await invalidField { try await store.add("ok", id: "") } == "id")
        #expect(await invalidField { try await store.add("ok", id: "a\nb") } == "id")
        #expect(await invalidField { try await store.add("ok", id: String(repeating: "i", count: 129)) } == "id")
        // At the limits, it works.
        try await store.add(
            String(repeating: "é", count: 1024), notes: String(repeating: "n", count: 65_536),
            tags: (0..<64).map { "t\($0)" }, id: String(repeating: "i", count: 128))
        #expect(try await store.fetch(TaskQuery(includeTotal: true)).total == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func updateChangesFieldsAndBumpsVersion(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let task = try await store.add("draft", tags: ["a"], due: "2026-12-01")
        let written = try await store.update(id: task.id, changes: TaskChanges(title: "final", priority: 2, tags: ["b", "c"], due: .some(nil)))
        let updated = written.value
        #expect(updated.title == "final")
        #expect(updated.priority == 2)
        #expect(updated.tags == ["b", "c"])
        #expect(updated.due == nil)
        #expect(updated.version == 2)
        #expect(updated.updatedAt > task.updatedAt)
        #expect(updated.createdAt == task.createdAt)
        #expect(written.change?.kind == .updated)
        #expect(written.change?.version == 2)
        #expect(try await store.get(id: task.id) == updated)
    }

    @Test(arguments: StoreKind.allCases)
    func doneSetsAndClearsCompletedAt(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let task = try await store.add("t")
        let done = try await store.update(id: task.id, changes: TaskChanges(done: true)).value
        #expect(done.completedAt == done.updatedAt)
        let again = try await store.update(id: task.id, changes: TaskChanges(done: true, priority: 1)).value
        #expect(again.completedAt == done.completedAt)  // already done: completion time kept
        let undone = try await store.update(id: task.id, changes: TaskChanges(done: false)).value
        #expect(undone.completedAt == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func updateThatChangesNothingKeepsVersionAndRecordsNoChange(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let task = try await store.add("same", tags: ["x"])
        let written = try await store.update(id: task.id, changes: TaskChanges(title: "same", tags: ["x", "x"]))
        #expect(written.value == task)
        #expect(written.change == nil)
        let empty = try await store.update(id: task.id, changes: TaskChanges())
        #expect(empty.value == task)
        #expect(try await store.currentSeq() == 1)
        // Nor is it a change group: undo finds the create.
        #expect(try await store.undo()?.deleted == [task.id])
    }

    @Test(arguments: StoreKind.allCases)
    func canonicallyEquivalentTextIsStillAChange(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let task = try await store.add("caf\u{E9}", notes: "\u{C5}")
        let written = try await store.update(id: task.id, changes: TaskChanges(title: "cafe\u{301}", notes: "A\u{30A}"))
        #expect(written.change != nil)
        let stored = try await store.get(id: task.id)
        #expect(Array(stored.title.utf8) == Array("cafe\u{301}".utf8))
        #expect(Array(stored.notes.utf8) == Array("A\u{30A}".utf8))
        #expect(stored.version == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func ifVersionIsCheckedWithTheWrite(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let task = try await store.add("v")
        _ = try await store.update(id: task.id, changes: TaskChanges(title: "v2"), ifVersion: 1)
        let current = try await store.get(id: task.id)
        await #expect(throws: TaskStoreError.versionConflict(current: current)) {
            try await store.update(id: task.id, changes: TaskChanges(title: "v3"), ifVersion: 1)
        }
        await #expect(throws: TaskStoreError.versionConflict(current: current)) {
            try await store.delete(id: task.id, ifVersion: 1)
        }
        #expect(try await store.get(id: task.id).title == "v2")
        _ = try await store.delete(id: task.id, ifVersion: 2)
    }

    @Test(arguments: StoreKind.allCases)
    func updateValidationNamesTheChangesField(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let task = try await store.add("t")
        #expect(await invalidField { _ = try await store.update(id: task.id, changes: TaskChanges(title: " ")) } == "changes.title")
        #expect(await invalidField { _ = try await store.update(id: task.id, changes: TaskChanges(priority: 9)) } == "changes.priority")
        #expect(await invalidField { _ = try await store.update(id: task.id, changes: TaskChanges(tags: ["ok", "a b"])) } == "changes.tags[1]")
        #expect(await invalidField { _ = try await store.update(id: task.id, changes: TaskChanges(due: .some("soon"))) } == "changes.due")
        #expect(try await store.get(id: task.id) == task)
    }

    @Test(arguments: StoreKind.allCases)
    func missingTasksAreNotFound(kind: StoreKind) async throws {
        let store = try openStore(kind)
        await #expect(throws: TaskStoreError.notFound(id: "nope")) { try await store.get(id: "nope") }
        await #expect(throws: TaskStoreError.notFound(id: "nope")) { try await store.update(id: "nope", changes: TaskChanges(title: "x")) }
        await #expect(throws: TaskStoreError.notFound(id: "nope")) { try await store.delete(id: "nope") }
    }

    @Test(arguments: StoreKind.allCases)
    func deleteRemovesTaskAndTags(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let task = try await store.add("gone", tags: ["a", "b"])
        let written = try await store.delete(id: task.id)
        #expect(written.change == TaskChange(seq: 2, kind: .deleted, id: task.id, version: 1, task: nil))
        await #expect(throws: TaskStoreError.notFound(id: task.id)) { try await store.get(id: task.id) }
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["a"]))).tasks.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func seqGrowsAndSurvivesReopeningAndDeletion(kind: StoreKind) async throws {
        let database = try StoreUnderTest(kind)
        var seqs: [Int64] = []
        do {
            let store = try database.open()
            let a = try await store.create(TaskDraft(title: "a"))
            let b = try await store.update(id: a.value.id, changes: TaskChanges(title: "b"))
            let c = try await store.delete(id: a.value.id)
            seqs = [a.change!.seq, b.change!.seq, c.change!.seq]
            await store.close()
        }
        let reopened = try database.open()
        #expect(try await reopened.currentSeq() == 3)
        let d = try await reopened.create(TaskDraft(title: "d"))
        seqs.append(d.change!.seq)
        #expect(seqs == [1, 2, 3, 4])
        #expect(try await reopened.get(id: d.value.id).title == "d")
    }

    @Test(arguments: StoreKind.allCases)
    func dependenciesAreCheckedAndADeletedTaskLeavesItsDependents(kind: StoreKind) async throws {
        let store = try openStore(kind)
        _ = try await store.create(TaskDraft(id: "a", title: "A"))
        _ = try await store.create(TaskDraft(id: "b", title: "B", dependsOn: ["a"]))
        await #expect(throws: TaskStoreError.invalid(field: "dependsOn[1]", reason: "no task has the id nope")) {
            try await store.create(TaskDraft(title: "C", dependsOn: ["a", "nope"]))
        }
        await #expect(throws: TaskStoreError.dependencyCycle(ids: ["a", "b"])) {
            try await store.update(id: "a", changes: TaskChanges(dependsOn: ["b"]))
        }
        await #expect(throws: TaskStoreError.dependencyCycle(ids: ["a"])) {
            try await store.update(id: "a", changes: TaskChanges(dependsOn: ["a"]))
        }
        let outcome = try await store.perform(.delete(id: "a", ifVersion: nil))
        #expect(outcome.otherChanges.map(\.id) == ["b"])
        #expect(outcome.changes.map(\.seq) == [3, 4])
        let b = try await store.get(id: "b")
        #expect(b.dependsOn.isEmpty && b.version == 2)
    }

    /// A deleted task's dependents are updated before the deletion, in the order of their
    /// ids by code point (protocol/README.md, tasks/delete), not in the order they were made.
    @Test(arguments: StoreKind.allCases)
    func aDeletedTasksDependentsAreUpdatedInTheOrderOfTheirIDs(kind: StoreKind) async throws {
        let store = try openStore(kind)
        _ = try await store.create(TaskDraft(id: "gone", title: "gone"))
        for id in ["b", "Z", "é", "a"] { _ = try await store.create(TaskDraft(id: id, title: id, dependsOn: ["gone"])) }
        let outcome = try await store.perform(.delete(id: "gone", ifVersion: nil))
        #expect(outcome.changes.map(\.id) == ["Z", "a", "b", "é", "gone"])
        #expect(try await store.changes(since: 5).changes.map(\.id) == ["Z", "a", "b", "é", "gone"])
    }

    /// Of two shortest cycles a write would close, 1006 names the first by code point,
    /// whatever order `dependsOn` was sent in (protocol/README.md §7, 1006).
    @Test(arguments: StoreKind.allCases)
    func ofTwoShortestCyclesTheFirstByCodePointIsNamed(kind: StoreKind) async throws {
        let store = try openStore(kind)
        _ = try await store.create(TaskDraft(id: "r", title: "r"))
        for id in ["y", "x"] { _ = try await store.create(TaskDraft(id: id, title: id, dependsOn: ["r"])) }
        for order in [["y", "x"], ["x", "y"]] {
            await #expect(throws: TaskStoreError.dependencyCycle(ids: ["r", "x"]), "dependsOn \(order)") {
                try await store.update(id: "r", changes: TaskChanges(dependsOn: order))
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anAtomicApplyIsAllOrNothingAndOtherwiseEachFailsAlone(kind: StoreKind) async throws {
        let store = try openStore(kind)
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

    @Test(arguments: StoreKind.allCases)
    func atomicApplyNamesTheBadOperationsField(kind: StoreKind) async throws {
        let store = try openStore(kind)
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

    @Test(arguments: StoreKind.allCases)
    func nonAtomicApplyLetsEachOperationFailAlone(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let results = try await store.apply(
            [
                .create(TaskDraft(id: "a", title: "a")),
                .create(TaskDraft(id: "a", title: "duplicate")),
                .create(TaskDraft(title: " ")),
                .update(id: "a", changes: TaskChanges(priority: 2), ifVersion: 1),
                .update(id: "missing", changes: TaskChanges(title: "x"), ifVersion: nil),
            ], atomic: false)
        #expect((try? results[0].get())?.task?.title == "a")
        #expect(throws: TaskStoreError.alreadyExists(id: "a")) { try results[1].get() }
        #expect(throws: TaskStoreError.invalid(field: "operations[2].create.title", reason: "must contain a character that is not white space")) {
            try results[2].get()
        }
        #expect((try? results[3].get())?.task?.priority == 2)
        #expect(results[4] == .failure(.notFound(id: "missing")))
        #expect(try await store.changes(since: 0).changes.map(\.seq) == [1, 2], "failed operations leave no gap in seq")
    }

    @Test(arguments: StoreKind.allCases)
    func anAtomicConflictReportsTheCommittedTask(kind: StoreKind) async throws {
        let store = try openStore(kind)
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
