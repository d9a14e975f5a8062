import TaskModel
import TestSupport
import Testing

/// Stored data out of the protocol's range, which only another program can have written,
/// refused the same way on each store (protocol/README.md §7, 1004 with `reason`
/// `storedDataOutOfRange`): the request changes nothing, and the store serves the rest.
@Suite struct StoredDataContractTests {
    /// Whether `error` is the store's refusal of stored data out of range.
    static func isOutOfRange(_ error: any Error) -> Bool {
        guard case TaskStoreError.storage(let failure) = error else { return false }
        return failure.kind == .storedDataOutOfRange && !failure.retryable
    }

    /// A change log at its top seq (2^53 − 1): the next write would log one a client cannot
    /// pass back as `since`, so every write is refused, and reads go on.
    @Test(arguments: StoreKind.allCases)
    func aChangeLogAtItsTopSeqRefusesEveryWrite(kind: StoreKind) async throws {
        let database = try StoreUnderTest(kind)
        let store = try database.open()
        let task = try await store.add("kept", id: "a")
        try database.execute(
            sqlite: "INSERT INTO change (seq, kind, task_id, version, at) VALUES (9007199254740991, 'deleted', 'gone', 1, 0)",
            postgresql: "UPDATE change_counter SET seq = 9007199254740991")
        await #expect(performing: { try await store.add("next") }, throws: Self.isOutOfRange)
        await #expect(performing: { try await store.update(id: "a", changes: TaskChanges(title: "b")) }, throws: Self.isOutOfRange)
        await #expect(performing: { try await store.delete(id: "a") }, throws: Self.isOutOfRange)
        #expect(try await store.get(id: "a") == task)
        #expect(try await store.fetch(TaskQuery(includeTotal: true)).total == 1)
    }

    /// A stored `history_pruned_through` outside 0 to 2^53 − 1 refuses `changes`, whatever
    /// `since`; writes go on.
    @Test(arguments: StoreKind.allCases, [-5, 9_007_199_254_740_992] as [Int64])
    func aPrunedThroughOutOfRangeRefusesTheChanges(kind: StoreKind, through: Int64) async throws {
        let database = try StoreUnderTest(kind)
        let store = try database.open()
        try await store.add("a")
        try database.execute(
            sqlite: "INSERT OR REPLACE INTO meta (key, value) VALUES ('history_pruned_through', \(through))",
            postgresql: "UPDATE taskline_schema SET pruned_through = \(through)")
        for since: Int64 in [0, 1] {
            await #expect(performing: { try await store.changes(since: since) }, throws: Self.isOutOfRange)
        }
        #expect(try await store.create(TaskDraft(title: "b")).change?.seq == 2)
    }
}
