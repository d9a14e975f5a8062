import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// A database at schema `version` in `directory` with `count` tasks created through SQL
/// (the triggers log them), ids `old-0`, `old-1`, …
private func databaseAt(schema version: Int, tasks count: Int, in directory: TemporaryDirectory) throws -> Database {
    let database = try Database(path: directory.file("v\(version).sqlite"))
    try Migrator(Array(Schema.migrator.migrations.prefix(version))).migrate(database)
    for index in 0..<count {
        try database.run(
            """
            INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, created_at, updated_at, version)
            VALUES (?, 'old', 'old', '', '', 0, 0, 1, 1, 1)
            """, [.text("old-\(index)")])
    }
    return database
}

/// Schema 12 rebuilds the change log without AUTOINCREMENT: the seqs clients hold must mean
/// the same changes afterwards, and none may be handed out again.
@Suite struct ChangeLogMigrationTests {
    let directory = TemporaryDirectory()

    @Test func keepsEveryChangeAndItsSeq() async throws {
        let database = try databaseAt(schema: 11, tasks: 3, in: directory)
        try database.run("DELETE FROM task WHERE id = 'old-1'")
        let store = try TaskStore(path: database.path)
        let logged = try await store.changes(since: 0).changes
        #expect(logged.map(\.seq) == [1, 2, 3, 4])
        #expect(logged.map(\.kind) == [.created, .created, .created, .deleted])
        #expect(try await store.create(TaskDraft(title: "new")).change?.seq == 5)
        #expect(try database.integer("SELECT count(*) FROM sqlite_sequence") == 0)
        #expect(try TaskStore.check(path: database.path).isSound)
    }

    /// A log that pruning emptied under schema 11 kept its counter in sqlite_sequence only.
    @Test func anEmptiedLogKeepsItsCounter() async throws {
        let database = try databaseAt(schema: 11, tasks: 3, in: directory)
        try database.run("DELETE FROM change")
        try database.run("INSERT INTO meta (key, value) VALUES (?, 3)", [.text(Schema.prunedThroughKey)])
        let store = try TaskStore(path: database.path)
        #expect(try await store.currentSeq() == 3)
        #expect(try await store.changes(since: 3).changes.isEmpty)
        await #expect(throws: TaskStoreError.historyExpired(since: 2, oldestSeq: 4)) { try await store.changes(since: 2) }
        #expect(try await store.create(TaskDraft(title: "new")).change?.seq == 4)
        #expect(try await store.changes(since: 3).changes.map(\.seq) == [4], "the placeholder, seq 3, is never read")
        #expect(try TaskStore.check(path: database.path).isSound)
    }
}

/// Schema 13 indexes the change log by task for deletions only, the one kind the changes
/// query asks it about: creates and updates no longer write a leaf there.
@Suite struct ChangeIndexMigrationTests {
    let directory = TemporaryDirectory()

    @Test func theIndexByTaskHoldsOnlyDeletionsAndServesTheQuery() async throws {
        let database = try databaseAt(schema: 12, tasks: 3, in: directory)
        try database.run("UPDATE task SET title = 'new', title_fold = 'new', version = 2 WHERE id = 'old-0'")
        try database.run("DELETE FROM task WHERE id = 'old-1'")

        let store = try TaskStore(path: database.path)
        #expect(try database.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'change_by_task'") == 0)
        var definition = ""
        try database.cachedStatement("SELECT sql FROM sqlite_schema WHERE name = 'change_deletion_by_task'").forEachRow { definition = $0.text(0) }
        #expect(definition.hasSuffix("WHERE kind = 'deleted'"), "\(definition)")
        var plan: [String] = []
        try database.cachedStatement("EXPLAIN QUERY PLAN " + TaskStore.changesSQL).forEachRow([.integer(0), .integer(10)]) {
            plan.append($0.text(3))
        }
        #expect(plan.contains { $0.contains("change_deletion_by_task") }, "\(plan)")
        let changes = try await store.changes(since: 0).changes
        #expect(changes.map(\.kind) == [.created, .created, .created, .updated, .deleted])
        #expect(changes.map(\.id) == ["old-0", "old-1", "old-2", "old-0", "old-1"])
        #expect(try TaskStore.check(path: database.path).isSound)
    }
}

/// Schema 14 writes the change log's CHECK as equalities: SQLite checked the IN list by
/// building a temporary B-tree in every statement that logs a change.
@Suite struct ChangeCheckMigrationTests {
    let directory = TemporaryDirectory()

    /// Whether logging a change in the file at `path` makes SQLite open a temporary B-tree
    /// (`OpenEphemeral`). A connection of its own: EXPLAIN does not reload a changed schema.
    private func loggingBuildsATemporaryTree(_ path: String) throws -> Bool {
        var opcodes: [String] = []
        try Database(path: path).cachedStatement("EXPLAIN INSERT INTO change (kind, task_id, version, at) VALUES ('created', 'x', 1, 0)")
            .forEachRow { opcodes.append($0.text(1)) }
        return opcodes.contains("OpenEphemeral")
    }

    @Test func theKindIsCheckedWithoutATemporaryTree() async throws {
        let database = try databaseAt(schema: 13, tasks: 2, in: directory)
        #expect(try loggingBuildsATemporaryTree(database.path))

        let store = try TaskStore(path: database.path)
        _ = try await store.create(TaskDraft(title: "new"))
        #expect(try !loggingBuildsATemporaryTree(database.path))
        #expect(throws: SQLiteError.self) {
            try database.run("INSERT INTO change (kind, task_id, version, at) VALUES ('renamed', 'x', 1, 0)")
        }
        #expect(try await store.changes(since: 0).changes.map(\.kind) == [.created, .created, .created])
        #expect(try TaskStore.check(path: database.path).isSound)

        _ = try TaskStore(path: directory.file("new.sqlite"))
        #expect(try !loggingBuildsATemporaryTree(directory.file("new.sqlite")))
    }
}
