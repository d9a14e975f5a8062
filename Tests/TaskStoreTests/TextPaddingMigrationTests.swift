import SQLite
import TestSupport
import Testing

@testable import TaskStore

/// Schema 37 indexes every text again, padded with two U+0001 (`task_text_source`). A file
/// of schema 36 holding indexed texts, texts waiting in task_text_pending and texts taken
/// out waiting in task_text_stale, once upgraded, has none waiting, an index FTS5 finds
/// equal to the padded texts, and a text filter that finds a short needle wherever it is,
/// the end of a text included, before and after a change and its undo.
@Suite struct TextPaddingMigrationTests {
    let directory = TemporaryDirectory()

    @Test func theUpgradedIndexFindsShortNeedlesAtTheEndOfATextToo() async throws {
        let path = directory.file("v36.sqlite")
        var (old, titles) = try fileWithIndexedAndWaitingTexts(at: path, version: 36) {
            "\(["alpha", "bravo", "charlie"][$0 % 3]) \($0)\($0 % 10 == 0 ? " qz" : "")"
        }
        try old.run("UPDATE task SET title = 'delta 3', title_fold = 'delta 3' WHERE id = 'old-3'")
        titles["old-3"] = "delta 3"
        try old.run("DELETE FROM task WHERE id = 'old-10'")
        titles["old-10"] = nil
        #expect(try old.integer("SELECT count(*) FROM task_text_pending") == 40)
        #expect(try old.integer("SELECT count(*) FROM task_text_stale") == 2)
        old.close()

        let store = try TaskStore(path: path)
        let upgraded = try Database(path: path)
        #expect(try upgraded.integer("SELECT count(*) FROM task_text_pending") == 0)
        #expect(try upgraded.integer("SELECT count(*) FROM task_text_stale") == 0)
        try upgraded.run("INSERT INTO task_text (task_text, rank) VALUES ('integrity-check', 1)")
        #expect(try TextIndex.candidates(for: "qz", in: upgraded)?.match == #""qz\#u{1}""#)

        try await expectTextFilterThroughAChangeAndItsUndo(
            store, titles: titles, needles: ["qz", "z", "3", "a 1", "delta", "zulu"],
            changing: "old-20", to: "zulu 20", index: upgraded)
        await store.close()
    }
}
