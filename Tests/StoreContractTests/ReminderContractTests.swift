import TaskModel
import TestSupport
import Testing

/// Reminders on each store: which are due at a given time, and that a claimed one is never
/// claimed again by any store on the database. Times are passed in, so nothing here waits.
@Suite struct ReminderContractTests {
    static let t0 = Timestamp.parse("2026-12-01T09:00:00Z")!

    func create(_ store: any TaskStoring, _ id: String, remindAt: String?, done: Bool = false) async throws {
        _ = try await store.create(TaskDraft(id: id, title: id, done: done, remindAt: remindAt))
    }

    @Test(arguments: StoreKind.allCases)
    func dueRemindersAreClaimedOnceInTimeOrderAndTheNextIsTold(kind: StoreKind) async throws {
        let database = try StoreUnderTest(kind)
        let store = try database.open()
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

        // Another store on the database finds them claimed.
        let other = try database.open()
        #expect(try await other.claimDueReminders(now: Self.t0 + 86_400_000).tasks.map(\.id) == ["future"])
        #expect(try await store.claimDueReminders(now: Self.t0 + 86_400_000).tasks.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func aReopenedTaskWhoseReminderPassedIsDue(kind: StoreKind) async throws {
        let store = try openStore(kind)
        try await create(store, "a", remindAt: "2026-12-01T08:00:00Z", done: true)
        #expect(try await store.claimDueReminders(now: Self.t0).tasks.isEmpty)
        _ = try await store.update(id: "a", changes: TaskChanges(done: false))
        #expect(try await store.claimDueReminders(now: Self.t0).tasks.map(\.id) == ["a"])
    }

    @Test(arguments: StoreKind.allCases)
    func aClaimWritesNoChange(kind: StoreKind) async throws {
        let store = try openStore(kind)
        try await create(store, "a", remindAt: "2026-12-01T08:00:00Z")
        let seq = try await store.currentSeq()
        let version = try await store.get(id: "a").version
        #expect(try await store.claimDueReminders(now: Self.t0).tasks.count == 1)
        #expect(try await store.currentSeq() == seq)
        #expect(try await store.get(id: "a").version == version)
    }
}
