import Foundation
import JSON
import SQLite
import TestSupport
import Testing

/// Files that other programs wrote to: numbers out of every range Taskline keeps, schema
/// objects Taskline did not make. None may crash the server or pass for sound.
@Suite struct StoredDataTests {
    let directory = TemporaryDirectory()

    /// A real Taskline file holding tasks `a` and `b`, written by `taskline import`.
    func taskFile(_ name: String) throws -> String {
        let path = directory.file(name)
        let records = #"{"id":"a","title":"A"}"# + "\n" + #"{"id":"b","title":"B"}"#
        let result = try runTaskline(["import", "-", "--db", path], stdin: Data(records.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        return path
    }

    /// Every request of the file's session, pipelined in one write between `initialize` and
    /// `shutdown`, is answered as the corpus says, and the server exits cleanly after them.
    @Test(arguments: HostileInput.storedValues)
    func hostileStoredValuesAreAnsweredAndReported(_ file: HostileFile) throws {
        let path = try taskFile("values.sqlite")
        try Database(path: path).execute(file.sql)

        let server = try ServerProcess(["--db", path, "--log-level", "error"])
        let session =
            [HostileInput.request("initialize", id: "init")] + file.requests
            + [HostileInput.request("shutdown", id: "end"), #"{"jsonrpc":"2.0","method":"exit"}"#]
        server.write(session.flatMap(HostileInput.line))
        let answers = try server.readToEnd().filter { $0["method"] == nil }
        #expect(server.waitForExit() == 0, "\(file.name): the server did not stay up: \(server.stderr)")
        #expect(answers.count == file.requests.count + 2, "\(file.name): \(answers.count) answers")
        guard answers.count == file.requests.count + 2 else { return }
        #expect(
            answers.dropFirst().dropLast().map(HostileCase.Answer.init) == file.expect,
            "\(file.name): \(answers.map { JSONWriter.string($0).prefix(300) })")
        for answer in answers where answer["error"]?["code"] == 1004 {
            #expect(answer["error"]?["data"]?["code"] == 19, "SQLITE_CONSTRAINT: \(answer)")
        }

        let check = try runTaskline(["check", "--db", path])
        #expect(check.status == 1, "\(file.name): \(check.output)")
        #expect(check.output.contains(file.finding), "\(file.name): \(check.output)")
        #expect(check.lines.last == "NOT SOUND")
    }

    /// The last seq a client heard of comes from the file: a server that started at the
    /// largest integer, whose change row another program then removed, numbers its next
    /// change far below it and must still announce it (it read the log, not add past the end).
    @Test func aStartingSeqOfInt64MaxThatVanishesDoesNotStopTheServer() throws {
        let path = try taskFile("seq.sqlite")
        try Database(path: path).execute(
            "INSERT INTO change (seq, kind, task_id, version, at) VALUES (9223372036854775807, 'deleted', 'gone', 1, 0)")
        let server = try ServerProcess(["--db", path, "--log-level", "error"])
        #expect(try server.initialize()["result"]?["database"]?["seq"] == .integer(.max))
        try Database(path: path).execute("DELETE FROM change WHERE seq = 9223372036854775807")
        let created = try server.call(1, "tasks/create", #"{"title":"after"}"#)
        #expect(created["result"]?["title"] == "after", "\(created); stderr: \(server.stderr)")
        #expect(try server.call(2, "tasks/get", #"{"id":"a"}"#)["result"]?["title"] == "A")
        server.closeInput()
        #expect(server.waitForExit() == 1, "the server did not stay up: \(server.stderr)")
    }

    @Test func importRefusesVersionsAndTimesOutOfRange() throws {
        let path = directory.file("import.sqlite")
        let records = [
            #"{"id":"max","title":"t","version":9223372036854775807}"#,
            #"{"id":"past","title":"t","version":9007199254740992}"#,
            #"{"id":"limit","title":"t","version":9007199254740991}"#,
            #"{"id":"early","title":"t","createdAt":"0000-01-01T00:00:00+01:00"}"#,
        ]
        let result = try runTaskline(["import", "-", "--db", path], stdin: Data(records.joined(separator: "\n").utf8))
        #expect(result.status == 1)
        for expected in [
            "line 1: version must be at most 9007199254740991 (2^53 − 1)",
            "line 2: version must be at most 9007199254740991 (2^53 − 1)",
            "line 4: createdAt must be a time in the years 0000 to 9999",
            "nothing was imported: 3 bad records",
        ] {
            #expect(result.stderr.contains(expected), "missing \(expected) in \(result.stderr)")
        }
        #expect(!result.stderr.contains("line 3"))
        #expect(try runTaskline(["export", "--db", path]).lines.isEmpty)

        // The largest version is imported; the task is then read, but no update takes it further.
        #expect(try runTaskline(["import", "-", "--db", path], stdin: Data(records[2].utf8)).status == 0)
        let server = try ServerProcess(["--db", path])
        try server.initialize()
        #expect(try server.call(1, "tasks/get", #"{"id":"limit"}"#)["result"]?["version"] == .integer(9_007_199_254_740_991))
        let refused = try server.call(2, "tasks/update", #"{"id":"limit","changes":{"done":true}}"#)
        #expect(refused["error"]?["code"] == 1004)
        #expect(refused["error"]?["message"]?.stringValue?.contains("task limit is at version 9007199254740991") == true, "\(refused)")
        #expect(try server.call(3, "tasks/get", #"{"id":"limit"}"#)["result"]?["done"] == false)
    }

    /// A write that stored data out of range refuses gets the same 1004 on every store: the
    /// protocol's condition, told by `data.reason`, not by which database holds the task.
    @Test(arguments: StoreKind.allCases)
    func storedDataOutOfRangeIsTheSame1004OnEveryStore(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let record = #"{"id":"limit","title":"t","version":9007199254740991}"#
        #expect(try runTaskline(["import", "-", "--db", database.argument], stdin: Data(record.utf8)).status == 0)
        let server = try ServerProcess(["--db", database.argument])
        try server.initialize()
        let refused = try #require(try server.call(1, "tasks/update", #"{"id":"limit","changes":{"done":true}}"#)["error"])
        #expect(refused["code"] == 1004)
        let data = try #require(refused["data"]?.objectValue)
        #expect(data["code"] == 19 && data["extendedCode"] == 275 && data["retryable"] == false)
        #expect(data["reason"] == "storedDataOutOfRange")
        #expect(data["message"]?.stringValue?.contains("task limit is at version 9007199254740991") == true)
    }

    // MARK: - Schema objects Taskline did not make

    static let deletingTrigger = "CREATE TRIGGER wipe_on_insert AFTER INSERT ON task BEGIN DELETE FROM task WHERE id != NEW.id; END"

    /// `sql` and the line naming what it added or changed.
    static let foreignObjects: [(sql: String, finding: String)] = [
        (deletingTrigger, "trigger wipe_on_insert on task: not made by Taskline"),
        ("CREATE INDEX task_by_notes ON task (notes)", "index task_by_notes on task: not made by Taskline"),
        ("CREATE VIEW open_tasks AS SELECT * FROM task WHERE done = 0", "view open_tasks: not made by Taskline"),
        ("CREATE TABLE notes (body TEXT)", "table notes: not made by Taskline"),
        ("ANALYZE", "table sqlite_stat1: not made by Taskline"),
        (
            "DROP TRIGGER task_log_insert; CREATE TRIGGER task_log_insert AFTER INSERT ON task BEGIN SELECT 1; END",
            "trigger task_log_insert on task: not as Taskline made it"
        ),
        ("DROP TRIGGER task_log_delete", "trigger task_log_delete on task: missing"),
    ]

    @Test func aTemplateWithATriggerThatDeletesTasksIsRefusedUntouched() throws {
        let template = try taskFile("template.sqlite")
        try Database(path: template).execute(Self.deletingTrigger)
        let before = fileBytes(template)
        let path = directory.file("from-template.sqlite")

        let server = try ServerProcess(["--db", path, "--template", template])
        server.closeInput()
        #expect(server.waitForExit() == 3)
        #expect(server.stderr.contains("its schema is not as Taskline made it"), "\(server.stderr)")
        #expect(server.stderr.contains("trigger wipe_on_insert on task: not made by Taskline"), "\(server.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path), "no database was made")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.contains(".template-") })
        #expect(fileBytes(template) == before)
    }

    @Test(arguments: foreignObjects.indices)
    func aFileWithAnObjectTasklineDidNotMakeIsRefusedAndReported(_ index: Int) throws {
        let (sql, finding) = Self.foreignObjects[index]
        let path = try taskFile("objects-\(index).sqlite")
        try Database(path: path).execute(sql)
        let before = fileBytes(path)

        let server = try ServerProcess(["--db", path])
        server.closeInput()
        #expect(server.waitForExit() == 3, "\(sql)")
        #expect(server.stderr.contains(finding), "\(sql): \(server.stderr)")
        #expect(fileBytes(path) == before)
        for command in ["list", "export"] {
            let refused = try runTaskline([command, "--db", path])
            #expect(refused.status == 3, "\(command): \(sql)")
            #expect(refused.stderr.contains(finding))
        }

        let check = try runTaskline(["check", "--db", path])
        #expect(check.status == 1, "\(sql): \(check.output)")
        #expect(check.output.contains("objects       1 problem\n    \(finding)\n"), "\(sql): \(check.output)")
        #expect(check.lines.last == "NOT SOUND")
        #expect(fileBytes(path) == before)
    }

    /// A file as Taskline made it stays sound to check, whatever served it before.
    @Test func aFileAsTasklineMadeItHasNoObjectsSection() throws {
        let path = try taskFile("plain.sqlite")
        let check = try runTaskline(["check", "--db", path])
        #expect(check.status == 0)
        #expect(!check.output.contains("objects"))
    }
}
