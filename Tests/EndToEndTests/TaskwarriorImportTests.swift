import Foundation
import JSON
import TestSupport
import Testing

/// `taskline import --from taskwarrior`, on the output of a real `task export` (Taskwarrior
/// 2.6) with every kind of field: see Fixtures/taskwarrior-export.json.
@Suite struct TaskwarriorImportTests {
    let directory = TemporaryDirectory()
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/taskwarrior-export.json").path

    func importFixture(into path: String, _ extra: [String] = []) throws -> CommandResult {
        try runTaskline(["import", Self.fixture, "--from", "taskwarrior", "--db", path] + extra)
    }

    func exported(_ path: String) throws -> [String: JSON] {
        let lines = try runTaskline(["export", "--db", path]).lines
        var tasks: [String: JSON] = [:]
        for line in lines {
            let task = try JSONParser.parse(Array(line.utf8))
            tasks[try #require(task["id"]?.stringValue)] = task
        }
        return tasks
    }

    @Test func everyFieldKindIsMapped() throws {
        let path = directory.file("moved.sqlite")
        let result = try importFixture(into: path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("imported 9 new tasks"))
        #expect(result.stderr.contains("not imported from Taskwarrior: 1 deleted, 1 recurring"))
        #expect(
            result.stderr.contains(
                "kept in meta.taskwarrior (tasks): estimate (1), scheduled (1), until (1)"), "\(result.stderr)")

        let tasks = try exported(path)
        #expect(tasks.count == 9)
        #expect(tasks["3c4d5e6f-7081-4a2b-8c3d-4e5f60718293"] == nil, "deleted tasks stay behind")
        #expect(tasks["6f708192-a3b4-4c5d-9e6f-708192a3b4c5"] == nil, "recurrence templates stay behind")

        // The plainest task: uuid, description, entry, modified.
        #expect(
            tasks["0f1d5d8e-6a3b-4c52-9a53-3c1e9f6b2a01"] == [
                "id": "0f1d5d8e-6a3b-4c52-9a53-3c1e9f6b2a01", "title": "Renew passport", "notes": "", "done": false,
                "priority": 0, "tags": [], "due": .null, "project": .null, "dependsOn": [], "wait": .null, "meta": [:],
                "recurrence": .null, "seriesId": .null, "remindAt": .null, "startedAt": .null, "annotations": [],
                "createdAt": "2024-01-02T08:15:12.000Z",
                "updatedAt": "2024-01-02T08:15:12.000Z", "completedAt": .null, "version": 1,
            ])
        // due, priority H, project, tags, annotations.
        #expect(
            tasks["1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"] == [
                "id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "title": "Plant the tulip bulbs",
                "notes": "", "done": false, "priority": 3, "tags": ["garden", "weekend"],
                "due": "2024-10-15T16:00:00Z", "project": "Home.Garden", "dependsOn": [], "wait": .null, "meta": [:],
                "recurrence": .null, "seriesId": .null, "remindAt": .null, "startedAt": .null,
                "annotations": [
                    ["at": "2024-09-04T12:00:00.000Z", "text": "Ask at the nursery which ones bloom early"],
                    ["at": "2024-09-10T07:11:33.000Z", "text": "Bought 40 bulbs"],
                ],
                "createdAt": "2024-09-03T19:04:12.000Z",
                "updatedAt": "2024-09-10T07:11:33.000Z", "completedAt": .null, "version": 1,
            ])
        // completed, with end; priority M.
        let taxes = try #require(tasks["2b3c4d5e-6f70-4819-9a2b-3c4d5e6f7081"])
        #expect(taxes["done"] == true)
        #expect(taxes["completedAt"] == "2024-04-15T18:30:02.000Z")
        #expect(taxes["priority"] == 2)
        #expect(taxes["tags"] == ["money"])
        #expect(taxes["project"] == "Admin")
        // completed without end: completed when last modified.
        let books = try #require(tasks["a3b4c5d6-e7f8-4091-a2b3-c4d5e6f70819"])
        #expect(books["done"] == true)
        #expect(books["completedAt"] == "2024-01-24T17:05:00.000Z")
        // waiting (old style) and pending with wait/scheduled/until/UDA: open tasks.
        #expect(tasks["4d5e6f70-8192-4a3b-9c4d-5e6f708192a3"]?["done"] == false)
        #expect(tasks["4d5e6f70-8192-4a3b-9c4d-5e6f708192a3"]?["title"] == "Reply to Ana's wedding invitation")
        #expect(tasks["5e6f7081-92a3-4b4c-8d5e-6f708192a3b4"]?["updatedAt"] == "2024-06-12T09:30:15.000Z")
        #expect(tasks["4d5e6f70-8192-4a3b-9c4d-5e6f708192a3"]?["wait"] == "2024-06-01T00:00:00Z")
        // wait is mapped; the fields with no place of their own are kept as Taskwarrior wrote them.
        #expect(tasks["5e6f7081-92a3-4b4c-8d5e-6f708192a3b4"]?["wait"] == "2024-06-25T00:00:00Z")
        #expect(
            tasks["5e6f7081-92a3-4b4c-8d5e-6f708192a3b4"]?["meta"] == [
                "taskwarrior": [
                    "scheduled": "20240701T080000Z", "until": "20240801T000000Z", "estimate": "2h",
                ]
            ])
        // depends: on a task earlier in the file.
        #expect(tasks["8192a3b4-c5d6-4e7f-9081-92a3b4c5d6e7"]?["dependsOn"] == ["0f1d5d8e-6a3b-4c52-9a53-3c1e9f6b2a01"])
        // start: the task is active.
        #expect(tasks["8192a3b4-c5d6-4e7f-9081-92a3b4c5d6e7"]?["startedAt"] == "2024-07-03T09:00:00.000Z")
        #expect(tasks["8192a3b4-c5d6-4e7f-9081-92a3b4c5d6e7"]?["meta"] == [:])
        // The pending instance of a recurring task is the recurring task.
        let plants = try #require(tasks["708192a3-b4c5-4d6e-8f70-8192a3b4c5d6"])
        #expect(plants["due"] == "2024-01-18T18:00:00Z")
        #expect(plants["tags"] == ["home"])
        #expect(plants["recurrence"] == ["rule": "FREQ=WEEKLY"] && plants["seriesId"] == "708192a3-b4c5-4d6e-8f70-8192a3b4c5d6")
        #expect(plants["meta"] == [:])
        // Quotes and non-ASCII text; priority L; tags in code point order.
        let call = try #require(tasks["92a3b4c5-d6e7-4f80-a192-a3b4c5d6e7f8"])
        #expect(call["title"] == "Call \"Dr. Müller\" about the café ☎ results")
        #expect(call["priority"] == 1)
        #expect(call["tags"] == ["café", "health"])

        #expect(try runTaskline(["check", "--db", path]).status == 0)
        let open = try runTaskline(["list", "--db", path]).lines
        #expect(open.count == 7)
        #expect(
            open.contains {
                $0.contains("  H  ") && $0.contains(" days overdue ") && $0.contains("Plant the tulip bulbs ") && $0.hasSuffix("  +garden +weekend")
            })
    }

    @Test func importingTwiceConflictsUnlessSkipped() throws {
        let path = directory.file("twice.sqlite")
        #expect(try importFixture(into: path).status == 0)
        let again = try importFixture(into: path)
        #expect(again.status == 1)
        #expect(again.stderr.contains("taskwarrior-export.json: line 2: id 0f1d5d8e-6a3b-4c52-9a53-3c1e9f6b2a01 is the id of an existing task"))
        #expect(again.stderr.contains("nothing was imported: 9 bad records"))
        let skipped = try importFixture(into: path, ["--on-conflict", "skip"])
        #expect(skipped.status == 0)
        #expect(skipped.stderr.contains("skipped 9 whose id exists"))
    }

    @Test func badTaskwarriorRecordsAreReportedByLine() throws {
        let text = """
            [
            {"description":"fine","entry":"20240102T081512Z","status":"pending","uuid":"00000000-0000-4000-8000-000000000001"},
            {"description":"odd priority","priority":"X","status":"pending","uuid":"00000000-0000-4000-8000-000000000002"},
            {"description":"odd date","entry":"2nd of May","status":"pending","uuid":"00000000-0000-4000-8000-000000000003"},
            {"description":"odd status","status":"someday","uuid":"00000000-0000-4000-8000-000000000004"},
            {"description":"no uuid","status":"pending"},
            {"status":"pending","uuid":"00000000-0000-4000-8000-000000000006"},
            {"description":"bad note","annotations":[{"entry":"20240102T081512Z"}],"status":"pending","uuid":"00000000-0000-4000-8000-000000000007"}
            ]
            """
        let path = directory.file("bad.sqlite")
        let result = try runTaskline(["import", "-", "--from", "taskwarrior", "--db", path], stdin: Data(text.utf8))
        #expect(result.status == 1)
        for expected in [
            "stdin: line 3: priority must be H, M or L, not X",
            "stdin: line 4: entry must be a Taskwarrior date such as 20240115T093000Z, not 2nd of May",
            "stdin: line 5: status must be pending, waiting, completed, deleted or recurring, not someday",
            "stdin: line 6: uuid is required",
            "stdin: line 7: description is required",
            "stdin: line 8: annotations[0].description is required",
            "nothing was imported: 6 bad records",
        ] {
            #expect(result.stderr.contains(expected), "missing \(expected) in \(result.stderr)")
        }
        #expect(try runTaskline(["export", "--db", path]).stdout.isEmpty)
    }

    /// Older Taskwarrior writes `depends` as one comma-separated string; a task may depend on
    /// one later in the file. A UDA lands in meta.taskwarrior with its JSON type.
    @Test func dependsAsAStringOnALaterTask() throws {
        let text = """
            {"uuid":"00000000-0000-4000-8000-00000000000A","description":"first","status":"pending","depends":"00000000-0000-4000-8000-00000000000B,00000000-0000-4000-8000-00000000000c","effort":1.50}
            {"uuid":"00000000-0000-4000-8000-00000000000b","description":"second","status":"pending"}
            {"uuid":"00000000-0000-4000-8000-00000000000c","description":"third","status":"completed","end":"20240102T081512Z"}
            """
        let path = directory.file("depends.sqlite")
        let result = try runTaskline(["import", "-", "--from", "taskwarrior", "--db", path], stdin: Data(text.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let first = try #require(try exported(path)["00000000-0000-4000-8000-00000000000a"])
        #expect(first["dependsOn"] == ["00000000-0000-4000-8000-00000000000b", "00000000-0000-4000-8000-00000000000c"])
        #expect(first["meta"] == ["taskwarrior": ["effort": .number("1.50")]])
        #expect(try runTaskline(["check", "--db", path]).status == 0)
    }

    /// A project name's white space becomes `_`, by the protocol's list of white space
    /// (U+FEFF and U+3000 among them), which a project may not hold.
    @Test func aProjectsWhiteSpaceBecomesUnderscores() throws {
        let record =
            #"{"uuid":"5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d","description":"Paint","status":"pending","#
            + #""entry":"20240101T000000Z","project":"Home\uFEFFGarden\u3000Shed Door"}"#
        let path = directory.file("project.sqlite")
        let result = try runTaskline(["import", "-", "--from", "taskwarrior", "--db", path], stdin: Data(record.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try exported(path).values.first?["project"] == "Home_Garden_Shed_Door")
    }

    /// A template and its pending instances (Taskwarrior's `recurrence.limit` makes several)
    /// become one recurring task; completed instances stay done tasks; a `recur` with no rule
    /// leaves its tasks as they are.
    @Test func aRecurringSeriesBecomesOneRecurringTask() throws {
        func record(_ uuid: Int, _ fields: String) -> String {
            #"{"uuid":"00000000-0000-4000-8000-\#(String(repeating: "0", count: 12 - String(uuid).count) + String(uuid))","entry":"20260101T000000Z",\#(fields)}"#
        }
        let parent = #""parent":"00000000-0000-4000-8000-000000000001""#
        let text = [
            record(1, #""description":"Stand-up","status":"recurring","recur":"weekdays","due":"20261201T090000Z","mask":"+--""#),
            record(
                2,
                #""description":"Stand-up","status":"completed","recur":"weekdays","due":"20261201T090000Z","end":"20261201T091500Z","imask":0,\#(parent)"#
            ),
            record(
                3,
                #""description":"Stand-up","status":"pending","recur":"weekdays","due":"20261202T090000Z","imask":1,"until":"20261231T000000Z",\#(parent)"#
            ),
            record(4, #""description":"Stand-up","status":"pending","recur":"weekdays","due":"20261203T090000Z","imask":2,\#(parent)"#),
            record(5, #""description":"Stretch","status":"pending","recur":"3d","due":"20261202T070000Z""#),
            record(6, #""description":"Review","status":"pending","recur":"2w","due":"20261204T160000Z""#),
            record(7, #""description":"Rent","status":"pending","recur":"monthly","due":"20261231T120000Z""#),
            record(8, #""description":"Birthday","status":"pending","recur":"yearly","due":"20280229T120000Z""#),
            record(9, #""description":"Backup","status":"pending","recur":"daily","due":"20261202T230000Z""#),
            record(10, #""description":"Hourly","status":"pending","recur":"2h","due":"20261202T100000Z""#),
            record(11, #""description":"Hourly","status":"pending","recur":"2h","due":"20261202T120000Z""#),
        ].joined(separator: "\n")
        let path = directory.file("recurring.sqlite")
        let result = try runTaskline(["import", "-", "--from", "taskwarrior", "--db", path], stdin: Data(text.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("imported 9 new tasks"), "\(result.stderr)")
        #expect(result.stderr.contains("not imported from Taskwarrior: 1 recurring (deleted tasks, recurrence templates)"), "\(result.stderr)")
        #expect(result.stderr.contains("not imported from Taskwarrior: 1 later pending instance of recurring tasks"), "\(result.stderr)")
        #expect(result.stderr.contains("imported without recurrence, for want of a rule or of a due date (tasks): 2h (2)"), "\(result.stderr)")
        let tasks = try exported(path)
        func task(_ number: Int) -> JSON? { tasks["00000000-0000-4000-8000-\(String(repeating: "0", count: 12 - String(number).count))\(number)"] }
        #expect(task(3)?["recurrence"] == ["rule": "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;UNTIL=20261231T000000Z"])
        #expect(task(3)?["due"] == "2026-12-02T09:00:00Z" && task(3)?["meta"] == [:])
        #expect(task(4) == nil && task(1) == nil)
        #expect(task(2)?["done"] == true && task(2)?["recurrence"] == .null && task(2)?["meta"] == ["taskwarrior": ["recur": "weekdays"]])
        #expect(task(5)?["recurrence"] == ["rule": "FREQ=DAILY;INTERVAL=3"])
        #expect(task(6)?["recurrence"] == ["rule": "FREQ=WEEKLY;INTERVAL=2"])
        #expect(task(7)?["recurrence"] == ["rule": "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD"])
        #expect(task(8)?["recurrence"] == ["rule": "FREQ=YEARLY"])
        #expect(task(9)?["recurrence"] == ["rule": "FREQ=DAILY"])
        #expect(task(10)?["recurrence"] == .null && task(10)?["meta"] == ["taskwarrior": ["recur": "2h"]])
        #expect(task(11)?["recurrence"] == .null)
        #expect(try runTaskline(["check", "--db", path]).status == 0)
        // Completing the imported stand-up makes the next weekday's.
        let server = Client(try ServerProcess(["--db", path]))
        _ = try server.request("initialize", "{}")
        _ = try server.request("tasks/update", #"{"id":"00000000-0000-4000-8000-000000000003","changes":{"done":true}}"#)
        let open = try server.request("tasks/fetch", #"{"filter":{"done":false,"text":"stand-up"}}"#)["tasks"]?.arrayValue ?? []
        #expect(open.map { $0["due"] } == ["2026-12-03T09:00:00Z"])
    }

    /// The series' pending instance with the earliest due becomes the task, wherever it is in
    /// the file; equal dues go by entry, then by the file's order. A run of --skip-invalid
    /// that reads the file again (for a record the store refuses) chooses the same.
    @Test func theEarliestDueInstanceBecomesTheTaskWhateverTheOrder() throws {
        func record(_ uuid: Int, _ fields: String) -> String {
            #"{"uuid":"00000000-0000-4000-8000-00000000000\#(uuid)","description":"Water the plants",\#(fields)}"#
        }
        let instance = #""status":"pending","recur":"weekly","parent":"00000000-0000-4000-8000-000000000001""#
        let text = [
            record(2, #"\#(instance),"due":"20261209T180000Z","entry":"20260101T000000Z""#),
            record(3, #"\#(instance),"due":"20261202T180000Z","entry":"20260103T000000Z""#),
            record(1, #""status":"recurring","recur":"weekly","due":"20261125T180000Z","entry":"20260101T000000Z""#),
            record(4, #"\#(instance),"due":"20261202T180000Z","entry":"20260102T000000Z""#),
            record(5, #"\#(instance),"due":"20261202T180000Z","entry":"20260102T000000Z""#),
            #"{"uuid":"00000000-0000-4000-8000-000000000006","description":"Bell\u0007","status":"pending"}"#,
        ].joined(separator: "\n")
        let path = directory.file("out-of-order.sqlite")
        let result = try runTaskline(["import", "-", "--from", "taskwarrior", "--db", path, "--skip-invalid"], stdin: Data(text.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("imported 1 new task, skipped 1 bad record"), "\(result.stderr)")
        #expect(result.stderr.contains("not imported from Taskwarrior: 1 recurring (deleted tasks, recurrence templates)"), "\(result.stderr)")
        #expect(result.stderr.contains("not imported from Taskwarrior: 3 later pending instances of recurring tasks"), "\(result.stderr)")
        let tasks = try exported(path)
        #expect(Array(tasks.keys) == ["00000000-0000-4000-8000-000000000004"])
        #expect(tasks["00000000-0000-4000-8000-000000000004"]?["due"] == "2026-12-02T18:00:00Z")
        #expect(tasks["00000000-0000-4000-8000-000000000004"]?["recurrence"] == ["rule": "FREQ=WEEKLY"])
        #expect(try runTaskline(["check", "--db", path]).status == 0)
    }

    /// Taskwarrior keeps `due:2026-12-05` as the local midnight, in UTC: in Berlin
    /// `20261204T230000Z` in winter, `20260604T220000Z` in summer. Imported where that is
    /// midnight, it is the date; elsewhere the instant.
    @Test(arguments: [
        ("Europe/Berlin", ["2026-12-05", "2026-06-05", "2026-12-05T10:00:00Z"]),
        ("UTC", ["2026-12-04T23:00:00Z", "2026-06-04T22:00:00Z", "2026-12-05T10:00:00Z"]),
    ])
    func aDateOnlyDueIsTheDateOfTheImportsTimeZone(zone: String, expected: [String]) throws {
        let text = [("a", "20261204T230000Z"), ("b", "20260604T220000Z"), ("c", "20261205T100000Z")].map { name, due in
            #"{"uuid":"00000000-0000-4000-8000-00000000000\#(name)","description":"\#(name)","status":"pending","due":"\#(due)","recur":"weekly"}"#
        }.joined(separator: "\n")
        let path = directory.file("dates-\(zone.replacingOccurrences(of: "/", with: "-")).sqlite")
        let result = try runTaskline(["import", "-", "--from", "taskwarrior", "--db", path], stdin: Data(text.utf8), environment: ["TZ": zone])
        #expect(result.status == 0, "\(result.stderr)")
        let tasks = try exported(path)
        #expect(["a", "b", "c"].map { tasks["00000000-0000-4000-8000-00000000000\($0)"]?["due"]?.stringValue } == expected)
    }

    @Test func oneObjectPerLineToo() throws {
        // `task export rc.json.array=off`
        let lines = try String(contentsOfFile: Self.fixture, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("{") }.map { $0.hasSuffix(",") ? String($0.dropLast()) : String($0) }
        let path = directory.file("lines.sqlite")
        let result = try runTaskline(["import", "-", "--from", "taskwarrior", "--db", path], stdin: Data(lines.joined(separator: "\n").utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try exported(path).count == 9)
    }
}
