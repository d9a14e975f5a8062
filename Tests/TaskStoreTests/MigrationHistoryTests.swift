import SQLite
import TestSupport
import Testing

@testable import TaskStore

/// A file made at an earlier schema version, holding tasks, and then upgraded by the store
/// ends with exactly the schema of a file the store made new: the same sqlite_schema rows,
/// user_version and application_id. (Not the page size: a file takes it when it is made,
/// and an older file keeps its own.)
@Suite struct MigrationHistoryTests {
    let directory = TemporaryDirectory()

    struct SchemaState: Equatable {
        var objects: [[String?]] = []
        var userVersion = 0
        var applicationID: Int64 = 0
    }

    static func schemaState(of path: String) throws -> SchemaState {
        let database = try Database(path: path, mode: .readOnly)
        var state = SchemaState()
        try database.cachedStatement("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name").forEachRow { row in
            state.objects.append([row.text(0), row.text(1), row.text(2), row.optionalText(3)])
        }
        state.userVersion = try database.userVersion()
        state.applicationID = try database.integer("PRAGMA application_id") ?? 0
        return state
    }

    @Test(arguments: 1..<Schema.migrator.latestVersion)
    func aFileUpgradedFromAnEarlierVersionHasTheSchemaOfANewOne(_ version: Int) async throws {
        let fresh = directory.file("new.sqlite")
        await (try TaskStore(path: fresh)).close()

        let old = directory.file("v\(version).sqlite")
        let database = try Database(path: old)
        try Migrator(Array(Schema.migrator.migrations.prefix(version))).migrate(database)
        for n in 1...3 {
            try database.run(
                """
                INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, due, due_at, created_at, updated_at, completed_at, version)
                VALUES (?1, ?2, ?2, '', '', ?3, 1, ?4, ?5, ?6, ?6, CASE WHEN ?3 THEN ?6 END, 1)
                """,
                [
                    .text("old-\(n)"), .text("task \(n)"), SQLValue(n == 2), n == 3 ? "2030-01-01" : nil,
                    n == 3 ? .integer(1_893_456_000_000) : nil, .integer(Int64(n)),
                ])
            try database.run("INSERT INTO task_tag (tag, task_pk) VALUES ('home', ?)", [.integer(database.lastInsertRowID)])
        }
        database.close()

        let store = try TaskStore(path: old)
        #expect(try await store.get(id: "old-3").tags == ["home"])
        #expect(try await store.get(id: "old-3").due == "2030-01-01")
        await store.close()
        #expect(try Self.schemaState(of: old) == Self.schemaState(of: fresh))
        let report = try TaskStore.check(path: old)
        #expect(report.isSound, "\(report)")
    }
}
