import Foundation
import JSON
import SQLite
import TestSupport
import Testing

/// `taskline backup` under a write load, and `taskline check` on sound and damaged files.
@Suite struct BackupAndCheckTests {
    let directory = TemporaryDirectory()

    /// A server creating tasks as fast as it is answered, on its own thread. It records the
    /// ids of the creations acknowledged so far.
    final class WriteLoad: @unchecked Sendable {  // `acknowledged` and `stop` are behind `lock`
        private let lock = NSLock()
        private var acknowledged: [String] = []
        private var stopped = false
        private var failures: [String] = []
        private let finished = DispatchSemaphore(value: 0)

        init(path: String, name: String) throws {
            let server = try ServerProcess(["--db", path, "--durability", "normal"])
            try server.initialize(#"{"initializationOptions":{"notifications":false}}"#)
            Thread.detachNewThread { [self] in
                var number = 0
                while !lock.withLock({ stopped }) {
                    number += 1
                    let id = "\(name)-\(number)"
                    do {
                        let response = try server.call(number, "tasks/create", #"{"id":"\#(id)","title":"load \#(number)"}"#)
                        if response["result"]?["id"]?.stringValue == id {
                            lock.withLock { acknowledged.append(id) }
                        } else {
                            lock.withLock { failures.append(JSONWriter.string(response)) }
                        }
                    } catch {
                        lock.withLock { failures.append("\(error)") }
                        break
                    }
                }
                server.closeInput()
                _ = server.waitForExit()
                finished.signal()
            }
        }

        var acknowledgedSoFar: [String] { lock.withLock { acknowledged } }

        /// Stops the load; returns the errors it met.
        func stop() -> [String] {
            lock.withLock { stopped = true }
            finished.wait()
            return lock.withLock { failures }
        }
    }

    @Test func backupDuringAWriteLoadIsSoundAndHoldsEveryAcknowledgedWrite() throws {
        let path = directory.file("busy.sqlite")
        // Some bulk first, so that the copy takes many steps.
        let bulk = (1...20_000).map {
            #"{"id":"bulk-\#($0)","title":"bulk task \#($0) with some text to fill pages","tags":["bulk","t\#($0 % 50)"]}"#
        }
        #expect(try runTaskline(["import", "-", "--db", path], stdin: Data(bulk.joined(separator: "\n").utf8)).status == 0)

        let loads = try ["a", "b"].map { try WriteLoad(path: path, name: $0) }
        while loads.contains(where: { $0.acknowledgedSoFar.count < 100 }) { usleep(10_000) }
        let acknowledgedBefore = loads.flatMap(\.acknowledgedSoFar)
        let backupPath = directory.file("copy.sqlite")
        let backup = try runTaskline(["backup", backupPath, "--db", path, "--pages-per-step", "2"])
        let acknowledgedAfter = loads.flatMap(\.acknowledgedSoFar)
        let failures = loads.flatMap { $0.stop() }
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stderr.contains("backed up"))
        #expect(failures.isEmpty, "the writers were never refused: \(failures.prefix(3))")
        #expect(acknowledgedAfter.count > acknowledgedBefore.count, "writes went on while the backup ran")
        #expect(fileMode(backupPath) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.contains(".partial-") })

        let check = try runTaskline(["check", "--db", backupPath])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.lines.last == "sound")
        let ids = Set(
            try runTaskline(["export", "--db", backupPath]).lines.map {
                try #require(try JSONParser.parse(Array($0.utf8))["id"]?.stringValue)
            })
        #expect(ids.count >= 20_000 + acknowledgedBefore.count)
        #expect(Set(acknowledgedBefore).isSubset(of: ids), "every write acknowledged before the backup began is in it")
        #expect(ids.isSubset(of: Set(bulk.indices.map { "bulk-\($0 + 1)" } + acknowledgedAfter + loads.flatMap(\.acknowledgedSoFar))))

        // The copy is a database like any other: a server opens it, and its history goes on.
        let server = try ServerProcess(["--db", backupPath])
        try server.initialize()
        #expect(try server.call(1, "tasks/fetch", #"{"includeTotal":true,"limit":1}"#)["result"]?["total"] == .integer(Int64(ids.count)))
    }

    @Test func backupNeverOverwrites() throws {
        let path = directory.file("tasks.sqlite")
        #expect(try runTaskline(["add", "--db", path, "x"]).status == 0)
        let existing = directory.file("existing")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
        let result = try runTaskline(["backup", existing, "--db", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("exists already"))
        #expect(fileBytes(existing) == Data("keep me".utf8))

        let unwritable = try runTaskline(["backup", directory.file("no/such/folder/copy.sqlite"), "--db", path])
        #expect(unwritable.status == 1)
        #expect(unwritable.stderr.contains("cannot write"))
    }

    func soundDatabase() throws -> String {
        let path = directory.file("tasks-\(UUID().uuidString).sqlite")
        let records = (1...300).map {
            #"{"id":"c-\#($0)","title":"Task \#($0)","notes":"\#(String(repeating: "n", count: $0 % 40))","tags":["x\#($0 % 7)"],"due":"2026-01-\#(String(format: "%02d", $0 % 28 + 1))"}"#
        }
        #expect(try runTaskline(["import", "-", "--db", path], stdin: Data(records.joined(separator: "\n").utf8)).status == 0)
        #expect(try runTaskline(["done", "--db", path, "c-1", "c-2"]).status == 0)
        return path
    }

    @Test func checkReportsASoundDatabase() throws {
        let path = try soundDatabase()
        let result = try runTaskline(["check", "--db", path])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.lines.count == 9)
        #expect(result.lines.first == "database      \(path)")
        #expect(result.lines.dropFirst().first?.hasSuffix(" (current)") == true, "schema        N (current)")
        #expect(
            Array(result.lines.dropFirst(2)) == [
                "integrity     ok",
                "foreign keys  ok",
                "task rules    ok",
                "tasks         300 (298 open, 2 done)",
                "tags          7 distinct, on 300 task-tag pairs",
                "change log    302 changes kept, newest seq 302",
                "sound",
            ])
    }

    @Test func checkFindsBrokenRules() throws {
        let path = try soundDatabase()
        do {
            // Another writer of the file that did not keep the derived columns, and one
            // that did not enforce foreign keys.
            let other = try Database(path: path)
            try other.execute(
                """
                UPDATE task SET title_fold = 'stale' WHERE id = 'c-5';
                UPDATE task SET completed_at = NULL WHERE id = 'c-1';
                UPDATE task SET title = '   ' WHERE id = 'c-9';
                UPDATE task SET started_at = 5 WHERE id = 'c-2';
                UPDATE task SET annotations = 'not one' WHERE id = 'c-11';
                UPDATE task SET annotations = '5' || char(30) || 'b' || char(31) || '3' || char(30) || 'a' WHERE id = 'c-12';
                PRAGMA foreign_keys = OFF;
                INSERT INTO task_tag (tag, task_pk) VALUES ('orphan', 99999);
                """)
        }
        let result = try runTaskline(["check", "--db", path])
        #expect(result.status == 1)
        for expected in [
            "foreign keys  1 problem",
            "task_tag refers to a missing row of task",
            "task rules    6 problems",
            "task c-1: completedAt must be set when done is true",
            "task c-2: startedAt must be null when done is true",
            "task c-11: annotations holds an item that is not a time and a text",
            "task c-12: its annotations are not in order of their times",
            "task c-5: title_fold does not match the title",
            "task c-9: title must contain a character that is not white space",
            "NOT SOUND",
        ] {
            #expect(result.output.contains(expected), "missing \(expected) in \(result.output)")
        }
    }

    @Test func checkFindsDamagedPages() throws {
        let path = try soundDatabase()
        #expect(try runTaskline(["check", "--db", path]).status == 0)  // and the WAL is folded in
        let pageSize = Int(try #require(try Database(path: path).integer("PRAGMA page_size")))
        let page = try #require(try Database(path: path).integer("SELECT rootpage FROM sqlite_schema WHERE name = 'task_by_title'"))
        var bytes = try #require(fileBytes(path))
        // Scribble over the title index: the tasks themselves still read, the index does not
        // match them.
        let start = Int(page - 1) * pageSize
        for index in stride(from: start + 8, to: start + pageSize, by: 5) { bytes[index] = 0xA5 }
        try bytes.write(to: URL(fileURLWithPath: path))
        let result = try runTaskline(["check", "--db", path])
        #expect(result.status == 1, "\(result.output)\(result.stderr)")
        #expect(result.output.contains("integrity     "))
        #expect(!result.output.contains("integrity     ok"))
        #expect(result.output.contains("    On tree page \(page) "), "integrity_check's own words, one per line")
        #expect(result.lines.last == "NOT SOUND")

        // Damage where even the schema cannot be read: the file cannot be used at all.
        var worse = try #require(fileBytes(path))
        for index in stride(from: 120, to: worse.count, by: 3) { worse[index] = 0x5A }
        try worse.write(to: URL(fileURLWithPath: path))
        let unusable = try runTaskline(["check", "--db", path])
        #expect(unusable.status == 3)
        #expect(unusable.stderr.contains("is not a usable SQLite database"))
    }
}
