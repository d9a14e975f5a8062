import Foundation
import JSON
import PostgreSQL
import TestSupport
import Testing

/// The real binary's commands for people, check and backup with `--db` naming a PostgreSQL
/// database: the answers SQLite gives for the same tasks.
@Suite(Cluster.available) struct CommandsOnPostgreSQLTests {
    let directory = TemporaryDirectory()

    /// Ids whose short ids differ: two version-7 ids whose keys share 8 characters, another
    /// on its own, ids a client chose (two sharing 9 characters), one shorter than a short id,
    /// one of a version-7 id's shape with characters of two bytes, a random UUID's.
    static let records = [
        #"{"id":"01938a00-0000-7000-8000-abcdef123456","title":"Fix garage door","tags":["home"],"project":"Home.Garage","priority":3,"due":"2099-06-01","createdAt":"2026-01-01T00:00:00Z","startedAt":"2026-01-02T08:00:00Z","annotations":[{"at":"2026-01-01T10:00:00Z","text":"measured the door"},{"at":"2026-01-01T11:00:00Z","text":"ordered the spring"}]}"#,
        #"{"id":"01938a00-0000-7000-8000-abcdef129999","title":"Write report","notes":"the plan","tags":["work"],"project":"Homework","priority":1,"due":"2099-12-01","createdAt":"2026-01-02T00:00:00Z"}"#,
        #"{"id":"01938a00-0000-7000-8000-111111111111","title":"Pay rent","due":"2020-01-01","createdAt":"2026-01-03T00:00:00Z"}"#,
        #"{"id":"plain-id-1","title":"Water plants","tags":["home"],"dependsOn":["01938a00-0000-7000-8000-abcdef123456"],"createdAt":"2026-01-04T00:00:00Z"}"#,
        #"{"id":"plain-id-2","title":"Read","done":true,"completedAt":"2026-01-06T00:00:00Z","createdAt":"2026-01-05T00:00:00Z","updatedAt":"2026-01-06T00:00:00Z","version":2}"#,
        #"{"id":"ab","title":"Call mum","createdAt":"2026-01-07T00:00:00Z"}"#,
        #"{"id":"éééééééé-0000-7000-8000-zzzzzzzzzzzz","title":"Bake bread","createdAt":"2026-01-08T00:00:00Z"}"#,
        #"{"id":"01938a00-0000-4000-8000-abcdef123456","title":"Not time-ordered","createdAt":"2026-01-09T00:00:00Z"}"#,
    ]

    /// A fresh database holding `records`.
    func imported(_ location: String) throws -> String {
        let result = try runTaskline(["import", "-", "--db", location], stdin: Data(Self.records.joined(separator: "\n").utf8))
        #expect(result.status == 0, "\(result.stderr)")
        return location
    }

    func run(_ arguments: [String], _ location: String, environment: [String: String] = [:]) throws -> CommandResult {
        try runTaskline(arguments + ["--db", location], environment: ["TZ": "UTC"].merging(environment) { $1 })
    }

    /// Each command, reading and writing, prints on PostgreSQL what it prints on SQLite, short
    /// ids included, and exits alike.
    @Test func theCommandsAnswerAsOnSQLite() throws {
        let sqlite = try imported(directory.file("tasks.sqlite"))
        let postgres = try imported(try Cluster.freshSchema())
        let commands: [[String]] = [
            ["list"], ["list", "--all"], ["list", "+home"], ["list", "-home"], ["list", "project:Home", "status:all"],
            ["list", "due.before:2099-07-01"], ["list", "pri:H"], ["list", "plan"], ["list", "--sort", "-priority", "--limit", "2"],
            ["list", "--json"], ["next"], ["overdue"], ["search", "plan"], ["projects"], ["projects", "--all"], ["tags"], ["tags", "--all"],
            ["completion", "--words", "ids"], ["completion", "--words", "tags"],
            ["summary"], ["summary", "--json"], ["calendar", "2099-05", "2"], ["burndown", "--json"], ["burndown", "--weekly"],
            ["show", "abcdef123"], ["show", "plain-id-1"], ["show", "abcd"], ["show", "ab"], ["show", "zz"], ["show", "nowhere"], ["show", "zzzz"],
            ["show", "0193"],
            ["start", "plain-i", "plain-id-2"], ["stop", "abcdef123"], ["annotate", "ab", "call", "back"], ["denotate", "abcdef123", "the"],
            ["denotate", "abcdef123", "spring"], ["list"], ["next"], ["show", "abcdef123"],
            ["done", "abcdef129", "1111111"], ["done", "1111111"], ["modify", "plain-i", "pri:L", "+garden", "depends:abcdef129"],
            ["modify", "plain-i", "depends:nope"], ["rm", "ab", "ab"], ["list", "--all"], ["list", "--all", "--json"],
            ["projects", "--all"], ["tags", "--all"], ["tags"],
        ]
        for command in commands {
            let expected = try run(command, sqlite)
            let answer = try run(command, postgres)
            #expect(answer.status == expected.status, "\(command): \(answer.stderr)")
            #expect(answer.stderr == expected.stderr, "\(command)")
            if command[0] == "show" {
                // The history's times are those of each import.
                let timeless = { (result: CommandResult) in result.lines.filter { !$0.hasPrefix("History") && !$0.hasPrefix("           v") } }
                #expect(timeless(answer) == timeless(expected), "\(command)")
            } else if command.contains("--json") {
                // updatedAt and completedAt are the times of each write.
                let timeless = { (result: CommandResult) throws -> [JSON] in
                    try (JSONParser.parse(result.stdout).arrayValue ?? []).map { task in
                        guard var object = task.objectValue else { return task }
                        object["updatedAt"] = nil
                        object["completedAt"] = nil
                        return .object(object)
                    }
                }
                #expect(try timeless(answer) == timeless(expected), "\(command)")
            } else {
                #expect(answer.output == expected.output, "\(command)")
            }
        }
        #expect(try run(["list"], postgres).lines.first?.hasPrefix("abcdef123  ") == true, "keys sharing 8 characters take 9")
        // stats alike, but where the database is, and the average time to complete, which
        // counts to the millisecond of each store's done above.
        let stats = { (location: String) throws -> JSON in
            guard var object = try JSONParser.parse(try run(["stats", "--json"], location).stdout).objectValue else { return .null }
            object["database"] = nil
            object["averageSecondsToComplete"] = nil
            return .object(object)
        }
        let (onPostgres, onSQLite) = (try stats(postgres), try stats(sqlite))
        #expect(onPostgres == onSQLite, "\(JSONWriter.string(onPostgres)) \(JSONWriter.string(onSQLite))")
    }

    @Test func addListDoneEditAndRemove() throws {
        let postgres = try Cluster.freshSchema()
        let added = try run(["add", "Fix", "bike", "+home", "project:Home.Garage", "pri:H", "due:2099-12-01"], postgres)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.output.hasPrefix("added "))
        #expect(added.output.hasSuffix("  [ ]  H  2099-12-01  Home.Garage  Fix bike  +home\n"))
        let bike = String(added.output.split(separator: " ")[1])
        #expect(bike.count == 7)
        let plants = try run(["add", "Water", "plants", "recur:weekly", "due:2099-01-04"], postgres)
        #expect(plants.status == 0, "\(plants.stderr)")
        let plantsID = String(plants.output.split(separator: " ")[1])

        #expect(try run(["list", "+home"], postgres).lines.map { $0.prefix(7) } == [Substring(bike)])
        #expect(try run(["list", "project:Home"], postgres).lines.count == 1)
        let none = try run(["list", "pri:L"], postgres)
        #expect(none.status == 0 && none.lines.isEmpty && none.stderr == "taskline: no tasks match\n")

        let done = try run(["done", plantsID], postgres)
        #expect(done.status == 0, "\(done.stderr)")
        // R: it repeats.
        #expect(done.output.hasPrefix("done \(plantsID)  [x]  R  2099-01-04  Water plants\nnext "), "\(done.output)")
        #expect(done.output.hasSuffix("  [ ]  R  2099-01-11  Water plants\n"), "done names the next occurrence")
        let open = try run(["list", "--sort", "due"], postgres).lines
        #expect(open.count == 2)
        #expect(open[0].contains("  [ ]  R     2099-01-11  ") && open[0].hasSuffix("  Water plants"), "the next occurrence, a week later: \(open)")
        #expect(!open[0].hasPrefix(plantsID))

        let editor = directory.file("editor.sh")
        try "#!/bin/sh\nsed -i 's/^title: .*/title: Repair the bicycle/' \"$1\"\n".write(toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        let edited = try run(["edit", bike], postgres, environment: ["EDITOR": editor, "VISUAL": ""])
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(edited.output.hasPrefix("edited \(bike)"))
        let shown = try run(["show", bike], postgres).lines
        #expect(shown.contains("Title      Repair the bicycle"))
        #expect(shown.contains("Version    2"))
        #expect(shown.contains { $0.hasPrefix("History    v1  created  ") })
        #expect(shown.contains { $0.hasPrefix("           v2  updated  ") })

        let removed = try run(["rm", bike], postgres)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.output.hasPrefix("removed \(bike)"))
        #expect(try run(["list", "--all"], postgres).lines.count == 2)
        let gone = try run(["show", bike], postgres)
        #expect(gone.status == 1 && gone.stderr == "taskline: error: no task has the id or short id \(bike)\n")
    }

    /// The task rules over every row, and dependencies on tasks that exist: rows another
    /// program wrote are reported in SQLite's words, with SQLite's exit codes.
    @Test func checkFindsRowsThatBreakTheRules() throws {
        let postgres = try imported(try Cluster.freshSchema())
        let sound = try run(["check"], postgres)
        #expect(sound.status == 0, "\(sound.output)\(sound.stderr)")
        #expect(sound.lines.contains { $0.hasPrefix("schema        ") && $0.hasSuffix(" (current)") })
        #expect(sound.lines.contains("task rules    ok"))
        #expect(sound.lines.contains("tasks         8 (7 open, 1 done)"))
        #expect(sound.lines.contains("tags          2 distinct, on 3 task-tag pairs"))
        #expect(sound.lines.contains("change log    8 changes kept, newest seq 8"))
        #expect(sound.lines.last == "sound")

        // What SQLite's CHECK constraints and foreign keys refuse, PostgreSQL's schema lets through.
        let connection = try PostgresConnection(postgres)
        try connection.execute(
            """
            UPDATE task SET priority = 9 WHERE id = 'ab';
            UPDATE task SET title_fold = 'x' WHERE id = 'plain-id-2';
            UPDATE task SET meta = '[1]' WHERE id = 'plain-id-1';
            UPDATE task SET meta = '{"a":' WHERE id = '01938a00-0000-4000-8000-abcdef123456';
            UPDATE task SET depends_on = array['gone'] WHERE id = '01938a00-0000-7000-8000-111111111111';
            UPDATE task SET depends_on = array['plain-id-1'] WHERE id = '01938a00-0000-7000-8000-abcdef123456';
            """)
        let broken = try run(["check"], postgres)
        #expect(broken.status == 1)
        #expect(broken.lines.contains("foreign keys  1 problem"))
        #expect(broken.lines.contains("    task 01938a00-0000-7000-8000-111111111111 depends on gone, which no task has"))
        #expect(broken.lines.contains("task rules    6 problems"))
        #expect(broken.lines.contains("    task plain-id-1: meta is not a JSON object"))
        #expect(broken.lines.contains("    task 01938a00-0000-4000-8000-abcdef123456: meta is not a JSON object"))
        #expect(broken.lines.contains("    task ab: priority must be 0 (none), 1 (low), 2 (medium) or 3 (high)"))
        #expect(broken.lines.contains("    task plain-id-2: title_fold does not match the title"))
        #expect(broken.lines.contains("    task 01938a00-0000-7000-8000-abcdef123456: its dependencies lead back to it (a dependency cycle)"))
        #expect(broken.lines.contains("    task plain-id-1: its dependencies lead back to it (a dependency cycle)"))
        #expect(broken.lines.last == "NOT SOUND")

        let empty = try run(["check"], try Cluster.freshSchema())
        #expect(empty.status == 3)
        #expect(empty.stderr.contains("no Taskline tables"))
    }

    @Test func backupNamesPgDump() throws {
        let postgres = try imported(try Cluster.freshSchema())
        let destination = directory.file("copy.sqlite")
        let result = try run(["backup", destination], postgres)
        #expect(result.status == 3)
        #expect(result.stderr.contains("pg_dump"))
        #expect(!FileManager.default.fileExists(atPath: destination))
    }

    /// Undo goes to the store; one that cannot undo says so and changes nothing.
    /// The command line's changes are its own across runs: undo takes back the newest
    /// (another run's add), redo brings it back.
    @Test func undoAndRedoActOnTheCommandLinesOwnChanges() throws {
        let postgres = try Cluster.freshSchema()
        #expect(try run(["add", "Fix", "bike"], postgres).status == 0)
        #expect(try run(["add", "Buy", "milk"], postgres).status == 0)
        let undone = try run(["undo"], postgres)
        #expect(undone.status == 0, "\(undone.stderr)")
        #expect(undone.output.hasPrefix("undid 1 change"))
        #expect(try run(["list"], postgres).lines.count == 1)
        let redone = try run(["redo"], postgres)
        #expect(redone.status == 0, "\(redone.stderr)")
        #expect(try run(["list"], postgres).lines.count == 2)
    }
}
