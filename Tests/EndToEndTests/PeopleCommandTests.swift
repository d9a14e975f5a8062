import Foundation
import JSON
import TestSupport
import Testing

/// `taskline add`, `list`, `done`, `rm`: the command line for people.
@Suite struct PeopleCommandTests {
    let directory = TemporaryDirectory()

    /// The short id at the start of a line of `list` (or after `added `).
    func shortID(_ line: String) -> String {
        String(line.split(separator: " ").first { $0 != "added" && $0 != "done" && $0 != "removed" } ?? "")
    }

    @Test func addListDoneRemove() throws {
        let path = directory.file("tasks.sqlite")
        let milk = try runTaskline(["add", "--db", path, "Buy", "oat", "milk", "--tag", "errand", "--due", "2099-12-01", "--priority", "high"])
        #expect(milk.status == 0, "\(milk.stderr)")
        #expect(milk.stderr.isEmpty)
        #expect(milk.lines.count == 1)
        #expect(milk.output.hasPrefix("added "))
        #expect(milk.output.hasSuffix("  [ ]  H  2099-12-01  Buy oat milk  +errand\n"))
        let milkID = shortID(milk.lines[0])
        #expect(milkID.count == 7)
        #expect(
            try runTaskline(["add", "--db", path, "--notes", "chapter 3", "--priority=1", "Read", "--tag", "home", "--tag", "books"]).status == 0)
        #expect(try runTaskline(["add", "--db", path, "--", "-5 push-ups"]).status == 0)

        // Aligned columns; a pipe gets no header and no colour.
        let open = try runTaskline(["list", "--db", path])
        #expect(open.status == 0)
        #expect(open.lines.count == 3)
        // The flags column: N, the notes of Read.
        #expect(open.lines[0] == "\(milkID)  [ ]     H  2099-12-01  Buy oat milk  +errand")
        #expect(open.lines[1].hasSuffix("  [ ]  N  L              Read          +books +home"))
        #expect(open.lines[2].hasSuffix("  [ ]                    -5 push-ups"))
        #expect(try runTaskline(["list", "--db", path, "--tag", "home", "--tag", "books"]).lines.count == 1)
        let none = try runTaskline(["list", "--db", path, "--tag", "nope"])
        #expect(none.lines.isEmpty)
        #expect(none.stderr == "taskline: no tasks match\n", "an empty list says so, on stderr")

        let done = try runTaskline(["done", "--db", path, milkID])
        #expect(done.status == 0)
        #expect(done.output == "done \(milkID)  [x]  H  2099-12-01  Buy oat milk  +errand\n")
        #expect(try runTaskline(["done", "--db", path, milkID]).output.hasPrefix("already done \(milkID)"))
        #expect(try runTaskline(["list", "--db", path]).lines.count == 2)
        #expect(try runTaskline(["list", "--db", path, "--done"]).lines == ["\(milkID)  [x]  H  2099-12-01  Buy oat milk  +errand"])
        #expect(try runTaskline(["list", "--db", path, "--all"]).lines.count == 3)

        let json = try JSONParser.parse(try runTaskline(["list", "--db", path, "--done", "--json"]).stdout)
        let task = try #require(json.arrayValue?.first)
        #expect(json.arrayValue?.count == 1)
        #expect(task["title"] == "Buy oat milk")
        #expect(task["done"] == true)
        #expect(task["completedAt"]?.stringValue != nil)
        #expect(task["version"] == 2)
        #expect(task["id"]?.stringValue?.split(separator: "-").last?.hasPrefix(milkID) == true, "the start of the id's random group")

        let readID = shortID(try runTaskline(["list", "--db", path]).lines[0])
        let removed = try runTaskline(["rm", "--db", path, readID])
        #expect(removed.status == 0)
        #expect(removed.output.hasPrefix("removed \(readID)  [ ]  N  L  Read  +books +home"))
        #expect(try runTaskline(["list", "--db", path, "--all"]).lines.count == 2)
        let gone = try runTaskline(["rm", "--db", path, readID])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("no task has the id or short id \(readID)"))
    }

    @Test func shortIDsAreTheShortestUniqueStartsAndAmbiguityIsRefused() throws {
        let path = directory.file("ids.sqlite")
        // Time-ordered ids are shortened from their last group, other ids from their start.
        let ids = [
            "0193a4b2-1c3d-7000-8000-5f3e9a1caaaa", "0193a4b2-1c3e-7000-8000-5f3e9a1cbbbb", "5f3e9a1d-cccc", "77",
            "e0c1f2a3-0000-4000-8000-000000000000",
        ]
        let records = ids.enumerated().map { #"{"id":"\#($1)","title":"task \#($0)","createdAt":"2026-01-0\#($0 + 1)T00:00:00Z"}"# }
        #expect(try runTaskline(["import", "-", "--db", path], stdin: Data(records.joined(separator: "\n").utf8)).status == 0)
        #expect(try runTaskline(["list", "--db", path]).lines.map(shortID) == ["5f3e9a1ca", "5f3e9a1cb", "5f3e9a1d", "77", "e0c1f2a"])

        let ambiguous = try runTaskline(["done", "--db", path, "5f3e9a1"])
        #expect(ambiguous.status == 1)
        #expect(ambiguous.stdout.isEmpty)
        #expect(ambiguous.stderr.contains("5f3e9a1 is ambiguous: it starts the short ids of \(ids[0]), \(ids[1]), \(ids[2])"))
        let tooShort = try runTaskline(["rm", "--db", path, "e0c"])
        #expect(tooShort.status == 1)
        #expect(tooShort.stderr.contains("too short"))
        let time = try runTaskline(["rm", "--db", path, "0193a4b2"])
        #expect(time.status == 1, "a time-ordered id's start is the time it was made, not its short id")
        #expect(try runTaskline(["list", "--db", path]).lines.count == 5, "nothing changed")

        // A whole id wins even when it starts others; a unique start of 4 or more is enough.
        #expect(try runTaskline(["done", "--db", path, "77", "5f3e9a1cb", "e0c1"]).status == 0)
        #expect(try runTaskline(["list", "--db", path, "--done"]).lines.map(shortID) == ["5f3e9a1cb", "77", "e0c1f2a"])

        // Some ids resolve, one does not: the others are still done, and the exit code says so.
        let mixed = try runTaskline(["done", "--db", path, "5f3e9a1d", "zzzz"])
        #expect(mixed.status == 1)
        #expect(mixed.output.hasPrefix("done 5f3e9a1d  [x]"))
        #expect(mixed.stderr.contains("no task has the id or short id zzzz"))
    }

    /// The short id `add` prints still finds its task after more are added in a hurry: the
    /// ids are made within milliseconds of each other.
    @Test func theShortIDAddPrintsStaysUniqueAsMoreAreAdded() throws {
        let path = directory.file("hurry.sqlite")
        var printed: [String] = []
        for number in 0..<10 {
            let added = try runTaskline(["add", "--db", path, "task \(number)"])
            #expect(added.status == 0, "\(added.stderr)")
            printed.append(shortID(added.lines[0]))
        }
        #expect(printed.allSatisfy { $0.count == 7 }, "\(printed)")
        #expect(try runTaskline(["list", "--db", path]).lines.map(shortID) == printed)
        let done = try runTaskline(["done", "--db", path] + printed)
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.lines.count == 10)
    }

    @Test func addIsSeenLiveByARunningServersClient() throws {
        let path = directory.file("live.sqlite")
        let server = try ServerProcess(["--db", path])
        try server.initialize()

        let added = try runTaskline(["add", "--db", path, "Buy", "oat", "milk", "--tag", "errand"])
        #expect(added.status == 0)
        let created = try #require(try server.didChanges(count: 1).first)
        #expect(created["kind"] == "created")
        #expect(created["task"]?["title"] == "Buy oat milk")
        #expect(created["task"]?["tags"] == ["errand"])
        let id = try #require(created["id"]?.stringValue)
        #expect(id.split(separator: "-").last?.hasPrefix(shortID(added.lines[0])) == true)

        #expect(try runTaskline(["done", "--db", path, id]).status == 0)
        let updated = try #require(try server.didChanges(count: 1).first)
        #expect(updated["kind"] == "updated")
        #expect(updated["task"]?["done"] == true)

        #expect(try runTaskline(["rm", "--db", path, String(id.suffix(12).prefix(5))]).status == 0)
        let deleted = try #require(try server.didChanges(count: 1).first)
        #expect(deleted["kind"] == "deleted")
        #expect(deleted["id"] == .string(id))

        // And the server's own client sees the store as the commands left it.
        #expect(try server.call(1, "tasks/fetch", #"{"includeTotal":true}"#)["result"]?["total"] == 0)
    }

    /// Taskwarrior's habits: ids before the command, a command's first letters, its
    /// aliases, and a suggestion for a typo.
    @Test func commandsByPrefixAliasIDFirstAndSuggestion() throws {
        let path = directory.file("tasks.sqlite")
        let added = try runTaskline(["ad", "--db", path, "Water", "the", "plants"])
        #expect(added.status == 0, "\(added.stderr)")
        let id = shortID(added.lines[0])
        #expect(try runTaskline(["--db", path, id, "info"]).output.contains("Water the plants"))
        let modified = try runTaskline(["--db", path, id, "mod", "pri:H"])
        #expect(modified.status == 0, "\(modified.stderr)")
        #expect(try runTaskline(["li", "--db", path]).lines == ["\(id)  [ ]  H  Water the plants"])
        let done = try runTaskline([id, "done", "--db", path])
        #expect(done.output.hasPrefix("done \(id)"))
        #expect(try runTaskline(["delete", "--db", path, id]).status == 0)
        #expect(try runTaskline(["list", "--db", path, "--all"]).lines.isEmpty)

        let typo = try runTaskline(["lsit", "--db", path])
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("unknown command or argument lsit; did you mean list?"), "\(typo.stderr)")
        let far = try runTaskline(["frobnicate"])
        #expect(far.status == 2 && !far.stderr.contains("did you mean"))
        // An id before a command that takes none is no command line.
        let redo = try runTaskline(["re", "--db", path])
        #expect(redo.status == 1 && redo.stderr.contains("nothing to redo"), "re is redo's start only: \(redo.stderr)")
        #expect(try runTaskline([id, "list", "--db", path]).status == 2)
        let misspelt = try runTaskline(["add", "--db", path, "Call", "deu:fri"])
        #expect(misspelt.status == 2 && misspelt.stderr.contains("did you mean due:fri?"), "\(misspelt.stderr)")
    }

    /// `done A B` is one change, which one undo reverts; completing a blocked task is done
    /// but warned of; messages name tasks by short id and title, not by their full ids.
    @Test func doneOfSeveralIsOneUndoAndBlockersAreNamed() throws {
        let path = directory.file("tasks.sqlite")
        let book = shortID(try runTaskline(["add", "--db", path, "Book", "flights"]).lines[0])
        let pack = shortID(try runTaskline(["add", "--db", path, "Pack", "for", "Porto", "depends:\(book)"]).lines[0])
        let third = shortID(try runTaskline(["add", "--db", path, "Third"]).lines[0])

        let done = try runTaskline(["done", "--db", path, pack, third, "nope"])
        #expect(done.status == 1, "one id matched nothing")
        #expect(done.lines.count == 2 && done.lines.allSatisfy { $0.hasPrefix("done ") })
        #expect(done.stderr.contains("warning: \(pack) \"Pack for Porto\" waits for \(book) \"Book flights\", still open"), "\(done.stderr)")
        #expect(done.stderr.contains("no task has the id or short id nope"))
        let undo = try runTaskline(["undo", "--db", path])
        #expect(undo.lines.first == "undid 2 changes", "\(undo.output)")
        #expect(try runTaskline(["list", "--db", path]).lines.count == 3)

        let cycle = try runTaskline(["modify", "--db", path, book, "depends:\(pack)"])
        #expect(cycle.status == 1)
        #expect(cycle.stderr.contains("\(book) \"Book flights\" → \(pack) \"Pack for Porto\" → \(book) \"Book flights\""), "\(cycle.stderr)")

        #expect(try runTaskline(["rm", "--db", path, pack, third]).lines.count == 2)
        #expect(try runTaskline(["undo", "--db", path]).lines.first == "undid 2 changes")
    }

    /// Taskwarrior's shortcuts: append and prepend change the title's ends, log records a
    /// done task, duplicate copies a task changed by the words.
    @Test func appendPrependLogAndDuplicate() throws {
        let path = directory.file("tasks.sqlite")
        let id = shortID(try runTaskline(["add", "--db", path, "Call", "the", "bank", "+money", "pri:H", "due:2099-01-05"]).lines[0])
        let appended = try runTaskline(["append", "--db", path, id, "about", "the", "loan", "+urgent"])
        #expect(appended.status == 0, "\(appended.stderr)")
        #expect(appended.output.hasPrefix("appended \(id)"))
        let prepended = try runTaskline([id, "prepend", "--db", path, "Today:"])
        #expect(prepended.status == 0, "\(prepended.stderr)")
        let show = try JSONParser.parse(try runTaskline(["all", "--db", path, "--json"]).stdout)
        #expect(show.arrayValue?.first?["title"] == "Today: Call the bank about the loan")
        #expect(show.arrayValue?.first?["tags"] == ["money", "urgent"])
        #expect(try runTaskline(["append", "--db", path, id]).status == 2, "words are needed")

        let logged = try runTaskline(["log", "--db", path, "Paid", "rent", "+home"])
        #expect(logged.status == 0 && logged.output.hasPrefix("logged ") && logged.output.contains("[x]  Paid rent"), "\(logged.output)")
        #expect(try runTaskline(["log", "--db", path, "Paid", "status:open"]).status == 2)

        #expect(try runTaskline(["annotate", "--db", path, id, "left", "a", "message"]).status == 0)
        #expect(try runTaskline(["start", "--db", path, id]).status == 0)
        let copied = try runTaskline(["duplicate", "--db", path, id, "due:2099-02-05", "-urgent"])
        #expect(copied.status == 0, "\(copied.stderr)")
        let tasks = try JSONParser.parse(try runTaskline(["all", "--db", path, "--json", "--sort", "created"]).stdout).arrayValue ?? []
        let copy = try #require(tasks.last)
        #expect(copy["title"] == "Today: Call the bank about the loan")
        #expect(copy["tags"] == ["money"] && copy["priority"] == 3 && copy["due"] == "2099-02-05" && copy["done"] == false)
        #expect(copy["id"] != tasks.first?["id"])
        #expect(copy["annotations"]?.arrayValue?.map { $0["text"] } == ["left a message"] && copy["startedAt"] == .null)
    }
}
