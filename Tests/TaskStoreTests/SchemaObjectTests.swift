import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// The schema objects a file holds are compared with those Taskline's migrations make at
/// the file's version: a file of any version, as Taskline left it, passes; one with
/// anything more, less or otherwise does not.
@Suite struct SchemaObjectTests {
    let directory = TemporaryDirectory()

    func file(atSchema version: Int) throws -> Database {
        let database = try Database(path: directory.file("v\(version).sqlite"))
        try Migrator(Array(Schema.migrator.migrations.prefix(version))).migrate(database)
        try database.run(
            """
            INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, created_at, updated_at, version)
            VALUES ('old', 'old', 'old', '', '', 0, 0, 1, 1, 1)
            """)
        return database
    }

    /// Each older version is opened (and migrated) as before, and comes out with exactly
    /// the objects of a new file.
    @Test(arguments: 1...Schema.migrator.latestVersion)
    func aFileOfEveryVersionOpensAndMigratesToTheObjectsOfANewOne(_ version: Int) async throws {
        let database = try file(atSchema: version)
        #expect(try Schema.unexpectedObjects(in: database, version: version) == [])
        #expect(try TaskStore.check(path: database.path).unexpectedObjects == [])
        let store = try TaskStore(path: database.path)
        #expect(try await store.get(id: "old").title == "old")
        await store.close()
        #expect(try Schema.unexpectedObjects(in: database, version: Schema.migrator.latestVersion) == [])
        #expect(try TaskStore.check(path: database.path).isSound)
    }

    /// An older file with an object Taskline did not make is refused before any migration
    /// runs, and left at its version.
    @Test func anOlderFileWithAForeignTriggerIsRefusedBeforeMigrating() throws {
        let database = try file(atSchema: 11)
        try database.execute("CREATE TRIGGER audit AFTER UPDATE ON task BEGIN SELECT 1; END")
        #expect {
            try TaskStore(path: database.path)
        } throws: { error in
            guard case StoreOpenError.unexpectedObjects(_, let objects) = error else { return false }
            return objects == ["trigger audit on task: not made by Taskline"]
        }
        #expect(try database.userVersion() == 11)
        let report = try TaskStore.check(path: database.path)
        #expect(report.unexpectedObjects == ["trigger audit on task: not made by Taskline"])
        #expect(!report.isSound)
    }

    /// The digest that spares a current file the migrations' replay is that of what they make.
    @Test func theRecordedDigestIsThatOfTheObjectsTheMigrationsMake() throws {
        let digest = Schema.digest(of: try Schema.objectsMade(through: Schema.migrator.latestVersion))
        #expect(digest == Schema.latestObjectsDigest, "Schema.latestObjectsDigest must be 0x\(String(digest, radix: 16, uppercase: true))")
    }

    /// A VACUUM takes sqlite_sequence away (no table is AUTOINCREMENT any more): the file
    /// is still as Taskline made it, recognized by the digest without the migrations' replay.
    @Test func aVacuumedFileHasTheRecordedDigest() throws {
        let path = directory.file("vacuumed.sqlite")
        _ = try TaskStore(path: path)
        let database = try Database(path: path)
        try database.execute("VACUUM")
        let objects = try SchemaObject.all(in: database)
        #expect(!objects.contains { $0.name == "sqlite_sequence" })
        #expect(Schema.digest(of: objects) == Schema.latestObjectsDigest)
    }

    /// A new file made in memory by the migrations and one made on disk agree, table by table.
    @Test func theObjectsOfANewFileAreThoseTheMigrationsMake() async throws {
        let path = directory.file("new.sqlite")
        _ = try TaskStore(path: path)
        let onDisk = try SchemaObject.all(in: Database(path: path))
        #expect(onDisk == (try Schema.objectsMade(through: Schema.migrator.latestVersion)))
        #expect(onDisk.contains { $0.type == "trigger" && $0.name == "task_log_insert" })
    }
}
