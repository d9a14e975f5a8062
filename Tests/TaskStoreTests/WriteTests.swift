import TaskModel
import TaskStore
import TestSupport
import Testing

@Suite struct WriteTests {
    let directory = TemporaryDirectory()

    @Test func createFillsDefaults() async throws {
        let clock = ManualClock(1_780_000_000_000)
        let store = try makeStore(directory, clock: clock)
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

    @Test func createKeepsEveryField() async throws {
        let store = try makeStore(directory)
        let task = try await store.add(
            "Plan", notes: "line 1\nline 2", done: true, priority: 3,
            tags: ["work", "home", "work"], due: "2026-12-01T17:00:00+01:00", id: "my-id")
        #expect(task.id == "my-id")
        #expect(task.tags == ["home", "work"])
        #expect(task.completedAt == task.createdAt)
        #expect(try await store.get(id: "my-id") == task)
    }

    @Test func notesWithANULAreRefusedAndIDsMatchExactly() async throws {
        let store = try makeStore(directory)
        #expect(await invalidField { try await store.add("t", notes: "before\u{0}after") } == "notes")
        let task = try await store.add("t", id: "target")
        await #expect(throws: TaskStoreError.notFound(id: "target\u{0}x")) { try await store.get(id: "target\u{0}x") }
        await #expect(throws: TaskStoreError.notFound(id: "target\u{0}x")) { try await store.delete(id: "target\u{0}x") }
        #expect(try await store.get(id: "target") == task)
    }

    @Test func suppliedIDThatExistsIsRefused() async throws {
        let store = try makeStore(directory)
        try await store.add("one", id: "x")
        await #expect(throws: TaskStoreError.alreadyExists(id: "x")) { try await store.add("two", id: "x") }
        #expect(try await store.get(id: "x").title == "one")
    }

    @Test func createValidatesEveryField() async throws {
        let store = try makeStore(directory)
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

    @Test func updateChangesFieldsAndBumpsVersion() async throws {
        let clock = ManualClock()
        let store = try makeStore(directory, clock: clock)
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

    @Test func doneSetsAndClearsCompletedAt() async throws {
        let store = try makeStore(directory)
        let task = try await store.add("t")
        let done = try await store.update(id: task.id, changes: TaskChanges(done: true)).value
        #expect(done.completedAt == done.updatedAt)
        let again = try await store.update(id: task.id, changes: TaskChanges(done: true, priority: 1)).value
        #expect(again.completedAt == done.completedAt)  // already done: completion time kept
        let undone = try await store.update(id: task.id, changes: TaskChanges(done: false)).value
        #expect(undone.completedAt == nil)
    }

    @Test func updateThatChangesNothingKeepsVersionAndRecordsNoChange() async throws {
        let store = try makeStore(directory)
        let task = try await store.add("same", tags: ["x"])
        let written = try await store.update(id: task.id, changes: TaskChanges(title: "same", tags: ["x", "x"]))
        #expect(written.value == task)
        #expect(written.change == nil)
        let empty = try await store.update(id: task.id, changes: TaskChanges())
        #expect(empty.value == task)
        #expect(try await store.currentSeq() == 1)
    }

    @Test func canonicallyEquivalentTextIsStillAChange() async throws {
        let store = try makeStore(directory)
        let task = try await store.add("caf\u{E9}", notes: "\u{C5}")
        let written = try await store.update(id: task.id, changes: TaskChanges(title: "cafe\u{301}", notes: "A\u{30A}"))
        #expect(written.change != nil)
        let stored = try await store.get(id: task.id)
        #expect(Array(stored.title.utf8) == Array("cafe\u{301}".utf8))
        #expect(Array(stored.notes.utf8) == Array("A\u{30A}".utf8))
        #expect(stored.version == 2)
    }

    @Test func ifVersionIsCheckedWithTheWrite() async throws {
        let store = try makeStore(directory)
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

    @Test func updateValidationNamesTheChangesField() async throws {
        let store = try makeStore(directory)
        let task = try await store.add("t")
        #expect(await invalidField { _ = try await store.update(id: task.id, changes: TaskChanges(title: " ")) } == "changes.title")
        #expect(await invalidField { _ = try await store.update(id: task.id, changes: TaskChanges(priority: 9)) } == "changes.priority")
        #expect(await invalidField { _ = try await store.update(id: task.id, changes: TaskChanges(tags: ["ok", "a b"])) } == "changes.tags[1]")
        #expect(await invalidField { _ = try await store.update(id: task.id, changes: TaskChanges(due: .some("soon"))) } == "changes.due")
        #expect(try await store.get(id: task.id) == task)
    }

    @Test func missingTasksAreNotFound() async throws {
        let store = try makeStore(directory)
        await #expect(throws: TaskStoreError.notFound(id: "nope")) { try await store.get(id: "nope") }
        await #expect(throws: TaskStoreError.notFound(id: "nope")) { try await store.update(id: "nope", changes: TaskChanges(title: "x")) }
        await #expect(throws: TaskStoreError.notFound(id: "nope")) { try await store.delete(id: "nope") }
    }

    @Test func deleteRemovesTaskAndTags() async throws {
        let store = try makeStore(directory)
        let task = try await store.add("gone", tags: ["a", "b"])
        let written = try await store.delete(id: task.id)
        #expect(written.change == TaskChange(seq: 2, kind: .deleted, id: task.id, version: 1, task: nil))
        await #expect(throws: TaskStoreError.notFound(id: task.id)) { try await store.get(id: task.id) }
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["a"]))).tasks.isEmpty)
    }

    @Test func seqGrowsAndSurvivesReopeningAndDeletion() async throws {
        var seqs: [Int64] = []
        do {
            let store = try makeStore(directory)
            let a = try await store.create(TaskDraft(title: "a"))
            let b = try await store.update(id: a.value.id, changes: TaskChanges(title: "b"))
            let c = try await store.delete(id: a.value.id)
            seqs = [a.change!.seq, b.change!.seq, c.change!.seq]
        }
        let reopened = try makeStore(directory)
        #expect(try await reopened.currentSeq() == 3)
        let d = try await reopened.create(TaskDraft(title: "d"))
        seqs.append(d.change!.seq)
        #expect(seqs == [1, 2, 3, 4])
        #expect(try await reopened.get(id: d.value.id).title == "d")
    }
}
