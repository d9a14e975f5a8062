@testable import TaskStore
import SQLite
import TestSupport
import Testing

/// Schema 24 rebuilds the trigram index without its table of text sizes. A file of schema
/// 22 holding indexed texts and texts still waiting in task_text_pending, once upgraded,
/// has no sizes table, an index FTS5 finds equal to the tasks' texts (each task in it
/// once, none waiting), and a text filter that finds exactly the tasks holding the needle,
/// before and after a change and its undo.
@Suite struct TextSizesMigrationTests {
    let directory = TemporaryDirectory()

    @Test func theUpgradedIndexHasNoSizesAndFindsWhatTheOldOneFound() async throws {
        let path = directory.file("v22.sqlite")
        var (old, titles) = try fileWithIndexedAndWaitingTexts(at: path, version: 22) { "\(["alpha", "bravo", "charlie"][$0 % 3]) \($0)" }
        #expect(try old.integer("SELECT count(*) FROM task_text_pending") == 39)
        old.close()

        let store = try TaskStore(path: path)
        let upgraded = try Database(path: path)
        #expect(try upgraded.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'task_text_docsize'") == 0)
        #expect(try upgraded.integer("SELECT count(*) FROM task_text_pending") == 0)
        try upgraded.run("INSERT INTO task_text (task_text, rank) VALUES ('integrity-check', 1)")

        func check(_ when: String) async throws {
            for needle in ["alpha", "bravo 1", "charlie 16", "o 4", "zulu"] {
                let expected = titles.filter { $0.value.contains(needle) }.map(\.key).sorted()
                let page = try await store.fetch(TaskQuery(filter: TaskFilter(text: needle), limit: 500, includeTotal: true))
                #expect(page.tasks.map(\.id).sorted() == expected, "\(needle), \(when)")
                #expect(page.total == expected.count, "\(needle), \(when)")
            }
        }
        try await check("upgraded")
        _ = try await store.update(id: "old-7", changes: TaskChanges(title: "zulu 7"))
        titles["old-7"] = "zulu 7"
        try await check("after an update")
        _ = try await store.undo()
        titles["old-7"] = "bravo 7"
        try await check("after its undo")
        try upgraded.writeTransaction { try TextIndex.indexPending(in: upgraded) }
        try upgraded.run("INSERT INTO task_text (task_text, rank) VALUES ('integrity-check', 1)")
        await store.close()
    }
}

/// A file of schema `version` (22 to 36) holding `TextIndex.pendingLimit + 40` tasks with
/// ids `old-N` and titles `title(N)`: the first `pendingLimit + 1` indexed by those
/// schemas' batch (the texts as they are, unpadded), the other 39 waiting in
/// task_text_pending. Returns the file's connection and the titles by id.
func fileWithIndexedAndWaitingTexts(at path: String, version: Int, title: (Int) -> String) throws -> (Database, [String: String]) {
    let old = try Database(path: path)
    try Migrator(Array(Schema.migrator.migrations.prefix(version))).migrate(old)
    var titles: [String: String] = [:]
    for n in 0..<(TextIndex.pendingLimit + 40) {
        let id = "old-\(n)"
        titles[id] = title(n)
        try old.run("""
            INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, created_at, updated_at, version)
            VALUES (?1, ?2, ?2, '', '', 0, 0, ?3, ?3, 1)
            """, [.text(id), .text(title(n)), .integer(Int64(n + 1))])
        if n == TextIndex.pendingLimit {
            try old.run("""
                INSERT INTO task_text (rowid, title_fold, notes_fold)
                SELECT task.pk, task.title_fold, task.notes_fold FROM task_text_pending JOIN task ON task.pk = task_text_pending.pk
                """)
            try old.run("DELETE FROM task_text_pending")
        }
    }
    return (old, titles)
}
