import Foundation
import JSON
import TestSupport
import Testing

/// `taskline add` and `modify` with Taskwarrior's inline attributes, and the dates people type.
@Suite struct InlineAttributeTests {
    let directory = TemporaryDirectory()

    func shortID(_ result: CommandResult) -> String {
        String(result.output.split(separator: " ").dropFirst().first ?? "")
    }

    /// Every task of the database, in the wire format.
    func tasks(_ path: String, environment: [String: String] = [:]) throws -> [JSON] {
        let listed = try runTaskline(["list", "--db", path, "--all", "--sort", "created", "--json"], environment: environment)
        return try JSONParser.parse(listed.stdout).arrayValue ?? []
    }

    @Test func addTakesAttributesAfterTheTitle() throws {
        let path = directory.file("add.sqlite")
        let parts = try runTaskline(["add", "--db", path, "Buy", "parts"])
        let bike = try runTaskline(
            [
                "add", "--db", path, "Fix", "bike", "+home", "pri:H", "project:Home.Garage",
                "due:2099-12-05", "wait:2099-12-01", "depends:\(shortID(parts))", "+bike",
            ],
            environment: ["TZ": "America/New_York"])
        #expect(bike.status == 0, "\(bike.stderr)")
        let all = try tasks(path)
        let task = try #require(all.last)
        #expect(task["title"] == "Fix bike")
        #expect(task["tags"] == ["bike", "home"])
        #expect(task["priority"] == 3)
        #expect(task["project"] == "Home.Garage")
        #expect(task["due"] == "2099-12-05")
        #expect(task["due"] == "2099-12-05", "a due day stays a date")
        #expect(task["wait"] == "2099-12-01T00:00:00-05:00", "a wait day starts at local midnight")
        #expect(task["dependsOn"] == .array([all[0]["id"]!]))
        // W: it waits until its wait: date.
        #expect(
            bike.output.hasSuffix("  [ ]  W  H  2099-12-05  Home.Garage  Fix bike  +bike +home  wait:2099-12-01 00:00  depends:\(shortID(parts))\n"))

        for (word, priority) in [("pri:m", 2), ("priority:low", 1), ("pri:none", 0), ("pri:3", 3), ("pri:High", 3)] {
            #expect(try runTaskline(["add", "--db", path, "P", word]).status == 0)
            #expect(try tasks(path).last?["priority"] == .integer(Int64(priority)), "\(word)")
        }
        // Abbreviated names, as Taskwarrior takes them.
        #expect(try runTaskline(["add", "--db", path, "Abbreviated", "proj:Work", "dep:\(shortID(parts))"]).status == 0)
        #expect(try tasks(path).last?["project"] == "Work")
    }

    /// A value the parser does not take is an error that says what it takes; nothing is added.
    @Test(arguments: [
        (["Thing", "pri:X"], "pri: takes H, M, L or none"),
        (["Thing", "due:whenever"], "due: takes today, tomorrow, yesterday, a weekday"),
        (["Thing", "wait:soonish"], "wait: takes today"),
        (["Call", "re:meeting"], "re:meeting: re is not one of project:Home.Garage, due:DATE, wait:DATE, pri:H|M|L|none"),
        (["Thing", "-home"], "-home removes a tag, which only modify does"),
        (["Thing", "project:Home..Garage"], "project: each dot-separated segment must be 1 to 64 characters"),
        (
            ["Thing", "+two words"],
            "the tag \"two words\" has white space in it: a tag is one word, so write two-words, or make each word a tag: +two +words"
        ),
        (["Thing", "--tag", " "], "the tag \" \" has white space in it: a tag is one word, so write a word"),
        (["Thing", "depends:zzzz"], "depends: no task has the id or short id zzzz"),
        (["Thing", "due:today", "recur:hourly"], "recur: takes daily, weekdays, weekly"),
        (["Thing", "due:today", "recur:FREQ=HOURLY"], "recur: FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY"),
        (["Thing", "recur:weekly"], "recur: needs a due date"),
        (["Thing", "remind:whenever"], "remind: takes today"),
        (["pri:H", "+home"], "what task? Give its title"),
        (["Thing", "--due", "whenever"], "--due takes today"),
    ])
    func refusedValuesAreErrors(words: [String], message: String) throws {
        let path = directory.file("refused.sqlite")
        let result = try runTaskline(["add", "--db", path] + words)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        if FileManager.default.fileExists(atPath: path) { #expect(try tasks(path).isEmpty) }
    }

    /// `recur:` takes Taskwarrior's names and RFC 5545 rules; done makes the next occurrence.
    @Test func recurringTasksRepeatWhenDone() throws {
        let path = directory.file("recur.sqlite")
        let rent = try runTaskline(["add", "--db", path, "Pay", "rent", "due:2026-12-01", "recur:FREQ=MONTHLY;BYMONTHDAY=1"])
        #expect(rent.status == 0, "\(rent.stderr)")
        for (word, rule) in [
            ("recur:weekly", "FREQ=WEEKLY"), ("recur:2w", "FREQ=WEEKLY;INTERVAL=2"), ("recur:weekdays", "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR"),
            ("recur:monthly", "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD"), ("recur:lastday", "FREQ=MONTHLY;BYMONTHDAY=-1"),
            ("recur:6mo", "FREQ=MONTHLY;INTERVAL=6;RSCALE=GREGORIAN;SKIP=BACKWARD"),
        ] {
            #expect(try runTaskline(["add", "--db", path, "R", "due:2026-12-01", word]).status == 0)
            #expect(try tasks(path).last?["recurrence"] == ["rule": .string(rule)], "\(word)")
        }
        #expect(try runTaskline(["done", "--db", path, shortID(rent)]).status == 0)
        let next = try #require(try tasks(path).last)
        #expect(next["title"] == "Pay rent")
        #expect(next["due"] == "2027-01-01")
        #expect(next["done"] == false)
        #expect(try runTaskline(["show", "--db", path, shortID(rent)]).output.contains("Repeats    FREQ=MONTHLY;BYMONTHDAY=1"))
        #expect(try runTaskline(["modify", "--db", path, shortID(rent), "recur:"]).status == 0)
        #expect(try tasks(path).first?["recurrence"] == .null, "an empty recur: stops the series")
    }

    /// `recur:monthly` on the 31st: the month's last day where it has no 31st, without
    /// drift; `done` shows the next occurrence.
    @Test func monthlyKeepsTheMonthsEndAndDoneShowsTheNext() throws {
        let path = directory.file("month-end.sqlite")
        let rent = try runTaskline(["add", "--db", path, "Pay", "rent", "due:2027-01-31", "recur:monthly"])
        #expect(rent.status == 0, "\(rent.stderr)")
        var current = shortID(rent)
        for expected in ["2027-02-28", "2027-03-31", "2027-04-30"] {
            let done = try runTaskline(["done", "--db", path, current])
            #expect(done.status == 0, "\(done.stderr)")
            let next = try #require(done.lines.last)
            #expect(done.lines.count == 2 && next.hasPrefix("next ") && next.contains(expected) && next.hasSuffix("Pay rent"), "\(done.output)")
            current = String(next.split(separator: " ")[1])
            #expect(try tasks(path).last?["due"] == .string(expected))
        }
        let leap = try runTaskline(["add", "--db", path, "Leap", "due:2028-01-31", "recur:monthly"])
        #expect(try runTaskline(["done", "--db", path, shortID(leap)]).lines.last?.contains("2028-02-29") == true)
    }

    @Test func remindSetsAndClearsTheReminderTime() throws {
        let path = directory.file("remind.sqlite")
        let call = try runTaskline(["add", "--db", path, "Call", "the", "garage", "remind:2099-12-04T09:00"], environment: ["TZ": "Europe/Berlin"])
        #expect(call.status == 0, "\(call.stderr)")
        #expect(try tasks(path).last?["remindAt"] == "2099-12-04T09:00:00+01:00")
        #expect(try runTaskline(["modify", "--db", path, shortID(call), "remind:"]).status == 0)
        #expect(try tasks(path).last?["remindAt"] == .null)
    }

    @Test func wordsAfterDoubleDashAndPlainColonsAreTitleWords() throws {
        let path = directory.file("literal.sqlite")
        #expect(try runTaskline(["add", "--db", path, "+call", "--", "re:meeting", "+1", "pri:X", "-5"]).status == 0)
        #expect(try runTaskline(["add", "--db", path, "Meet", "at", "10:30", "see", "https://x.org/a", "Note:"]).status == 0)
        let all = try tasks(path)
        #expect(all.map { $0["title"] } == ["re:meeting +1 pri:X -5", "Meet at 10:30 see https://x.org/a Note:"])
        #expect(all[0]["tags"] == ["call"])
        #expect(all[0]["priority"] == 0)
    }

    @Test func modifyChangesOnlyWhatItNames() throws {
        let path = directory.file("modify.sqlite")
        let added = try runTaskline([
            "add", "--db", path, "Fix", "bike", "+home", "+bike", "pri:L", "due:2099-01-01",
            "project:Home", "--notes", "front wheel",
        ])
        let id = shortID(added)
        let modified = try runTaskline([
            "modify", "--db", path, id, "Repair", "bicycle", "-bike", "+garage", "pri:H", "due:",
            "project:Home.Garage",
        ])
        #expect(modified.status == 0, "\(modified.stderr)")
        #expect(modified.output == "modified \(id)  [ ]  N  H  Home.Garage  Repair bicycle  +garage +home\n", "N: it has notes")
        let task = try #require(try tasks(path).first)
        #expect(task["title"] == "Repair bicycle")
        #expect(task["tags"] == ["garage", "home"])
        #expect(task["priority"] == 3)
        #expect(task["due"] == .null)
        #expect(task["project"] == "Home.Garage")
        #expect(task["notes"] == "front wheel")
        #expect(task["version"] == 2)

        #expect(try runTaskline(["modify", "--db", path, id, "wait:2099-02-01"], environment: ["TZ": "UTC"]).status == 0)
        let waited = try #require(try tasks(path).first)
        #expect(waited["title"] == "Repair bicycle", "no words: the title stays")
        #expect(waited["wait"] == "2099-02-01T00:00:00+00:00")

        let nothing = try runTaskline(["modify", "--db", path, id])
        #expect(nothing.status == 2)
        #expect(nothing.stderr.contains("what to change?"))
        let unknown = try runTaskline(["modify", "--db", path, "zzzz", "pri:H"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no task has the id or short id zzzz"))
        let bad = try runTaskline(["modify", "--db", path, id, "pri:urgent"])
        #expect(bad.status == 2)
        #expect(try tasks(path).first?["version"] == 3, "a refused modify changes nothing")
    }

    @Test func dependenciesThatWouldCloseACycleAreRefused() throws {
        let path = directory.file("cycle.sqlite")
        let first = shortID(try runTaskline(["add", "--db", path, "First"]))
        let second = shortID(try runTaskline(["add", "--db", path, "Second", "depends:\(first)"]))
        let cycle = try runTaskline(["modify", "--db", path, first, "depends:\(second)"])
        #expect(cycle.status == 1)
        #expect(cycle.stderr.contains("cycle"), "\(cycle.stderr)")
        #expect(try runTaskline(["modify", "--db", path, second, "depends:"]).status == 0)
        #expect(try tasks(path)[1]["dependsOn"] == [])
    }

    /// Times people type are local (TZ); a date stays the date typed, whatever the zone.
    @Test func datesAreReadAndShownInTheLocalTimeZone() throws {
        let path = directory.file("zones.sqlite")
        let newYork = ["TZ": "America/New_York"]
        #expect(try runTaskline(["add", "--db", path, "Call", "due:2099-12-05T17:00"], environment: newYork).status == 0)
        #expect(try runTaskline(["add", "--db", path, "Summer", "due:2099-07-01T17:00"], environment: newYork).status == 0)
        #expect(try runTaskline(["add", "--db", path, "Dated", "due:2099-12-05"], environment: ["TZ": "Pacific/Kiritimati"]).status == 0)
        let all = try tasks(path)
        #expect(all.map { $0["due"] } == ["2099-12-05T17:00:00-05:00", "2099-07-01T17:00:00-04:00", "2099-12-05"])

        // list's order is by due instant: Summer, Dated (midnight UTC), Call (22:00 UTC).
        let tokyo = try runTaskline(["list", "--db", path], environment: ["TZ": "Asia/Tokyo"])
        #expect(tokyo.lines.map { $0.contains("2099-12-06 07:00") } == [false, false, true], "\(tokyo.output)")
        #expect(tokyo.lines[1].contains("2099-12-05"), "a date is not moved into another zone")
        let honolulu = try runTaskline(["list", "--db", path], environment: ["TZ": "Pacific/Honolulu"])
        #expect(honolulu.lines[2].contains("2099-12-05 12:00"))
        #expect(honolulu.lines[1].contains("2099-12-05"))
    }

    /// West of Greenwich, the date tomorrow is this evening in UTC: a task waiting until
    /// tomorrow waits until the local day begins.
    @Test func waitingUntilADayLastsUntilItsLocalStart() throws {
        let path = directory.file("wait.sqlite")
        let west = ["TZ": "Etc/GMT+12"]
        #expect(try runTaskline(["add", "--db", path, "Later", "wait:tomorrow"], environment: west).status == 0)
        let wait = try #require(try tasks(path).first?["wait"]?.stringValue)
        #expect(wait.hasSuffix("T00:00:00-12:00"), "\(wait)")
        let next = try runTaskline(["next", "--db", path], environment: west)
        #expect(next.stdout.isEmpty)
        #expect(next.stderr == "taskline: nothing to do next\n")
    }

    @Test func nearDatesAreShownRelativeToToday() throws {
        let path = directory.file("relative.sqlite")
        let utc = ["TZ": "UTC"]
        for due in ["today", "tomorrow", "+3d", "-2d", "-1d"] {
            #expect(try runTaskline(["add", "--db", path, "Due \(due)", "due:\(due)"], environment: utc).status == 0)
        }
        let listed = try runTaskline(["list", "--db", path], environment: utc)
        let dues = listed.lines.map { $0.split(separator: "  ").map { $0.trimmingCharacters(in: .whitespaces) }[2] }
        // The soonest due first.
        #expect(dues == ["2 days overdue", "1 day overdue", "today", "tomorrow", "in 3 days"], "\(listed.output)")
        // A date has no time of day: it is stored as the date.
        let stored = try tasks(path, environment: utc).map { $0["due"]?.stringValue?.count }
        #expect(stored.allSatisfy { $0 == 10 })
    }
}
