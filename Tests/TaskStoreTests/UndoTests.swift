import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// Change groups in SQLite's tables: what a write keeps, and what pruning takes (the
/// contract of undo and redo is StoreContractTests').
@Suite struct UndoTests {
    let directory = TemporaryDirectory()

    func open(origin: Int64 = WriteOrigin.unique()) throws -> TaskStore {
        try TaskStore(path: directory.file("tasks.sqlite"), options: StoreOptions(durability: .normal), origin: origin)
    }

    @Test func pruningTakesTheGroupsBeforeTheNewestChange() async throws {
        do {
            let store = try open(origin: WriteOrigin.commandLine)
            _ = try await store.create(TaskDraft(id: "a", title: "a"))
            _ = try await store.update(id: "a", changes: TaskChanges(title: "b"))
            await store.close()
        }
        let reopened = try open(origin: WriteOrigin.commandLine)
        _ = try await reopened.undo()
        _ = try await open().undo(scope: .database)
        // Pruning keeps the newest change, the last undo's: its group is whole and stays.
        let database = try Database(path: directory.file("tasks.sqlite"))
        #expect(try database.integer("SELECT count(*) FROM change_reversal") == 2)
        _ = try await reopened.pruneHistory(before: .max)
        #expect(try database.integer("SELECT count(*) FROM change_reversal") == 1)
        #expect(try database.integer("SELECT count(*) FROM change_before WHERE group_seq < (SELECT max(seq) FROM change)") == 0)
    }

    @Test func aCreateKeepsNoSnapshotAndAnUpdateThatChangesNothingNoGroup() async throws {
        let store = try open()
        _ = try await store.create(TaskDraft(id: "a", title: "a"))
        _ = try await store.update(id: "a", changes: TaskChanges(title: "a"))
        let database = try Database(path: directory.file("tasks.sqlite"))
        #expect(try database.integer("SELECT count(*) FROM change WHERE group_origin IS NOT NULL") == 1)
        #expect(try database.integer("SELECT count(*) FROM change_before") == 0)
    }
}
