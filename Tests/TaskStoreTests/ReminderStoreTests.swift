import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// What the store records about reminders: which are due at a given time, that a claimed
/// one is never claimed again by any connection to the file, and that moving one, by any
/// writer, makes it new. Times are passed in, so nothing here waits.
@Suite struct ReminderStoreTests {
    let directory = TemporaryDirectory()

    static let t0 = Timestamp.parse("2026-12-01T09:00:00Z")!

    func create(_ store: TaskStore, _ id: String, remindAt: String?, done: Bool = false) async throws {
        _ = try await store.create(TaskDraft(id: id, title: id, done: done, remindAt: remindAt))
    }

    @Test func dueRemindersAreClaimedOnceInTimeOrderAndTheNextIsTold() async throws {
        let store = try makeStore(directory)
        try await create(store, "later", remindAt: "2026-12-01T10:00:00+01:00")  // 09:00Z
        try await create(store, "sooner", remindAt: "2026-12-01T08:30:00Z")
        try await create(store, "done", remindAt: "2026-12-01T08:00:00Z", done: true)
        try await create(store, "future", remindAt: "2026-12-02")
        try await create(store, "none", remindAt: nil)

        let before = try await store.claimDueReminders(now: Self.t0 - 3_600_001)
        #expect(before.tasks.isEmpty)
        #expect(before.next == Timestamp.parse("2026-12-01T08:30:00Z"))

        let due = try await store.claimDueReminders(now: Self.t0)
        #expect(due.tasks.map(\.id) == ["sooner", "later"])
        #expect(due.tasks.map(\.remindAt) == ["2026-12-01T08:30:00Z", "2026-12-01T10:00:00+01:00"])
        #expect(due.next == Timestamp.parse("2026-12-02"))
        #expect(try await store.claimDueReminders(now: Self.t0).tasks.isEmpty)

        // Another connection to the file finds them claimed.
        let other = try makeStore(directory)
        #expect(try await other.claimDueReminders(now: Self.t0 + 86_400_000).tasks.map(\.id) == ["future"])
        #expect(try await store.claimDueReminders(now: Self.t0 + 86_400_000).tasks.isEmpty)
    }

    @Test func aMovedReminderIsNewAndAnUnmovedOneIsNot() async throws {
        let store = try makeStore(directory)
        try await create(store, "a", remindAt: "2026-12-01T08:00:00Z")
        #expect(try await store.claimDueReminders(now: Self.t0).tasks.map(\.id) == ["a"])

        _ = try await store.update(id: "a", changes: TaskChanges(title: "renamed", remindAt: .some("2026-12-01T09:00:00+01:00")))
        #expect(try await store.claimDueReminders(now: Self.t0).tasks.isEmpty, "the same instant written otherwise")

        _ = try await store.update(id: "a", changes: TaskChanges(remindAt: .some("2026-12-01T08:30:00Z")))
        #expect(try await store.claimDueReminders(now: Self.t0).tasks.map(\.id) == ["a"])

        // Another writer of the file moves it: the schema's trigger makes it new too.
        let database = try Database(path: directory.file("tasks.sqlite"))
        try database.execute("UPDATE task SET remind = '2026-12-01T08:45:00Z', remind_at = \(Self.t0 - 900_000) WHERE id = 'a'")
        database.close()
        #expect(try await store.claimDueReminders(now: Self.t0).tasks.map(\.id) == ["a"])

        _ = try await store.update(id: "a", changes: TaskChanges(remindAt: .some(nil)))
        #expect(try await store.claimDueReminders(now: Self.t0 + 86_400_000).next == nil)
    }

    @Test func aReopenedTaskWhoseReminderPassedIsDue() async throws {
        let store = try makeStore(directory)
        try await create(store, "a", remindAt: "2026-12-01T08:00:00Z", done: true)
        #expect(try await store.claimDueReminders(now: Self.t0).tasks.isEmpty)
        _ = try await store.update(id: "a", changes: TaskChanges(done: false))
        #expect(try await store.claimDueReminders(now: Self.t0).tasks.map(\.id) == ["a"])
    }

    @Test func aClaimWritesNoChange() async throws {
        let store = try makeStore(directory)
        try await create(store, "a", remindAt: "2026-12-01T08:00:00Z")
        let seq = try await store.currentSeq()
        let version = try await store.get(id: "a").version
        #expect(try await store.claimDueReminders(now: Self.t0).tasks.count == 1)
        #expect(try await store.currentSeq() == seq)
        #expect(try await store.get(id: "a").version == version)
    }
}
