import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// The SQLite side of import: the time its changes are logged at, the settings it leaves
/// (the contract of import and export is ImportContractTests').
@Suite struct OperationsStoreTests {
    let directory = TemporaryDirectory()

    func task(_ id: String, _ title: String = "t", createdAt: Int64 = 1_000, version: Int64 = 1) -> TaskItem {
        TaskItem(id: id, title: title, tags: ["b", "a", "b"], createdAt: createdAt, updatedAt: createdAt + 5, version: version)
    }

    func pragma(_ name: String, _ store: isolated TaskStore) throws -> Int64? {
        try store.database.integer("PRAGMA \(name)")
    }

    /// The log takes a creation's time from the task's updatedAt, which a write sets to its
    /// own time; an imported task keeps its own, so the import sets its changes' time.
    @Test func anImportIsLoggedAtItsOwnTime() async throws {
        let clock = ManualClock()
        let store = try makeStore(directory, clock: clock)
        let created = try await store.add("created")
        #expect(try await store.loggedChanges(of: created.id).map(\.at) == [created.updatedAt])
        clock.set(1_790_000_000_000)
        _ = try await store.importTasks([.task(task("old", createdAt: 2_000), line: 1)], onConflict: .fail)
        let at = try #require(try await store.loggedChanges(of: "old").first?.at)
        #expect(at > 1_790_000_000_000 && at < 1_790_000_001_000, "the import's time, not the task's (2,005)")
        #expect(try await store.loggedChanges(of: created.id).map(\.at) == [created.updatedAt], "earlier changes keep theirs")
    }

    /// A failed import leaves SQLite's settings as every connection has them: the bulk
    /// setting is undone (that nothing was imported is ImportContractTests').
    @Test func aFailedImportUndoesTheBulkSettings() async throws {
        let store = try makeStore(directory)
        try await store.add("kept", id: "kept")
        await #expect(throws: ImportFailure.self) {
            _ = try await store.importTasks([.task(task("new-1"), line: 1), .task(task("kept"), line: 2)], onConflict: .fail)
        }
        #expect(try await pragma("cache_size", store) == -8192)
        #expect(try await pragma("temp_store", store) == 1)  // FILE, as every connection has it
    }

}
