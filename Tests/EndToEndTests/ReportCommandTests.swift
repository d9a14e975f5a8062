import Foundation
import JSONRPC
import TestSupport
import Testing

/// The reports: `summary`, `stats`, `calendar` and `burndown`.
@Suite struct ReportCommandTests {
    let directory = TemporaryDirectory()
    /// UTC, no colour, no width: what a pipe gets, whatever the test runner's terminal.
    static let plain = ["TZ": "UTC", "COLUMNS": "", "CLICOLOR_FORCE": "", "NO_COLOR": ""]

    /// A database holding `records` (the wire format, one a line), imported with their
    /// times as given.
    func database(_ name: String, _ records: [String]) throws -> String {
        let path = directory.file(name)
        let imported = try runTaskline(["import", "-", "--db", path], stdin: Data(records.joined(separator: "\n").utf8))
        #expect(imported.status == 0, "\(imported.stderr)")
        return path
    }

    func run(_ arguments: [String], _ path: String, environment: [String: String] = [:]) throws -> CommandResult {
        let result = try runTaskline(arguments + ["--db", path], environment: Self.plain.merging(environment) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }

    /// `2020-01-01T00:00:00Z`-style record times, all in 2020, so that no report depends on today.
    static let projects = [
        #"{"id":"a","title":"Fix door","project":"Home.Garage","createdAt":"2020-01-01T00:00:00Z"}"#,
        #"{"id":"b","title":"Paint","project":"Home.Garage","done":true,"createdAt":"2020-01-01T00:00:00Z","completedAt":"2020-01-03T00:00:00Z"}"#,
        #"{"id":"c","title":"Clean","project":"Home","createdAt":"2020-01-01T00:00:00Z"}"#,
        #"{"id":"d","title":"Report","project":"Work","done":true,"createdAt":"2020-01-01T00:00:00Z","completedAt":"2020-01-05T12:00:00Z"}"#,
        #"{"id":"e","title":"Misc","createdAt":"2020-01-01T00:00:00Z"}"#,
        #"{"id":"f","title":"Other","project":"Home-Office","createdAt":"2020-01-01T00:00:00Z"}"#,
    ]

    @Test func summaryNestsProjectsUnderTheirParentsWithATotal() throws {
        let path = try database("summary.sqlite", Self.projects)
        let table = try run(["summary"], path)
        // Home.Garage under Home, before Home-Office, though "-" sorts before ".".
        #expect(
            table.lines == [
                "Project      Open  Done  Complete",
                "Home            2     1       33%",
                "  Garage        1     1       50%",
                "Home-Office     1     0        0%",
                "Work            0     1      100%",
                "(none)          1     0        0%",
                "Total           4     2       33%",
            ], "\(table.output)")

        let json = try JSONParser.parse(try run(["summary", "--json"], path).stdout)
        #expect(json["projects"]?.arrayValue?.map { $0["project"] } == ["Home", "Home.Garage", "Home-Office", "Work"])
        #expect(json["projects"]?.arrayValue?.first == ["project": "Home", "open": 2, "done": 1, "percentComplete": 33])
        #expect(json["noProject"] == ["open": 1, "done": 0, "percentComplete": 0])
        #expect(json["total"] == ["open": 4, "done": 2, "percentComplete": 33])

        let coloured = try run(["summary"], path, environment: ["CLICOLOR_FORCE": "1"])
        #expect(coloured.lines.first == "\u{1B}[4mProject      Open  Done  Complete\u{1B}[0m")
        #expect(coloured.lines.last == "\u{1B}[1mTotal           4     2       33%\u{1B}[0m")
        let narrow = try run(["summary"], path, environment: ["COLUMNS": "30"])
        #expect(narrow.lines.allSatisfy { $0.count <= 30 }, "\(narrow.output)")
        #expect(narrow.lines[3] == "Home-Of…     1     0        0%", "\(narrow.output)")
    }

    @Test func reportsOfADatabaseThatDoesNotExistSaySoAndMakeNone() throws {
        let path = directory.file("missing.sqlite")
        for command in ["summary", "stats"] {
            let result = try run([command], path)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("no tasks yet (there is no database at \(path))"), "\(command): \(result.stderr)")
        }
        let summary = try JSONParser.parse(try run(["summary", "--json"], path).stdout)
        #expect(summary["total"] == ["open": 0, "done": 0, "percentComplete": .null])
        let stats = try JSONParser.parse(try run(["stats", "--json"], path).stdout)
        #expect(stats["total"] == 0)
        #expect(stats["oldest"] == .null)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func statsCountsTheTasksAndTheirTimes() throws {
        let path = try database(
            "stats.sqlite",
            Self.projects + [
                #"{"id":"g","title":"Overdue","due":"2020-02-01","createdAt":"2020-01-02T00:00:00Z"}"#,
                #"{"id":"h","title":"Later","wait":"2099-01-01","due":"2099-02-01","createdAt":"2020-01-02T00:00:00Z"}"#,
                #"{"id":"i","title":"Blocked","dependsOn":["a"],"createdAt":"2020-01-02T00:00:00Z"}"#,
            ])
        // Made now: added in the last 7 days, one of them completed now too (in well under
        // a minute, which leaves the average's minutes as they are).
        let repeats = try runTaskline(["add", "--db", path, "Repeats", "recur:weekly", "due:2099-01-01"])
        #expect(repeats.status == 0, "\(repeats.stderr)")
        let quick = try runTaskline(["add", "--db", path, "Quick"])
        let quickID = String(quick.output.split(separator: " ")[1])
        #expect(try runTaskline(["done", "--db", path, quickID]).status == 0)

        let stats = try run(["stats"], path)
        #expect(
            Array(stats.lines[0...7]) == [
                "Open                  8",
                "  waiting             1",
                "  blocked             1",
                "  recurring           1",
                "  with a due date     3",
                "  overdue             1",
                "Done                  3",
                "Total                11",
            ], "\(stats.output)")
        #expect(stats.lines[8] == "Oldest               2020-01-01  a  Fix door")
        #expect(stats.lines[9].hasPrefix("Newest               ") && stats.lines[9].hasSuffix("  \(quickID)  Quick"))
        // (2 days + 4 days 12 hours + a moment) / 3.
        #expect(stats.lines[10] == "Average to complete  2 days 4 hours")
        #expect(stats.lines[11] == "Added                2 in the last 7 days, 2 in the last 30 days")
        #expect(stats.lines[12] == "Completed            1 in the last 7 days, 1 in the last 30 days")
        #expect(stats.lines[13].hasPrefix("Database             \(path) (") && stats.lines[13].hasSuffix(" KiB)"), "\(stats.output)")

        let json = try JSONParser.parse(try run(["stats", "--json"], path).stdout)
        #expect(json["open"] == 8)
        #expect(json["withDue"] == 3)
        #expect(json["overdue"] == 1)
        #expect(json["oldest"] == ["id": "a", "title": "Fix door", "createdAt": "2020-01-01T00:00:00.000Z"])
        #expect(json["newest"]?["title"] == "Quick")
        #expect(json["averageSecondsToComplete"] == 187_200)
        #expect(json["added"] == ["last7Days": 2, "last30Days": 2])
        #expect(json["completed"] == ["last7Days": 1, "last30Days": 1])
        let bytes = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(json["database"] == ["location": .string(path), "bytes": .integer(Int64(bytes ?? -1))])
    }
}
