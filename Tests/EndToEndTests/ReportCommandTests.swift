import Foundation
import JSON
import JSONRPC
import TestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

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
        for command in ["summary", "stats", "calendar", "burndown"] {
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

    /// Open tasks due in 2099, two on one day, one late in the evening (UTC), and one done;
    /// in 2020, one open (overdue) and one done.
    static let dueDates = [
        #"{"id":"c1","title":"Launch","due":"2099-03-05","createdAt":"2020-01-01T00:00:00Z"}"#,
        #"{"id":"c2","title":"Review","due":"2099-03-05","createdAt":"2020-01-01T00:00:00Z"}"#,
        #"{"id":"c3","title":"Done already","done":true,"due":"2099-03-10","createdAt":"2020-01-01T00:00:00Z"}"#,
        #"{"id":"c4","title":"Late at night","due":"2099-03-31T23:30:00Z","createdAt":"2020-01-01T00:00:00Z"}"#,
        #"{"id":"c5","title":"Missed","due":"2020-01-15","createdAt":"2020-01-01T00:00:00Z"}"#,
        #"{"id":"c6","title":"Done then","done":true,"due":"2020-01-16","createdAt":"2020-01-01T00:00:00Z"}"#,
    ]

    /// Today in UTC, as the command run with TZ=UTC takes it: year, month, day.
    static func todayInUTC() -> DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.dateComponents([.year, .month, .day], from: Date())
    }

    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
    ]

    @Test func calendarMarksTheDaysTasksAreDueInWeeksFromMonday() throws {
        let path = try database("calendar.sqlite", Self.dueDates)
        let march = try run(["calendar", "2099-03"], path)
        // 2099-03-01 is a Sunday: the last cell of the first week.
        #expect(
            Array(march.lines.dropLast()) == [
                "        March 2099",
                "Mo  Tu  We  Th  Fr  Sa  Su",
                "                         1",
                " 2   3   4   5*  6   7   8",
                " 9  10  11  12  13  14  15",
                "16  17  18  19  20  21  22",
                "23  24  25  26  27  28  29",
                "30  31*",
                "",
            ], "\(march.output)")
        #expect(march.lines.last?.hasPrefix("* open tasks due (3)   ! overdue (0)   today ") == true, "\(march.output)")

        // 23:30 UTC is the next day in Tokyo, in April; a date is the same day everywhere.
        let tokyo = try run(["calendar", "2099-03", "2"], path, environment: ["TZ": "Asia/Tokyo"])
        #expect(tokyo.lines[0] == "        March 2099                    April 2099", "\(tokyo.output)")
        #expect(tokyo.lines[2] == "                         1             1*  2   3   4   5")
        #expect(tokyo.lines[3].hasPrefix(" 2   3   4   5*  6"))
        #expect(tokyo.lines.contains("30  31"))

        let past = try run(["calendar", "2020-01"], path)
        #expect(past.lines[4] == "13  14  15! 16  17  18  19", "the done task due on the 16th is not marked: \(past.output)")
        #expect(past.lines.last?.hasPrefix("* open tasks due (1)   ! overdue (1)   today ") == true)
        let coloured = try run(["calendar", "2020-01"], path, environment: ["CLICOLOR_FORCE": "1"])
        #expect(coloured.lines[4].contains("\u{1B}[1;31m15\u{1B}[0m\u{1B}[1;31m!\u{1B}[0m"), "\(coloured.output)")
        #expect(coloured.lines.last?.hasSuffix("\u{1B}[7mtoday\u{1B}[0m") == true)
        let noColour = try run(["calendar", "2020-01"], path, environment: ["CLICOLOR_FORCE": "1", "NO_COLOR": "1"])
        #expect(noColour.output == past.output)

        // Three months side by side only where they fit.
        let narrow = try run(["calendar", "2099-01", "3"], path, environment: ["COLUMNS": "60"])
        #expect(narrow.lines[0] == "       January 2099                  February 2099", "\(narrow.output)")
        #expect(narrow.lines.contains("        March 2099"), "below the others: \(narrow.output)")
        #expect(narrow.lines.allSatisfy { $0.count <= 60 })
        let wide = try run(["calendar", "2099-01", "3"], path)
        #expect(wide.lines[0].hasSuffix("March 2099"), "\(wide.output)")

        for bad in [["13"], ["0"], ["2099-13"], ["March"], ["3", "4"]] {
            let refused = try runTaskline(["calendar", "--db", path] + bad)
            #expect(refused.status == 2, "\(bad)")
        }
    }

    /// Without a month: this month, today in reverse video on a terminal; N months from it.
    @Test func calendarStartsAtThisMonthWithTodayShown() throws {
        let path = try database("today.sqlite", Self.dueDates)
        // Today is read before and after: the run may straddle midnight.
        let before = Self.todayInUTC()
        let shown = try run(["calendar", "3"], path, environment: ["CLICOLOR_FORCE": "1"])
        let after = Self.todayInUTC()
        let matches = [before, after].contains { today in
            let months = (0..<3).map { offset -> String in
                let index = today.year! * 12 + today.month! - 1 + offset
                return "\(Self.monthNames[index % 12]) \(index / 12)"
            }
            let day = String(today.day!)
            let reversed = "\u{1B}[7m" + String(repeating: " ", count: 2 - day.count) + day + "\u{1B}[0m"
            return months.allSatisfy(shown.lines[0].contains) && shown.output.contains(reversed)
        }
        #expect(matches, "\(shown.output)")
        #expect(shown.output.components(separatedBy: "\u{1B}[7m").count == 3, "today once in the grids, once in the legend")
        let plain = try run(["calendar"], path)
        #expect(
            plain.lines.last?.hasSuffix("today \(String(format: "%04d-%02d-%02d", after.year!, after.month!, after.day!))") == true || before != after
        )
    }

    /// Runs `body` with today's start (UTC) until it runs within one day: a run that
    /// straddles midnight is run again, on the new day.
    func onOneDay<T>(_ body: (Date) throws -> T) throws -> T {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        while true {
            let today = calendar.startOfDay(for: Date())
            let result = try body(today)
            if calendar.startOfDay(for: Date()) == today { return result }
        }
    }

    static func wire(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }

    static func day(_ date: Date) -> String {
        String(wire(date).prefix(10))
    }

    /// Open since 2020, done since 2020, one made 10 days ago and done 5 days ago, one made
    /// 2 days ago, and one deleted; days counted back from `today`, at noon.
    func burndownDatabase(_ name: String, today: Date) throws -> String {
        let noon = { (days: Int) in Self.wire(today.addingTimeInterval(Double(-days) * 86_400 + 43_200)) }
        let path = try database(
            name,
            [
                #"{"id":"old","title":"Old","createdAt":"2020-01-01T00:00:00Z"}"#,
                #"{"id":"oldDone","title":"Old, done","done":true,"createdAt":"2020-01-01T00:00:00Z","completedAt":"2020-01-02T00:00:00Z"}"#,
                #"{"id":"mid","title":"Mid","done":true,"createdAt":"\#(noon(10))","completedAt":"\#(noon(5))"}"#,
                #"{"id":"recent","title":"Recent","createdAt":"\#(noon(2))"}"#,
                #"{"id":"gone","title":"Gone","createdAt":"2020-01-01T00:00:00Z"}"#,
            ])
        #expect(try runTaskline(["rm", "--db", path, "gone"]).status == 0)
        return path
    }

    @Test func burndownCountsOpenAndDoneAtTheEndOfEachDayOrWeek() throws {
        var attempt = 0
        try onOneDay { today in
            attempt += 1
            let path = try burndownDatabase("burndown-\(attempt).sqlite", today: today)
            let daily = try JSONParser.parse(try run(["burndown", "--json"], path).stdout)
            let periods = daily["periods"]?.arrayValue ?? []
            #expect(daily["period"] == "day")
            #expect(periods.count == 30)
            for (index, period) in periods.enumerated() {
                let day = Self.day(today.addingTimeInterval(Double(index - 29) * 86_400))
                let open = 1 + (19..<24 ~= index ? 1 : 0) + (index >= 27 ? 1 : 0)
                let done = 1 + (index >= 24 ? 1 : 0)
                #expect(period == ["start": .string(day), "end": .string(day), "open": .integer(Int64(open)), "done": .integer(Int64(done))])
            }

            // Weeks from the Monday of the week 13 days back, this one to today.
            var iso = Calendar(identifier: .iso8601)
            iso.timeZone = TimeZone(identifier: "UTC")!
            let firstDay = today.addingTimeInterval(-13 * 86_400)
            let monday = iso.dateInterval(of: .weekOfYear, for: firstDay)!.start
            let weeks = Int((today.timeIntervalSince(monday) / 86_400).rounded()) / 7 + 1
            let weekly = try JSONParser.parse(try run(["burndown", "--weekly", "--days", "14", "--json"], path).stdout)
            let byWeek = weekly["periods"]?.arrayValue ?? []
            #expect(weekly["period"] == "week")
            #expect(byWeek.count == weeks)
            #expect(byWeek.first?["start"] == .string(Self.day(monday)))
            #expect(byWeek.first?["end"] == .string(Self.day(monday.addingTimeInterval(6 * 86_400))))
            #expect(byWeek.last?["end"] == .string(Self.day(today)))
            #expect(byWeek.last?["open"] == 2)
            #expect(byWeek.last?["done"] == 2)
        }
    }

    @Test func burndownDrawsStackedBarsThatFitTheWidth() throws {
        var attempt = 0
        try onOneDay { today in
            attempt += 1
            let path = try burndownDatabase("chart-\(attempt).sqlite", today: today)
            let chart = try run(["burndown", "--days", "10"], path)
            let lines = chart.lines
            #expect(
                lines.first == "Open and done tasks at the end of each day, \(Self.day(today.addingTimeInterval(-9 * 86_400))) to \(Self.day(today))")
            // At most 4 tasks: a row each, the top labelled, and every other one below it.
            // Bars 0…3: old and mid open, old done; 4…6: mid done too; 7…9: recent open.
            #expect(
                Array(lines[1...4]) == [
                    "4 ┤" + String(repeating: " ", count: 7 * 3) + "██ ██ ██",
                    "  │██ ██ ██ ██ ██ ██ ██ ██ ██ ██",
                    "2 ┤██ ██ ██ ██ ░░ ░░ ░░ ░░ ░░ ░░",
                    "  │░░ ░░ ░░ ░░ ░░ ░░ ░░ ░░ ░░ ░░",
                ], "\(chart.output)")
            #expect(lines[5] == "0 └" + String(repeating: "─", count: 10 * 3 - 1), "10 bars of 2 with a space between: \(chart.output)")
            #expect(lines[6].hasPrefix("   \(Self.day(today.addingTimeInterval(-9 * 86_400)).dropFirst(5))"))
            #expect(lines[7] == "█ open (2 now)   ░ done (2 now)")
            #expect(!chart.output.contains("\u{1B}"))

            let coloured = try run(["burndown", "--days", "10"], path, environment: ["CLICOLOR_FORCE": "1"])
            #expect(coloured.output.contains("\u{1B}[32m██\u{1B}[0m") && coloured.output.contains("\u{1B}[34m██\u{1B}[0m"), "\(coloured.output)")

            let narrow = try run(["burndown", "--days", "60"], path, environment: ["COLUMNS": "40"])
            #expect(narrow.lines.allSatisfy { $0.count <= 40 }, "\(narrow.output)")
            // The title is wrapped to the width too.
            #expect(narrow.lines.prefix(3).joined(separator: " ").contains("(the last 37 of 60 days fit)"), "\(narrow.output)")
        }

        let empty = directory.file("empty.sqlite")
        let id = try runTaskline(["add", "--db", empty, "Brief"]).output.split(separator: " ")[1]
        #expect(try runTaskline(["rm", "--db", empty, String(id)]).status == 0)
        let nothing = try run(["burndown"], empty)
        #expect(nothing.stdout.isEmpty)
        #expect(nothing.stderr == "taskline: no tasks in these days\n")
        #expect(try runTaskline(["burndown", "--db", empty, "--days", "0"]).status == 2)
        #expect(try runTaskline(["burndown", "--db", empty, "--json", "--svg", "x.svg"]).status == 2)
    }

    /// What an SVG file holds: its root's attributes, its title, and its bars.
    final class SVGContents: NSObject, XMLParserDelegate {
        var root: [String: String] = [:]
        var elements: [String] = []
        var bars = 0
        var title = ""
        private var depth = 0
        private var inTitle = false

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if elements.isEmpty { root = attributes }
            if name == "g", attributes["class"] == "bar" { bars += 1 }
            inTitle = name == "title" && depth == 1
            elements.append(name)
            depth += 1
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            inTitle = false
            depth -= 1
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inTitle { title += string }
        }

        static func parse(_ data: Data) -> (SVGContents, Bool) {
            let contents = SVGContents()
            let parser = XMLParser(data: data)
            parser.delegate = contents
            return (contents, parser.parse())
        }
    }

    @Test func burndownWritesAStandaloneSVG() throws {
        let path = try database("svg.sqlite", Self.projects)
        let file = directory.file("burndown.svg")
        let written = try run(["burndown", "--days", "12", "--svg", file], path)
        #expect(written.stdout.isEmpty)
        let (svg, wellFormed) = SVGContents.parse(try Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(wellFormed, "the SVG is well-formed XML")
        #expect(svg.elements.first == "svg")
        #expect(svg.root["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(svg.root["width"] == "792" && svg.root["height"] == "360")
        #expect(svg.root["viewBox"] == "0 0 792 360")
        #expect(svg.title.hasPrefix("Open and done tasks at the end of each day, "), "\(svg.title)")
        #expect(svg.bars == 12)
        #expect(svg.elements.filter { $0 == "text" }.count >= 2 + 3, "the axes' labels and the legend")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(!text.contains("href") && !text.contains("url("), "nothing outside the file")

        let weekly = try run(["burndown", "--weekly", "--days", "28", "--svg", "-"], path)
        let (weeks, weeklyWellFormed) = SVGContents.parse(weekly.stdout)
        #expect(weeklyWellFormed)
        #expect((4...5).contains(weeks.bars), "28 days are in 4 weeks, or 5 unless they start on a Monday")

        let refused = try runTaskline(["burndown", "--db", path, "--svg", directory.file("no/such/folder/x.svg")])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("cannot write"))
    }

    /// rsvg-convert (librsvg2-bin, which scripts/setup --test installs) renders the SVG at
    /// the size it gives.
    static let rsvgConvert = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        .map { "\($0)/rsvg-convert" }.first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: rsvgConvert != nil, "rsvg-convert is not installed (Debian: librsvg2-bin)"))
    func burndownSVGRendersWithRsvgConvert() throws {
        let path = try database("rsvg.sqlite", Self.projects)
        let svg = directory.file("render.svg")
        let png = directory.file("render.png")
        _ = try run(["burndown", "--weekly", "--svg", svg], path)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: Self.rsvgConvert!)
        process.arguments = ["--format", "png", "--output", png, svg]
        let errors = Pipe.closedOnExec()
        process.standardInput = .nullDevice
        process.standardOutput = .nullDevice
        process.standardError = .pipe(errors)
        try process.run()
        let messages = String(decoding: try errors.fileHandleForReading.readAll(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(messages)")
        // A PNG's signature, then its header chunk: width and height, big-endian.
        let image = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))
        try #require(image.count > 24)
        #expect(Array(image[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let size = { (offset: Int) in image[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        #expect(size(16) == 792 && size(20) == 360)
    }
}
