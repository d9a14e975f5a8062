import SQLite
import Synchronization

/// One row of `sqlite_schema`: a table, index, view or trigger.
struct SchemaObject: Hashable {
    var type: String
    var name: String
    /// The table an index or trigger belongs to; a table's or view's own name.
    var table: String
    /// Nil for the indexes SQLite makes for UNIQUE and PRIMARY KEY constraints.
    var sql: String?

    var label: String {
        type == "index" || type == "trigger" ? "\(type) \(name) on \(table)" : "\(type) \(name)"
    }

    static func all(in database: Database) throws -> [SchemaObject] {
        var objects: [SchemaObject] = []
        try database.cachedStatement("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name").forEachRow { row in
            objects.append(SchemaObject(type: row.text(0), name: row.text(1), table: row.text(2), sql: row.optionalText(3)))
        }
        return objects
    }
}

extension Schema {
    /// What the file's schema holds that Taskline's migrations up to `version` did not make:
    /// objects another program added (a trigger, a view, an index, a table, SQLite's
    /// statistics), Taskline's own objects whose definition was changed, and those that
    /// are missing. One line each, naming the object; empty for a file as Taskline made it.
    ///
    /// FTS5 writes the definitions of its shadow tables (`task_text_data`, …) itself, and
    /// another SQLite version may word them otherwise: those are compared by name.
    static func unexpectedObjects(in database: Database, version: Int) throws -> [String] {
        let found = try SchemaObject.all(in: database)
        if version == migrator.latestVersion && digest(of: found) == latestObjectsDigest { return [] }
        let made = try objectsMade(through: version)
        var problems: [String] = []
        for object in found {
            guard let expected = made.first(where: { $0.type == object.type && $0.name == object.name }) else {
                problems.append("\(object.label): not made by Taskline")
                continue
            }
            if expected.table != object.table || (expected.sql != object.sql && !isShadowTable(expected)) {
                problems.append("\(object.label): not as Taskline made it")
            }
        }
        // SQLite's own sqlite_sequence goes when a VACUUM finds no AUTOINCREMENT table
        // (the change log is one no more): its absence is no change.
        for expected in made
        where expected.name != "sqlite_sequence"
            && !found.contains(where: { $0.type == expected.type && $0.name == expected.name })
        {
            problems.append("\(expected.label): missing")
        }
        return problems
    }

    /// `digest(of: objectsMade(through: migrator.latestVersion))`, written down: a file as
    /// Taskline made it opens without the migrations replayed in memory to tell, which cost
    /// a short command most of its run. SchemaObjectTests says the new value when a
    /// migration changes the schema. A 64-bit FNV digest tells any schema another program
    /// made apart, not one crafted to collide; whoever can write the file can change its
    /// tasks as well.
    static let latestObjectsDigest: UInt64 = 0x2945_42C2_705D_3DC4

    /// FNV-1a over each object's type, name, table and definition (none for FTS5's shadow
    /// tables), in the order `SchemaObject.all` reads them. sqlite_sequence is left out, as
    /// `unexpectedObjects` leaves out its absence: a file a VACUUM took it from is as made.
    static func digest(of objects: [SchemaObject]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for object in objects where object.name != "sqlite_sequence" {
            for var field in [object.type, object.name, object.table, isShadowTable(object) ? "" : object.sql ?? ""] {
                field.withUTF8 { bytes in
                    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
                }
                hash = hash &* 0x100_0000_01B3  // a 0 byte ends the field
            }
        }
        return hash
    }

    static func isShadowTable(_ object: SchemaObject) -> Bool {
        object.type == "table" && ["data", "idx", "content", "docsize", "config"].contains { object.name == "task_text_\($0)" }
    }

    /// The objects a new database holds after migrations 1 through `version`: made once per
    /// version in memory, by the migrations themselves.
    static func objectsMade(through version: Int) throws -> [SchemaObject] {
        if let known = madeObjects.withLock({ $0[version] }) { return known }
        let database = try Database(path: StoreFile.memoryPath)
        let objects = try database.writeTransaction {
            for migration in migrator.migrations.prefix(version) { try migration.apply(database) }
            return try SchemaObject.all(in: database)
        }
        madeObjects.withLock { $0[version] = objects }
        return objects
    }

    private static let madeObjects = Mutex<[Int: [SchemaObject]]>([:])
}
