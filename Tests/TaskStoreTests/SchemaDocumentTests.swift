import Foundation
import Testing

@testable import TaskStore

/// docs/schema.sql is the schema at the latest version, as the migrations make it: the
/// tables, each with its indexes and triggers, read from sqlite_schema. It fails when a new
/// migration changed the schema and the file was not written again; `scripts/schema-sql`
/// writes it (this test, with TASKLINE_WRITE_SCHEMA_SQL=1).
@Suite struct SchemaDocumentTests {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/schema.sql").standardized.path

    static func document() throws -> String {
        let objects = try Schema.objectsMade(through: Schema.migrator.latestVersion)
            .filter { $0.sql != nil && $0.name != "sqlite_sequence" && !Schema.isShadowTable($0) }
        var text = """
            -- Taskline's SQLite schema at version \(Schema.migrator.latestVersion), as its migrations make it
            -- (Sources/TaskStore/Schema/; written by scripts/schema-sql, checked by SchemaDocumentTests).
            -- A reference, not a way to make a file: a file is made by the migrations, and
            -- application_id \(Schema.applicationID) (0x5453_4B4C, "TSKL") and user_version \(Schema.migrator.latestVersion)
            -- mark it. FTS5's shadow tables (task_text_data, ...) are left out: SQLite makes them.

            """
        for table in objects where table.type == "table" {
            text += "\n" + table.sql! + ";\n"
            for kind in ["index", "trigger"] {
                for object in objects where object.type == kind && object.table == table.name {
                    text += "\n" + object.sql! + ";\n"
                }
            }
        }
        for view in objects where view.type == "view" { text += "\n" + view.sql! + ";\n" }
        return text
    }

    @Test func docsSchemaSQLIsTheLatestSchema() throws {
        let document = try Self.document()
        if ProcessInfo.processInfo.environment["TASKLINE_WRITE_SCHEMA_SQL"] == "1" {
            try document.write(toFile: Self.path, atomically: true, encoding: .utf8)
        }
        let written = try? String(contentsOfFile: Self.path, encoding: .utf8)
        #expect(written == document, "docs/schema.sql is out of date: run scripts/schema-sql")
    }
}
