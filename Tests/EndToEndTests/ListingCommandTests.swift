import Foundation
import JSON
import TestSupport
import Testing

/// `list` with filter words and `--sort`, `search`, `next`, `overdue`, `projects`, `tags`, `show`.
@Suite struct ListingCommandTests {
    let directory = TemporaryDirectory()

    /// Adds a task and returns its short id.
    func add(_ path: String, _ words: [String]) throws -> String {
        let added = try runTaskline(["add", "--db", path] + words, environment: ["TZ": "UTC"])
        #expect(added.status == 0, "\(added.stderr)")
        return String(added.output.split(separator: " ")[1])
    }

    /// The short ids `taskline ARGUMENTS…` lists, in order.
    func listed(_ path: String, _ arguments: [String]) throws -> [String] {
        let result = try runTaskline(arguments + ["--db", path], environment: ["TZ": "UTC"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.lines.map { String($0.prefix { $0 != " " }) }
    }

    @Test func listTakesFilterWordsAndSort() throws {
        let path = directory.file("filters.sqlite")
        let door = try add(path, ["Fix", "garage", "door", "+home", "project:Home.Garage", "pri:H", "due:2098-06-01"])
        let report = try add(path, ["Write", "report", "+work", "project:Homework", "pri:L", "due:2099-01-01"])
        let plants = try add(path, ["Water", "plants", "+home", "pri:M", "--notes", "the fern too"])
        let milk = try add(path, ["Buy", "milk", "+home"])
        #expect(try runTaskline(["done", "--db", path, milk]).status == 0)

        #expect(try listed(path, ["list"]) == [door, report, plants])
        #expect(try listed(path, ["list", "+home"]) == [door, plants])
        #expect(try listed(path, ["list", "-home"]) == [report])
        #expect(try listed(path, ["list", "project:Home"]) == [door], "Home takes Home.Garage, not Homework")
        #expect(try listed(path, ["list", "status:done"]) == [milk])
        #expect(try listed(path, ["list", "status:all", "+home"]) == [door, plants, milk])
        #expect(try listed(path, ["list", "pri:M"]) == [plants])
        #expect(try listed(path, ["list", "due.before:2098-12-31"]) == [door])
        #expect(try listed(path, ["list", "due.after:2098-12-31"]) == [report])
        #expect(try listed(path, ["list", "garage", "DOOR"]) == [door])
        #expect(try listed(path, ["list", "fern"]) == [plants], "free words match the notes too")
        #expect(try listed(path, ["list", "garage", "report"]).isEmpty, "every word must match")
        #expect(try listed(path, ["list", "--sort", "-priority"]) == [door, plants, report])
        #expect(try listed(path, ["list", "--sort", "title"]) == [door, plants, report])
        #expect(try listed(path, ["list", "--sort", "due"]) == [door, report, plants])
        #expect(try listed(path, ["list", "--sort", "-created"]) == [plants, report, door])
        #expect(try listed(path, ["list", "--sort", "project,-due", "--limit", "2"]) == [door, report])
        #expect(try runTaskline(["list", "--db", path, "--sort", "due,-due"]).stderr.contains("--sort names due twice"))

        let badSort = try runTaskline(["list", "--db", path, "--sort", "size"])
        #expect(badSort.status == 2)
        #expect(badSort.stderr.contains("--sort takes due, priority, created, updated, title, project, urgency, not size"))
        let badWord = try runTaskline(["list", "--db", path, "colour:red"])
        #expect(badWord.status == 2)
        #expect(badWord.stderr.contains("colour:red: colour is not one of project:NAME, status:open|done|all"))
        let badStatus = try runTaskline(["list", "--db", path, "status:finished"])
        #expect(badStatus.stderr.contains("status: takes open, done or all, not finished"))
    }

    /// list leaves out what waits; waiting, completed and all list what list does not.
    @Test func waitingCompletedAndAllListWhatListLeavesOut() throws {
        let path = directory.file("views.sqlite")
        let open = try add(path, ["Open"])
        let waiting = try add(path, ["Later", "wait:+3d"])
        let done = try add(path, ["Finished"])
        let finishedFirst = try add(path, ["Finished", "first"])
        #expect(try runTaskline(["done", "--db", path, finishedFirst]).status == 0)
        #expect(try runTaskline(["done", "--db", path, done]).status == 0)
        #expect(try listed(path, ["list"]) == [open])
        #expect(try listed(path, ["waiting"]) == [waiting])
        #expect(try listed(path, ["completed"]) == [done, finishedFirst])
        #expect(try Set(listed(path, ["all"])) == [open, waiting, done, finishedFirst])
        #expect(try Set(listed(path, ["list", "--all"])) == [open, waiting, done, finishedFirst])
        #expect(try listed(path, ["list", "waiting:yes"]) == [waiting])
    }

    /// The flags column: B blocked, W waiting, R repeating, N notes; none, no column.
    @Test func listFlagsWhatARowHasNoColumnFor() throws {
        let path = directory.file("flags.sqlite")
        let first = try add(path, ["First"])
        _ = try add(path, ["Blocked", "depends:\(first)"])
        _ = try add(path, ["Repeats", "due:2099-01-01", "recur:weekly", "--notes", "n"])
        _ = try add(path, ["Later", "wait:2099-01-01"])
        let rows = try runTaskline(["all", "--db", path], environment: ["TZ": "UTC"]).lines
        #expect(rows.count == 4, "\(rows)")
        #expect(rows[1].contains("[ ]  B  ") && rows[2].contains("[ ]  RN ") && rows[3].contains("[ ]  W  "), "\(rows)")
        #expect(!rows[0].contains(" B ") && rows[0].contains("[ ]      "), "\(rows)")
        #expect(try runTaskline(["list", "--db", path, "--format", "tsv"]).lines.allSatisfy { !$0.contains("\tB\t") })
    }

    @Test func searchFindsOpenAndDoneTasks() throws {
        let path = directory.file("search.sqlite")
        let milk = try add(path, ["Buy", "oat", "milk"])
        let cheese = try add(path, ["Buy", "cheese", "--notes", "and MILK for the cat"])
        #expect(try runTaskline(["done", "--db", path, milk]).status == 0)
        #expect(try listed(path, ["search", "milk"]) == [milk, cheese])
        #expect(try listed(path, ["search", "milk", "status:open"]) == [cheese])
        let none = try runTaskline(["search", "--db", path, "bread"])
        #expect(none.status == 0)
        #expect(none.stdout.isEmpty)
        #expect(none.stderr == "taskline: no task holds bread\n")
        #expect(try runTaskline(["search", "--db", path]).status == 2)
    }

    @Test func nextIsTheMostUrgentActionableTasks() throws {
        let path = directory.file("next.sqlite")
        let plain = try add(path, ["Plain"])
        let overdue = try add(path, ["Overdue", "pri:H", "due:-3d"])
        let low = try add(path, ["Low", "pri:L"])
        _ = try add(path, ["Blocked", "pri:H", "due:-9d", "depends:\(plain)"])
        _ = try add(path, ["Waiting", "pri:H", "wait:+5d"])
        let waited = try add(path, ["Waited", "wait:-1d", "+x", "project:P"])
        // Urgency: 6 + 12 × 0.85; blocking Blocked 8; tag and project 1 + 1; low priority 1.8.
        #expect(try listed(path, ["next"]) == [overdue, plain, waited, low])
        #expect(try listed(path, ["next", "--limit", "2"]) == [overdue, plain])
        // The Urg column, one decimal; the blocked task is lowered by 5 where it is listed.
        let shown = try runTaskline(["next", "--db", path, "--limit", "2"], environment: ["TZ": "UTC"])
        #expect(shown.lines.map { $0.split(separator: " ", omittingEmptySubsequences: true)[3] } == ["16.2", "8.0"])
        let blocked = try runTaskline(["list", "--db", path, "--sort", "urgency", "Blocked"], environment: ["TZ": "UTC"])
        #expect(blocked.lines.first?.contains("  13.0  H  ") == true, "6 + 12 - 5: \(blocked.output)")
        #expect(try listed(path, ["next", "+x"]) == [waited])
        let json = try JSONParser.parse(try runTaskline(["next", "--db", path, "--json"]).stdout)
        #expect(json.arrayValue?.first?["title"] == "Overdue")
    }

    /// With a limit, next holds only the most urgent so far while it reads: across many
    /// pages, it still finds the most urgent of all.
    @Test func nextFindsTheMostUrgentAcrossPages() throws {
        let path = directory.file("many.sqlite")
        let urgent = [100: 1, 1200: 3, 2400: 2]
        let records = (0..<2500).map { index in
            #"{"id":"t\#(index)","title":"task \#(index)","priority":\#(urgent[index] ?? 0),"createdAt":"2026-01-01T00:00:00Z"}"#
        }
        #expect(try runTaskline(["import", "-", "--db", path], stdin: Data(records.joined(separator: "\n").utf8)).status == 0)
        let next = try JSONParser.parse(try runTaskline(["next", "--db", path, "--limit", "3", "--json"]).stdout)
        #expect(next.arrayValue?.map { $0["id"] } == ["t1200", "t2400", "t100"])
    }

    /// A task that blocks another is raised by 8, wherever the order by priority and due
    /// date puts it: past a page of tasks of high priority (6), next still finds it.
    @Test func nextRaisesWhatBlocksOthersAcrossPages() throws {
        let path = directory.file("blocking.sqlite")
        let records =
            (0..<1200).map { #"{"id":"h\#(1000 + $0)","title":"high","priority":3,"createdAt":"2026-01-01T00:00:00Z"}"# }
            + [
                #"{"id":"book","title":"Book flights","createdAt":"2026-01-01T00:00:00Z"}"#,
                #"{"id":"pack","title":"Pack for Porto","priority":3,"dependsOn":["book"],"createdAt":"2026-01-01T00:00:00Z"}"#,
                #"{"id":"done","title":"Done already","done":true,"createdAt":"2026-01-01T00:00:00Z"}"#,
                #"{"id":"waits","title":"Waits for the done one","dependsOn":["done"],"createdAt":"2026-01-01T00:00:00Z"}"#,
            ]
        let imported = try runTaskline(["import", "-", "--db", path], stdin: Data(records.joined(separator: "\n").utf8))
        #expect(imported.status == 0, "\(imported.stderr)")
        let next = try JSONParser.parse(try runTaskline(["next", "--db", path, "--limit", "2", "--json"]).stdout)
        #expect(next.arrayValue?.map { $0["id"] } == ["book", "h1000"])
        // A dependency that is done blocks nothing: "done" is not listed, "waits" is not raised.
        let open = try JSONParser.parse(try runTaskline(["list", "--db", path, "--sort", "urgency", "--limit", "1", "--json", "Waits"]).stdout)
        #expect(open.arrayValue?.map { $0["id"] } == ["waits"])
    }

    /// next reads by priority, then due date, and stops once no task it has not read can be
    /// more urgent than those it holds. Past a page of tasks of high priority it still finds
    /// a task of lower priority that is older and further overdue, and one of the same
    /// priority due later that has tags and a project.
    @Test func nextStopsReadingOnlyWhenNoTaskLeftCanBeMoreUrgent() throws {
        func imported(_ name: String, _ records: [String]) throws -> String {
            let path = directory.file(name)
            let result = try runTaskline(["import", "-", "--db", path], stdin: Data(records.joined(separator: "\n").utf8))
            #expect(result.status == 0, "\(result.stderr)")
            return path
        }
        func next(_ path: String, limit: Int) throws -> [JSON?] {
            let result = try runTaskline(["next", "--db", path, "--limit", "\(limit)", "--json"], environment: ["TZ": "UTC"])
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONParser.parse(result.stdout).arrayValue?.map { $0["id"] } ?? []
        }
        /// The same order from a listing that reads every task.
        func everyTask(_ path: String) throws -> [JSON?] {
            let result = try runTaskline(
                ["list", "--db", path, "--sort", "urgency", "blocked:no", "waiting:no", "--json"], environment: ["TZ": "UTC"])
            return try JSONParser.parse(result.stdout).arrayValue?.map { $0["id"] } ?? []
        }

        // High, long overdue, nothing else: 6 + 12. Then a page of high, undated: 6. Then
        // medium, long overdue, tags and a project, created years ago: 3.9 + 12 + 2 + 2.
        let lower = try imported(
            "lower.sqlite",
            [#"{"id":"a","title":"high overdue","priority":3,"due":"2020-01-01"}"#]
                + (0..<999).map { #"{"id":"b\#(1000 + $0)","title":"high","priority":3}"# }
                + [#"{"id":"c","title":"medium, old","priority":2,"due":"2020-01-01","tags":["x"],"project":"P","createdAt":"2020-01-01T00:00:00Z"}"#]
        )
        #expect(try next(lower, limit: 1) == ["c"])
        #expect(try next(lower, limit: 2) == ["c", "a"])
        #expect(try next(lower, limit: 3) == Array(try everyTask(lower).prefix(3)))

        // All created at once. A page of high, due in 2099: 6 + 2.4. Then high, due later,
        // as urgent, which comes first by id; and high, due later still, with a tag and a
        // project: 6 + 2.4 + 2.
        let created = #","createdAt":"2026-01-01T00:00:00Z"}"#
        let later = try imported(
            "later.sqlite",
            (0..<1000).map { #"{"id":"d\#(1000 + $0)","title":"high","priority":3,"due":"2099-01-01""# + created }
                + [
                    #"{"id":"a","title":"high, as urgent","priority":3,"due":"2099-03-01""# + created,
                    #"{"id":"e","title":"high, tagged","priority":3,"due":"2099-06-01","tags":["x"],"project":"P""# + created,
                ])
        #expect(try next(later, limit: 2) == ["e", "a"])
        #expect(try next(later, limit: 3) == Array(try everyTask(later).prefix(3)))
    }

    /// Urgency sorts with the other keys in the order given: after another key it breaks
    /// that key's ties; before one, that key breaks its ties (before the age does).
    @Test func urgencySortsWithTheOtherKeysInTheirOrder() throws {
        let path = directory.file("urgency-keys.sqlite")
        // Urgency: a 1.8 + 2.4; b 6 + 2.4; c 6 + 1; d and e 6 + 2.4 + 2 (a year old or more).
        let records = [
            #"{"id":"a","title":"a","priority":1,"due":"2099-01-01"}"#,
            #"{"id":"b","title":"b","priority":3,"due":"2099-06-01"}"#,
            #"{"id":"c","title":"c","priority":3,"tags":["x"]}"#,
            #"{"id":"d","title":"d","priority":3,"due":"2099-06-01","createdAt":"2020-01-01T00:00:00Z"}"#,
            #"{"id":"e","title":"e","priority":3,"due":"2099-01-01","createdAt":"2021-01-01T00:00:00Z"}"#,
        ]
        #expect(try runTaskline(["import", "-", "--db", path], stdin: Data(records.joined(separator: "\n").utf8)).status == 0)
        func sorted(_ keys: String, _ words: [String] = []) throws -> [JSON?] {
            let result = try runTaskline(["list", "--db", path, "--sort", keys, "--json"] + words, environment: ["TZ": "UTC"])
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONParser.parse(result.stdout).arrayValue?.map { $0["id"] } ?? []
        }
        #expect(try sorted("due,urgency") == ["e", "a", "d", "b", "c"], "undated last")
        #expect(try sorted("-due,urgency") == ["d", "b", "e", "a", "c"], "undated last either way")
        #expect(try sorted("urgency,due") == ["e", "d", "b", "c", "a"], "the due date before the age")
        #expect(try sorted("urgency,-due") == ["d", "e", "b", "c", "a"])
        #expect(try sorted("urgency") == ["d", "e", "b", "c", "a"], "the oldest first")
        #expect(try sorted("-urgency") == ["a", "c", "b", "d", "e"])
        #expect(try sorted("urgency,due", ["--limit", "2"]) == ["e", "d"])
        #expect(try sorted("priority,urgency", ["--limit", "2"]) == ["a", "d"])
    }

    @Test func overdueIsJudgedInLocalTime() throws {
        let path = directory.file("overdue.sqlite")
        let long = try add(path, ["Long", "due:-10d"])
        _ = try add(path, ["Today", "due:today"])
        _ = try add(path, ["Later", "due:+2d"])
        let hourAgo = try add(path, ["An hour ago", "due:-1h"])
        let yesterday = try add(path, ["Yesterday", "due:yesterday"])
        let done = try add(path, ["Done", "due:-4d"])
        #expect(try runTaskline(["done", "--db", path, done]).status == 0)
        #expect(try listed(path, ["overdue"]) == [long, yesterday, hourAgo])

        let empty = directory.file("none.sqlite")
        _ = try add(empty, ["Later", "due:+2d"])
        let nothing = try runTaskline(["overdue", "--db", empty])
        #expect(nothing.stdout.isEmpty)
        #expect(nothing.stderr == "taskline: nothing is overdue\n")
    }

    @Test func projectsAndTagsAreCounted() throws {
        let path = directory.file("counts.sqlite")
        _ = try add(path, ["A", "project:Home.Garage", "+home", "+car"])
        _ = try add(path, ["B", "project:Home", "+home"])
        _ = try add(path, ["C", "project:Work"])
        let done = try add(path, ["D", "project:Home.Kitchen", "+home"])
        let removed = try add(path, ["E", "project:Garden", "+garden"])
        #expect(try runTaskline(["done", "--db", path, done]).status == 0)
        #expect(try runTaskline(["rm", "--db", path, removed]).status == 0)
        #expect(try runTaskline(["projects", "--db", path]).lines == ["Home         2", "Home.Garage  1", "Work         1"])
        #expect(
            try runTaskline(["projects", "--db", path, "--all"]).lines
                == ["Home          3", "Home.Garage   1", "Home.Kitchen  1", "Work          1"], "no count of a removed task's project")
        #expect(try runTaskline(["tags", "--db", path]).lines == ["car   1", "home  2"])
        #expect(try runTaskline(["tags", "--db", path, "--all"]).lines == ["car   1", "home  3"])

        let bare = directory.file("bare.sqlite")
        _ = try add(bare, ["Nothing"])
        #expect(try runTaskline(["tags", "--db", bare]).stderr == "taskline: no task has a tag\n")
        #expect(try runTaskline(["projects", "--db", bare]).stderr == "taskline: no task has a project\n")
    }

    @Test func showPrintsEveryField() throws {
        let path = directory.file("show.sqlite")
        let parts = try add(path, ["Buy", "parts"])
        let bike = try add(
            path,
            [
                "Fix", "bike", "+home", "project:Home.Garage", "pri:H", "due:2099-12-05T17:00",
                "wait:2099-12-01", "depends:\(parts)", "--notes", "front wheel\nand the brakes",
            ])
        let shown = try runTaskline(["show", "--db", path, bike], environment: ["TZ": "Europe/Berlin"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let text = shown.output
        for expected in [
            "Title      Fix bike\n", "Status     open\n", "Project    Home.Garage\n", "Tags       +home\n",
            "Priority   H (high)\n", "Due        2099-12-05 18:00\n", "Wait       2099-12-01 01:00\n",
            "Depends on \(parts) [ ] Buy parts\n", "Version    1\n", "Created    ", "Notes\n  front wheel\n  and the brakes\n",
        ] {
            #expect(text.contains(expected), "\(expected) in \(text)")
        }
        #expect(text.hasPrefix("ID         "))
        #expect(!text.contains("Completed"))

        let blocking = try runTaskline(["show", "--db", path, parts])
        #expect(blocking.output.contains("Blocks     \(bike) [ ] Fix bike\n"))
        #expect(try runTaskline(["done", "--db", path, parts]).status == 0)
        let done = try runTaskline(["show", "--db", path, parts])
        #expect(done.output.contains("Status     done\n"))
        #expect(done.output.contains("Completed  "))
        #expect(done.output.contains("Version    2\n"))
        let history = done.output.split(separator: "\n").filter { $0.contains("  created  ") || $0.contains("  updated  ") }
        #expect(
            history.count == 2 && history[0].hasPrefix("History    v1  created  ") && history[1].hasPrefix("           v2  updated  "),
            "\(done.output)")
        #expect(try runTaskline(["show", "--db", path, bike]).output.contains("Depends on \(parts) [x] Buy parts\n"))

        let missing = try runTaskline(["show", "--db", path, "zzzz"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no task has the id or short id zzzz"))
    }

    /// On a fresh machine the first command may well be one that reads: it says there are no
    /// tasks and how to add one, exits 0, and makes no file and no folder.
    @Test(arguments: [["list"], ["next"], ["overdue"], ["search", "milk"], ["projects"], ["tags"]])
    func aReadBeforeAnyTaskSaysThereAreNoneAndMakesNothing(_ arguments: [String]) throws {
        let home = TemporaryDirectory()
        let fresh = try runTaskline(arguments, environment: ["HOME": home.path, "XDG_DATA_HOME": ""])
        #expect(fresh.status == 0, "\(arguments): \(fresh.stderr)")
        #expect(fresh.stdout.isEmpty)
        let defaultPath = home.path + "/.local/share/taskline/tasks.sqlite"
        #expect(fresh.stderr == "taskline: no tasks yet (there is no database at \(defaultPath)); taskline add TITLE adds one\n")

        let named = home.file("not/yet/tasks.sqlite")
        let elsewhere = try runTaskline(arguments + ["--db", named])
        #expect(elsewhere.status == 0, "\(arguments): \(elsewhere.stderr)")
        #expect(elsewhere.stdout.isEmpty)
        #expect(elsewhere.stderr.hasSuffix("; taskline add --db \(named) TITLE adds one\n"), "\(elsewhere.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty, "nothing was made")
    }

    @Test func aJSONListingBeforeAnyTaskIsAnEmptyArray() throws {
        let named = directory.file("not-yet/tasks.sqlite")
        for command in ["list", "next", "overdue"] {
            let listed = try runTaskline([command, "--json", "--db", named])
            #expect(listed.status == 0, "\(command): \(listed.stderr)")
            #expect(listed.output == "[]\n", "\(command)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("not-yet")))
    }
}
