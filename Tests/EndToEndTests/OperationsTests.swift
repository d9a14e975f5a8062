import Foundation
import JSON
import SQLite
import TestSupport
import Testing

/// `taskline export`, `import`, and what every subcommand shares (help, usage errors,
/// unusable databases), over the real binary and real SQLite files.
@Suite struct OperationsTests {
    let directory = TemporaryDirectory()

    /// Tasks of every shape, made through a server: done and not, updated (version > 1),
    /// a chosen id, tags, due dates with an offset and as a date, notes with new lines, a
    /// project, a wait time, meta, and dependencies (the first task's on a later one).
    func makeVariedDatabase(_ path: String) throws -> [JSON] {
        let server = try ServerProcess(["--db", path])
        try server.initialize(#"{"initializationOptions":{"notifications":false}}"#)
        let creates = [
            #"{"title":"Write the spec","notes":"line one\nline two — ünïcødé ✓\ttabbed","tags":["work","docs","work"],"due":"2026-12-01T17:00:00.5+01:00","priority":2}"#,
            #"{"id":"custom-id-1","title":"Buy milk","done":true,"tags":["errand"]}"#,
            #"{"title":"Renew the \"passport\" \\ now","due":"2027-01-31","priority":3,"project":"Home.Papers","wait":"2026-11-30","meta":{"b":1.50,"a":[null,{}]},"dependsOn":["custom-id-1"]}"#,
            #"{"title":"Plain"}"#,
        ]
        var ids: [String] = []
        for (index, params) in creates.enumerated() {
            let created = try server.call(index + 1, "tasks/create", params)
            ids.append(try #require(created["result"]?["id"]?.stringValue))
        }
        _ = try server.call(10, "tasks/update", #"{"id":"\#(ids[3])","changes":{"done":true,"notes":"finished"}}"#)
        _ = try server.call(11, "tasks/update", #"{"id":"\#(ids[3])","changes":{"done":false,"tags":["again"]}}"#)
        _ = try server.call(12, "tasks/update", #"{"id":"\#(ids[0])","changes":{"done":true,"dependsOn":["\#(ids[3])"]}}"#)
        let tasks = try #require(try server.call(13, "tasks/fetch")["result"]?["tasks"]?.arrayValue)
        server.closeInput()
        _ = server.waitForExit()
        #expect(tasks.count == 4)
        return tasks
    }

    @Test func exportImportRoundTripsPreserveEveryField() throws {
        let original = directory.file("original.sqlite")
        let tasks = try makeVariedDatabase(original)
        #expect(tasks.contains { $0["version"] == 3 })

        let exported = try runTaskline(["export", "--db", original])
        #expect(exported.status == 0)
        #expect(exported.stderr.isEmpty)
        #expect(try exported.lines.map { try JSONParser.parse(Array($0.utf8)) } == tasks, "export writes the wire form, oldest first")
        let file = directory.file("tasks.jsonl")
        try exported.stdout.write(to: URL(fileURLWithPath: file))

        // JSON Lines from a file.
        let copy = directory.file("copy.sqlite")
        let imported = try runTaskline(["import", file, "--db", copy])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.isEmpty, "the summary goes to stderr")
        #expect(imported.stderr.contains("imported 4 new tasks"))
        #expect(try runTaskline(["export", "--db", copy]).stdout == exported.stdout)

        // One JSON array, from stdin.
        let array = try runTaskline(["export", "--db", original, "--format", "json"])
        #expect(try JSONParser.parse(array.stdout) == .array(tasks))
        let fromArray = directory.file("from-array.sqlite")
        #expect(try runTaskline(["import", "-", "--db", fromArray], stdin: array.stdout).status == 0)
        #expect(try runTaskline(["export", "--db", fromArray]).stdout == exported.stdout)

        // And the server serves the copy with the same tasks, every field.
        let server = try ServerProcess(["--db", copy])
        try server.initialize()
        #expect(try server.call(1, "tasks/fetch")["result"]?["tasks"] == .array(tasks))
    }

    @Test func emptyDatabaseExportsNothing() throws {
        let path = directory.file("empty.sqlite")
        #expect(try runTaskline(["add", "--db", path, "gone"]).status == 0)
        let id = try #require(try JSONParser.parse(try runTaskline(["export", "--db", path]).stdout)["id"]?.stringValue)
        #expect(try runTaskline(["rm", "--db", path, id]).status == 0)
        #expect(try runTaskline(["export", "--db", path]).stdout.isEmpty)
        #expect(try runTaskline(["export", "--db", path, "--format", "json"]).output == "[]\n")
    }

    /// Lines of JSON for `count` valid tasks, with ids `t-1`…
    func validRecords(_ count: Int) -> [String] {
        (1...count).map { #"{"id":"t-\#($0)","title":"task \#($0)","tags":["bulk"]}"# }
    }

    func state(_ path: String) throws -> (export: Data, check: String) {
        (try runTaskline(["export", "--db", path]).stdout, try runTaskline(["check", "--db", path]).output)
    }

    @Test func importThatFailsHalfwayLeavesTheDatabaseUntouched() throws {
        let path = directory.file("tasks.sqlite")
        #expect(try runTaskline(["import", "-", "--db", path], stdin: Data(validRecords(5).joined(separator: "\n").utf8)).status == 0)
        let before = try state(path)
        #expect(before.check.contains("newest seq 5"))

        // 2,000 records: two bad ones, far in; the first 1,199 were already written when
        // the first was met, and must be undone.
        var lines = validRecords(2000).map { $0.replacingOccurrences(of: "t-", with: "new-") }
        lines[1199] = #"{"id":"bad-1","title":"done?","done":false,"completedAt":"2026-01-01T00:00:00Z"}"#
        lines[1699] = #"{"id":"bad-2","title":"typo","prority":2}"#
        let failed = try runTaskline(["import", "-", "--db", path], stdin: Data(lines.joined(separator: "\n").utf8))
        #expect(failed.status == 1)
        #expect(failed.stdout.isEmpty)
        #expect(failed.stderr.contains("stdin: line 1200: completedAt must be null when done is false"), "\(failed.stderr)")
        #expect(failed.stderr.contains("stdin: line 1700: prority is not a known field"))
        #expect(failed.stderr.contains("nothing was imported: 2 bad records"))
        let after = try state(path)
        #expect(after.export == before.export)
        #expect(after.check == before.check, "not even the change log moved")

        // A file cut short in the middle of its array.
        let cut = "[\n" + validRecords(300).map { $0.replacingOccurrences(of: "t-", with: "cut-") }.joined(separator: ",\n") + ",\n{\"title\":\"half"
        let truncated = directory.file("truncated.json")
        try Data(cut.utf8).write(to: URL(fileURLWithPath: truncated))
        let broken = try runTaskline(["import", truncated, "--db", path])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("truncated.json: line 302: the array is not closed with ]"), "\(broken.stderr)")
        #expect(try state(path).export == before.export)

        // The same id twice in one file.
        let twice = [#"{"id":"dup","title":"first"}"#, #"{"id":"other","title":"fine"}"#, #"{"id":"dup","title":"second"}"#]
        let duplicated = try runTaskline(["import", "-", "--db", path], stdin: Data(twice.joined(separator: "\n").utf8))
        #expect(duplicated.status == 1)
        #expect(duplicated.stderr.contains("line 3: id dup is the id of an existing task"))
        #expect(try state(path).export == before.export)
    }

    @Test func everyBadRecordIsReportedByItsLine() throws {
        let records = [
            #"{"title":"fine"}"#,
            "",
            #"{"title":"   "}"#,
            #"{"title":"x","priority":9}"#,
            #"{"title":"x","tags":["has space"]}"#,
            #"{"title":"x","due":"tomorrow"}"#,
            #"{"title":"x","createdAt":"yesterday"}"#,
            #"{"title":"x","version":0}"#,
            #"{"title":"x","done":"yes"}"#,
            #"{"notes":"no title"}"#,
            #"{"title":"x",}"#,
            #"["not","an","object"]"#,
        ]
        let result = try runTaskline(["import", "-", "--db", directory.file("t.sqlite")], stdin: Data(records.joined(separator: "\n").utf8))
        #expect(result.status == 1)
        for expected in [
            "line 3: title must contain a character that is not white space",
            "line 4: priority must be 0 (none), 1 (low), 2 (medium) or 3 (high)",
            "line 5: tags[0] a tag must not contain white space",
            "line 6: due must be an RFC 3339 date-time",
            "line 7: createdAt must be an RFC 3339 date-time",
            "line 8: version must be 1 or more",
            "line 9: done must be a boolean, not string",
            "line 10: title is required",
            "line 11: not valid JSON",
            "line 12: the record must be an object, not array",
            "nothing was imported: 10 bad records",
        ] {
            #expect(result.stderr.contains(expected), "missing \(expected) in \(result.stderr)")
        }
    }

    @Test func conflictsFailSkipOrReplace() throws {
        let path = directory.file("tasks.sqlite")
        let first =
            #"{"id":"x","title":"first","notes":"","done":false,"priority":0,"tags":[],"due":null,"project":null,"dependsOn":[],"wait":null,"meta":{},"recurrence":null,"seriesId":null,"remindAt":null,"startedAt":"2026-01-01T10:30:00.000Z","annotations":[],"createdAt":"2026-01-01T10:00:00.000Z","updatedAt":"2026-01-01T10:00:00.000Z","completedAt":null,"version":1}"#
        let second =
            #"{"id":"x","title":"second","notes":"from elsewhere","done":true,"priority":1,"tags":["b","a"],"due":"2026-02-01","project":"Work.Q1","dependsOn":[],"wait":"2026-01-20","meta":{"k":1.0},"recurrence":{"rule":"FREQ=WEEKLY"},"seriesId":"x","remindAt":"2026-01-19T08:00:00+01:00","startedAt":null,"annotations":[{"at":"2026-01-02T08:00:00.000Z","text":"kept"}],"createdAt":"2025-12-31T09:00:00.000Z","updatedAt":"2026-01-05T11:00:00.000Z","completedAt":"2026-01-04T08:00:00.000Z","version":7}"#
        #expect(try runTaskline(["import", "-", "--db", path], stdin: Data(first.utf8)).status == 0)

        let failed = try runTaskline(["import", "-", "--db", path], stdin: Data(second.utf8))
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("line 1: id x is the id of an existing task"))
        #expect(failed.stderr.contains("--on-conflict"))

        let skipped = try runTaskline(["import", "-", "--db", path, "--on-conflict", "skip"], stdin: Data(second.utf8))
        #expect(skipped.status == 0)
        #expect(skipped.stderr.contains("skipped 1 whose id exists"))
        #expect(try runTaskline(["export", "--db", path]).output == first + "\n")

        let replaced = try runTaskline(["import", "-", "--db", path, "--on-conflict=replace"], stdin: Data(second.utf8))
        #expect(replaced.status == 0)
        #expect(replaced.stderr.contains("replaced 1"))
        let sorted = second.replacingOccurrences(of: #"["b","a"]"#, with: #"["a","b"]"#)
        #expect(try runTaskline(["export", "--db", path]).output == sorted + "\n", "replace keeps every field of the record")

        let again = try runTaskline(["import", "-", "--db", path, "--on-conflict", "replace"], stdin: Data(second.utf8))
        #expect(again.stderr.contains("1 already identical"))
        #expect(try runTaskline(["check", "--db", path]).status == 0)
    }

    @Test func runningServersSeeImportedTasks() throws {
        let path = directory.file("shared.sqlite")
        let server = try ServerProcess(["--db", path])
        try server.initialize()
        let records = (1...3).map { #"{"id":"imp-\#($0)","title":"imported \#($0)","tags":["moved"]}"# }
        #expect(try runTaskline(["import", "-", "--db", path], stdin: Data(records.joined(separator: "\n").utf8)).status == 0)
        let created = try server.didChanges(count: 3)
        #expect(created.map { $0["kind"] } == ["created", "created", "created"])
        #expect(created.map { $0["task"]?["title"] } == ["imported 1", "imported 2", "imported 3"])
        #expect(created.map { $0["seq"] } == [1, 2, 3])

        let replacement = #"{"id":"imp-2","title":"imported again","version":5}"#
        #expect(try runTaskline(["import", "-", "--db", path, "--on-conflict", "replace"], stdin: Data(replacement.utf8)).status == 0)
        let updated = try server.didChanges(count: 1)
        #expect(updated.first?["kind"] == "updated")
        #expect(updated.first?["version"] == 5)
        #expect(updated.first?["task"]?["title"] == "imported again")
    }

    @Test func progressBarOnlyWhenStderrIsATerminal() throws {
        let file = directory.file("many.jsonl")
        try Data(validRecords(3000).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
        let onTerminal = try runTasklineWithTerminalStderr(["import", file, "--db", directory.file("a.sqlite")])
        #expect(onTerminal.status == 0)
        #expect(onTerminal.terminal.contains("\rimporting ["), "\(onTerminal.terminal.debugDescription)")
        #expect(onTerminal.terminal.contains("100%  3,000 records"))
        #expect(onTerminal.terminal.contains("imported 3,000 new tasks"))

        let backup = try runTasklineWithTerminalStderr([
            "backup", directory.file("a-copy.sqlite"), "--db", directory.file("a.sqlite"),
            "--pages-per-step", "4",
        ])
        #expect(backup.status == 0)
        #expect(backup.terminal.contains("\rbacking up ["))
        #expect(backup.terminal.contains("100%"))

        let onPipe = try runTaskline(["import", file, "--db", directory.file("b.sqlite")])
        #expect(onPipe.status == 0)
        #expect(!onPipe.stderr.contains("\r"))
        #expect(onPipe.stderr == "taskline: imported 3,000 new tasks\n")
    }

    static let commands = ["export", "import", "backup", "check", "add", "list", "done", "rm"]

    @Test func everySubcommandHasHelp() throws {
        for command in Self.commands {
            for flag in ["--help", "-h"] {
                let result = try runTaskline([command, "--db", "/nonexistent/x.sqlite", flag])
                #expect(result.status == 0)
                #expect(result.output.hasPrefix("Usage: taskline \(command)"), "\(command): \(result.output)")
                #expect(result.stderr.isEmpty)
            }
        }
        let overview = try runTaskline(["--help"])
        for command in Self.commands {
            #expect(overview.output.contains("\n  \(command) "), "taskline --help lists \(command)")
        }
        // After `--`, --help is a word of a title.
        let path = directory.file("help.sqlite")
        #expect(try runTaskline(["add", "--db", path, "--", "--help"]).output.hasSuffix("  [ ]  --help\n"))
    }

    @Test(arguments: [
        ["export", "--format", "xml"], ["export", "extra"], ["import"], ["import", "a", "b"],
        ["import", "f", "--on-conflict", "maybe"], ["import", "f", "--from", "todo.txt"], ["backup"],
        ["backup", "a", "b"], ["backup", "a", "--pages-per-step", "0"], ["check", "extra"], ["add"],
        ["add", "--priority", "urgent", "x"], ["list", "--json=yes"], ["list", "--bogus"], ["done"], ["rm"],
        ["list", "--db"], ["frobnicate"], ["--db"],
    ])
    func usageErrorsExitTwo(arguments: [String]) throws {
        let result = try runTaskline(arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("taskline: error: "), "\(result.stderr)")
        #expect(result.stderr.contains("--help"))
    }

    @Test func unusableDatabasesExitThreeUntouched() throws {
        let foreign = directory.file("foreign.sqlite")
        try Database(path: foreign).execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');")
        let before = fileBytes(foreign)
        let record = Data(#"{"title":"x"}"#.utf8)
        for arguments in [
            ["export"], ["check"], ["backup", directory.file("copy.sqlite")],
            ["import", "-"], ["add", "x"], ["done", "abcd"], ["rm", "abcd"],
        ] {
            let result = try runTaskline(arguments + ["--db", foreign], stdin: record)
            #expect(result.status == 3, "\(arguments)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("belongs to another application"), "\(arguments): \(result.stderr)")
        }
        #expect(fileBytes(foreign) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.file("copy.sqlite")))

        let missing = directory.file("missing.sqlite")
        for arguments in [["export"], ["check"], ["backup", directory.file("copy.sqlite")], ["done", "abcd"], ["rm", "abcd"]] {
            let result = try runTaskline(arguments + ["--db", missing])
            #expect(result.status == 3, "\(arguments)")
            #expect(!result.stderr.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: missing), "reading commands never create a database")
    }

    @Test func exportStopsQuietlyWhenItsReaderGoesAway() throws {
        let path = directory.file("big.sqlite")
        #expect(try runTaskline(["import", "-", "--db", path], stdin: Data(validRecords(5000).joined(separator: "\n").utf8)).status == 0)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "'\(ServerProcess.binaryPath)' export --db '\(path)' | head -n 1 > /dev/null"]
        let errors = Pipe.closedOnExec()
        process.standardError = .pipe(errors)
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try errors.fileHandleForReading.readAll().isEmpty, "no complaint about the closed pipe")
    }
}
