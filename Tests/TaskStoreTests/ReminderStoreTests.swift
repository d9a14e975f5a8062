import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// A reminder moved in the SQLite file, by the store or by another writer (the schema's
/// trigger), is new (the rest of the reminders' contract is ReminderContractTests').
@Suite struct ReminderStoreTests {
    let directory = TemporaryDirectory()

    static let t0 = Timestamp.parse("2026-12-01T09:00:00Z")!

    func create(_ store: TaskStore, _ id: String, remindAt: String?, done: Bool = false) async throws {
        _ = try await store.create(TaskDraft(id: id, title: id, done: done, remindAt: remindAt))
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
}
