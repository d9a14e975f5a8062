@testable import TaskStore
import SQLite
import TestSupport
import Testing

/// Schema 38 has FTS5 merge the trigram index's segments sixteen to a level, and merge a
/// level whole in one write only past 64 (`task_text_config`). A new file holds both; so
/// does a file of schema 37 once upgraded, whose index then stays equal to its texts
/// through batches that merge, and finds every task.
@Suite struct TextMergeSettingsTests {
    let directory = TemporaryDirectory()

    static let expected: [String: Int64] = ["automerge": 16, "crisismerge": 64]

    func settings(of database: Database) throws -> [String: Int64] {
        var settings: [String: Int64] = [:]
        try database.cachedStatement("SELECT k, v FROM task_text_config WHERE k IN ('automerge', 'crisismerge')").forEachRow { row in
            settings[row.text(0)] = row.int64(1)
        }
        return settings
    }

    @Test func aNewFileMergesSixteenSegmentsToALevel() async throws {
        let path = directory.file("new.sqlite")
        let store = try TaskStore(path: path)
        #expect(try settings(of: Database(path: path)) == Self.expected)
        await store.close()
    }

    @Test func anUpgradedFileMergesSixteenSegmentsToALevelAndFindsEveryTask() async throws {
        let path = directory.file("v37.sqlite")
        let old = try Database(path: path)
        try Migrator(Array(Schema.migrator.migrations.prefix(37))).migrate(old)
        #expect(try settings(of: old) == [:])
        // Batches of a few texts each, every one a segment of the index: 40 of them, past
        // the sixteen at which a level is merged.
        var titles: [String: String] = [:]
        for batch in 0..<40 {
            try old.writeTransaction {
                for n in 0..<4 {
                    let id = "old-\(titles.count)", title = "batch \(batch) task \(n)"
                    titles[id] = title
                    try old.run("""
                        INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, created_at, updated_at, version)
                        VALUES (?1, ?2, ?2, '', '', 0, 0, ?3, ?3, 1)
                        """, [.text(id), .text(title), .integer(Int64(titles.count))])
                }
                try TextIndex.indexPending(in: old)
            }
        }
        old.close()

        let store = try TaskStore(path: path)
        let upgraded = try Database(path: path)
        #expect(try settings(of: upgraded) == Self.expected)
        for batch in 40..<80 {
            for n in 0..<4 {
                let title = "batch \(batch) task \(n)"
                titles[try await store.create(TaskDraft(title: title)).value.id] = title
            }
            try upgraded.writeTransaction { try TextIndex.indexPending(in: upgraded) }
        }
        try upgraded.run("INSERT INTO task_text (task_text, rank) VALUES ('integrity-check', 1)")
        try await expectTextFilter(store, findsIn: titles, ["batch 7", "task 3", "h 79 t", "7"], "after 80 batches")
        await store.close()
    }
}
