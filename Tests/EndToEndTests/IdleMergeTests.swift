import Foundation
import SQLite
import TestSupport
import Testing

/// No write merges the trigram index's segments (schema 39): the server merges them once
/// no request has come for a while, and the index then still finds every task.
@Suite struct IdleMergeTests {
    let directory = TemporaryDirectory()

    /// Whether a merge step, asked in a transaction that is rolled back, finds segments to
    /// merge: a step that merges changes more than the one row it is asked by.
    static func hasSegmentsToMerge(_ database: Database) throws -> Bool {
        try database.execute("BEGIN IMMEDIATE")
        defer { try? database.execute("ROLLBACK") }
        let before = database.totalChanges
        try database.run("INSERT INTO task_text (task_text, rank) VALUES ('merge', 16)")
        return database.totalChanges - before >= 2
    }

    @Test func theServerMergesTheTextIndexWhenIdle() throws {
        let path = directory.file("tasks.sqlite")
        let client = Client(try ServerProcess(["--db", path]))
        _ = try client.request("initialize", #"{"initializationOptions":{"notifications":false}}"#)
        // Each apply indexes its texts in one segment (more than the 128 that wait at most):
        // 20 of them, more than the 16 a level holds before a merge step takes them.
        for batch in 0..<20 {
            let creates = (0..<130).map { #"{"create":{"title":"batch \#(batch) task \#($0)"}}"# }.joined(separator: ",")
            _ = try client.request("tasks/apply", #"{"operations":[\#(creates)]}"#)
        }
        let file = try Database(path: path)
        file.setBusyTimeout(milliseconds: 5000)
        let deadline = Date().addingTimeInterval(20)
        while try Self.hasSegmentsToMerge(file), Date() < deadline { usleep(20_000) }
        #expect(try !Self.hasSegmentsToMerge(file), "the idle server left the segments unmerged")
        try file.run("INSERT INTO task_text (task_text, rank) VALUES ('integrity-check', 1)")
        for (needle, count) in [("batch 17 task 12", 11), ("task 129", 20), ("h 3 t", 130)] {
            let page = try client.request("tasks/fetch", #"{"filter":{"text":"\#(needle)"},"limit":1000}"#)
            #expect(page["tasks"]?.arrayValue?.count == count, "\(needle)")
        }
    }
}
