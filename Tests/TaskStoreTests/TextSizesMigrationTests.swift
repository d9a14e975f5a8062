import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// Schema 24 rebuilds the trigram index without its table of text sizes. A file of schema
/// 22 holding indexed texts and texts still waiting in task_text_pending, once upgraded,
/// has no sizes table, an index FTS5 finds equal to the tasks' texts (each task in it
/// once, none waiting), and a text filter that finds exactly the tasks holding the needle,
/// before and after a change and its undo.
@Suite struct TextSizesMigrationTests {
    let directory = TemporaryDirectory()

    @Test func theUpgradedIndexHasNoSizesAndFindsWhatTheOldOneFound() async throws {
        let path = directory.file("v22.sqlite")
        let (old, titles) = try fileWithIndexedAndWaitingTexts(at: path, version: 22) { "\(["alpha", "bravo", "charlie"][$0 % 3]) \($0)" }
        #expect(try old.integer("SELECT count(*) FROM task_text_pending") == 39)
        old.close()

        let store = try TaskStore(path: path)
        let upgraded = try Database(path: path)
        #expect(try upgraded.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'task_text_docsize'") == 0)
        #expect(try upgraded.integer("SELECT count(*) FROM task_text_pending") == 0)
        try upgraded.run("INSERT INTO task_text (task_text, rank) VALUES ('integrity-check', 1)")

        try await expectTextFilterThroughAChangeAndItsUndo(
            store, titles: titles, needles: ["alpha", "bravo 1", "charlie 16", "o 4", "zulu"],
            changing: "old-7", to: "zulu 7", index: upgraded)
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
        try old.run(
            """
            INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, created_at, updated_at, version)
            VALUES (?1, ?2, ?2, '', '', 0, 0, ?3, ?3, 1)
            """, [.text(id), .text(title(n)), .integer(Int64(n + 1))])
        if n == TextIndex.pendingLimit {
            try old.run(
                """
                INSERT INTO task_text (rowid, title_fold, notes_fold)
                SELECT task.pk, task.title_fold, task.notes_fold FROM task_text_pending JOIN task ON task.pk = task_text_pending.pk
                """)
            try old.run("DELETE FROM task_text_pending")
        }
    }
    return (old, titles)
}

/// Expects the text filter to find exactly the tasks of `titles` (titles by id) that hold
/// each needle, and their total.
func expectTextFilter(_ store: TaskStore, findsIn titles: [String: String], _ needles: [String], _ when: String) async throws {
    for needle in needles {
        let expected = titles.filter { $0.value.contains(needle) }.map(\.key).sorted()
        let page = try await store.fetch(TaskQuery(filter: TaskFilter(text: needle), limit: 500, includeTotal: true))
        #expect(page.tasks.map(\.id).sorted() == expected, "\(needle), \(when)")
        #expect(page.total == expected.count, "\(needle), \(when)")
    }
}

/// Expects the text filter to find what `titles` hold as they are, after the title of task
/// `id` changes to `title`, and after that change's undo; then brings the index up to date
/// through `index`, a connection of the store's file, and has FTS5 check it against the
/// tasks' texts.
func expectTextFilterThroughAChangeAndItsUndo(
    _ store: TaskStore, titles: [String: String], needles: [String],
    changing id: String, to title: String, index: Database
) async throws {
    try await expectTextFilter(store, findsIn: titles, needles, "as it was")
    _ = try await store.update(id: id, changes: TaskChanges(title: title))
    var changed = titles
    changed[id] = title
    try await expectTextFilter(store, findsIn: changed, needles, "after an update")
    _ = try await store.undo()
    try await expectTextFilter(store, findsIn: titles, needles, "after its undo")
    try index.writeTransaction { try TextIndex.indexPending(in: index) }
    try index.run("INSERT INTO task_text (task_text, rank) VALUES ('integrity-check', 1)")
}
