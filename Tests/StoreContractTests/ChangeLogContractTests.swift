import TaskModel
import TestSupport
import Testing

/// The change log on each store: every change, oldest first, paged by `since`; pruning, and
/// what a client that asks for pruned history is told.
@Suite struct ChangeLogContractTests {
    @Test(arguments: StoreKind.allCases)
    func changesListEveryKindOldestFirstWithTheCurrentTask(kind: StoreKind) async throws {
        let store = try openStore(kind)
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

    @Test(arguments: StoreKind.allCases)
    func pagingWithLimitAndHasMore(kind: StoreKind) async throws {
        let store = try openStore(kind)
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

    @Test(arguments: StoreKind.allCases)
    func sinceAheadOfTheDatabaseIsInvalid(kind: StoreKind) async throws {
        let store = try openStore(kind)
        for index in 0..<3 { try await store.add("t\(index)") }
        await #expect(throws: TaskStoreError.invalid(field: "since", reason: "is ahead of this database, whose newest seq is 3")) {
            try await store.changes(since: 4)
        }
        #expect(await invalidField { _ = try await store.changes(since: -1) } == "since")
        #expect(await invalidField { _ = try await store.changes(since: 0, limit: 0) } == "limit")
    }

    @Test(arguments: StoreKind.allCases)
    func prunedHistoryIsReportedAsExpired(kind: StoreKind) async throws {
        let store = try openStore(kind)
        for index in 0..<3 { try await store.add("t\(index)") }
        #expect(try await store.pruneHistory(before: .max) == 2, "the newest change stays")
        try await store.add("after")
        await #expect(throws: TaskStoreError.historyExpired(since: 1, oldestSeq: 3)) { try await store.changes(since: 1) }
        #expect(try await store.changes(since: 2).changes.map(\.seq) == [3, 4])
        #expect(try await store.pruneHistory(before: 0) == 0)
        #expect(try await store.currentSeq() == 4)
    }

    /// Were the log ever emptied, the seqs clients hold must not be handed out again.
    @Test(arguments: StoreKind.allCases)
    func pruningEverythingStillNeverRepeatsASeq(kind: StoreKind) async throws {
        let store = try openStore(kind)
        for index in 0..<3 { try await store.add("t\(index)") }
        for _ in 0..<2 { _ = try await store.pruneHistory(before: .max) }
        #expect(try await store.currentSeq() == 3)
        let created = try await store.create(TaskDraft(title: "next"))
        #expect(created.change?.seq == 4)
        #expect(try await store.changes(since: 3).changes.map(\.seq) == [4])
    }

    @Test(arguments: StoreKind.allCases)
    func aReusedIDDoesNotLendItsTaskToTheOldCreation(kind: StoreKind) async throws {
        let store = try openStore(kind)
        try await store.add("first life", id: "x")
        _ = try await store.delete(id: "x")
        try await store.add("second life", id: "x")
        let changes = try await store.changes(since: 0).changes
        #expect(changes.map(\.kind) == [.created, .deleted, .created])
        #expect(changes[0].task == nil)
        #expect(changes[2].task?.title == "second life")
    }

    /// Two stores, each its own connection and thread, write at once while a third reads the
    /// log as it grows: every seq is handed out once, and a reader never finds one below what
    /// it has seen committing later (commit order).
    @Test(arguments: StoreKind.allCases)
    func seqHasNoGapsAndFollowsCommitOrderWithConcurrentWriters(kind: StoreKind) async throws {
        let database = try StoreUnderTest(kind)
        let writers = try (0..<2).map { _ in try database.open() }
        let reader = try database.open()
        let perWriter = 60
        let done = Counter()
        async let readSeqs: [Int64] = {
            var seen: [Int64] = []
            var last: Int64 = 0
            // Until the writers are done and all is read, or a writer failed and gave up.
            let deadline = ContinuousClock.now + .seconds(120)
            while done.value < writers.count || last < Int64(writers.count * perWriter), ContinuousClock.now < deadline {
                let page = try await reader.changes(since: last, limit: 1000)
                seen += page.changes.map(\.seq)
                last = page.seq
            }
            return seen
        }()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, writer) in writers.enumerated() {
                group.addTask {
                    for number in 0..<perWriter {
                        if number % 3 == 2 {
                            // A group of two changes, and one that rolls back and hands out none.
                            _ = try await writer.performEach([
                                .create(TaskDraft(title: "w\(index) \(number)")),
                                .update(id: "missing", changes: TaskChanges(title: "x"), ifVersion: nil),
                            ])
                        } else {
                            _ = try await writer.perform(.create(TaskDraft(title: "w\(index) \(number)")))
                        }
                    }
                    done.add()
                }
            }
            try await group.waitForAll()
        }
        let total = Int64(writers.count * perWriter)
        #expect(try await readSeqs == Array(1...total))
        #expect(try await reader.currentSeq() == total)
        #expect(try await reader.fetch(TaskQuery(limit: 1000, includeTotal: true)).total == Int(total))
    }
}
