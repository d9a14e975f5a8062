import Foundation
import JSON
import TestSupport
import Testing

/// What a new user met on the command line (issue 56): reopening, confirmations that show
/// what was set, reminders at a time of day, options before the command, and `edit`.
@Suite struct NewUserFixesTests {
    let directory = TemporaryDirectory()
    static let newYork = ["TZ": "America/New_York"]

    func tasks(_ path: String) throws -> [JSON] {
        try JSONParser.parse(try runTaskline(["list", "--db", path, "--all", "--sort", "created", "--json"]).stdout).arrayValue ?? []
    }

    func shortID(_ result: CommandResult) -> String {
        String(result.output.split(separator: " ").dropFirst().first ?? "")
    }

    @Test func modifyStatusOpenReopens() throws {
        let path = directory.file("reopen.sqlite")
        let id = shortID(try runTaskline(["add", "--db", path, "Call", "mum"]))
        #expect(try runTaskline(["done", "--db", path, id]).status == 0)
        let reopened = try runTaskline(["modify", "--db", path, id, "status:open"])
        #expect(reopened.status == 0, "\(reopened.stderr)")
        #expect(reopened.output.hasPrefix("modified \(id)  [ ]"))
        #expect(try tasks(path).first?["done"] == false)
        #expect(try runTaskline(["modify", "--db", path, id, "status:done"]).status == 0)
        #expect(try tasks(path).first?["done"] == true)
        #expect(try runTaskline(["modify", "--db", path, id, "status:maybe"]).stderr.contains("status: takes open or done, not maybe"))
    }

    @Test func theConfirmationShowsEveryFieldSet() throws {
        let path = directory.file("confirm.sqlite")
        let first = shortID(try runTaskline(["add", "--db", path, "Buy", "soil"]))
        let added = try runTaskline(
            [
                "add", "--db", path, "Water", "the", "plants", "due:2099-01-10", "recur:weekly", "remind:2099-01-09", "wait:2099-01-08",
                "depends:\(first)",
            ])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(
            added.output.hasSuffix(
                "Water the plants  recur:weekly  wait:2099-01-08 00:00  remind:2099-01-09 09:00  depends:\(first)\n"), "\(added.output)")
        let plain = try runTaskline(["add", "--db", path, "Plain"])
        #expect(plain.output.hasSuffix("Plain\n"), "nothing set, nothing more shown")
    }

    @Test func remindersAtATimeOfDay() throws {
        let path = directory.file("remind.sqlite")
        for (words, check) in [
            (["remind:8am"], { (text: String) in text.contains("T08:00:00-0") }),
            (["remind:fri", "9am"], { (text: String) in text.contains("T09:00:00-0") }),
            (["remind:tomorrow"], { (text: String) in text.contains("T09:00:00-0") }),
            (["remind:2099-03-01", "5:30pm"], { (text: String) in text == "2099-03-01T17:30:00-05:00" }),
            (["due:2099-07-01", "17:00"], { (_: String) in true }),
        ] {
            let added = try runTaskline(["add", "--db", path, "R"] + words, environment: Self.newYork)
            #expect(added.status == 0, "\(words): \(added.stderr)")
            let task = try #require(try tasks(path).last)
            #expect(task["title"] == "R", "\(words): the time of day is no title word")
            if words[0].hasPrefix("due:") {
                #expect(task["due"] == "2099-07-01T17:00:00-04:00")
            } else {
                #expect(check(task["remindAt"]?.stringValue ?? ""), "\(words): \(task)")
            }
        }
        let friday = try #require(try tasks(path)[1]["remindAt"]?.stringValue)
        let day = try #require(ISO8601DateFormatter().date(from: friday))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/New_York")!
        #expect(calendar.component(.weekday, from: day) == 6, "fri 9am is on a Friday: \(friday)")
        #expect(try runTaskline(["add", "--db", path, "R", "remind:25am"]).stderr.contains("remind: takes"))
    }

    @Test func optionsBeforeTheCommand() throws {
        let path = directory.file("before.sqlite")
        let added = try runTaskline(["--db", path, "add", "Meet", "--", "re:budget"])
        #expect(added.status == 0, "\(added.stderr)")
        let listed = try runTaskline(["--db=\(path)", "list"])
        #expect(listed.status == 0 && listed.output.contains("Meet re:budget"), "\(listed.stderr)")
        #expect(try runTaskline(["--db", path, "list", "--help"]).output.hasPrefix("Usage: taskline list"))
        #expect(try runTaskline(["--framing", "lsp", "list", "--db", path]).stderr.contains("unknown option --framing"))
    }

    func editor(_ name: String, _ script: String) throws -> String {
        let path = directory.file(name)
        try "#!/bin/sh\n\(script)\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    @Test func editHasRecurAndRemindAndKeepsNoStrayFiles() throws {
        let path = directory.file("edit.sqlite")
        let temporary = directory.file("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let id = shortID(try runTaskline(["add", "--db", path, "Rent", "due:2099-01-31", "recur:monthly", "remind:2099-01-30T08:00"]))
        let shown = try editor("cat.sh", "cp \"$1\" '\(directory.file("shown.txt"))'")
        #expect(try runTaskline(["edit", "--db", path, id], environment: ["EDITOR": shown, "VISUAL": "", "TMPDIR": temporary]).status == 0)
        let text = try String(contentsOfFile: directory.file("shown.txt"), encoding: .utf8)
        #expect(text.contains("\nrecur: monthly\n") && text.contains("\nremind: 2099-01-30T08:00"), "\(text)")

        let change = try editor("change.sh", "sed -i 's/^recur: .*/recur: lastday/; s/^remind: .*/remind: 2099-01-29 9am/' \"$1\"")
        let edited = try runTaskline(["edit", "--db", path, id], environment: ["EDITOR": change, "VISUAL": "", "TMPDIR": temporary, "TZ": "UTC"])
        #expect(edited.status == 0, "\(edited.stderr)")
        let task = try #require(try tasks(path).first)
        #expect(task["recurrence"] == ["rule": "FREQ=MONTHLY;BYMONTHDAY=-1"])
        #expect(task["remindAt"] == "2099-01-29T09:00:00+00:00")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty, "an applied edit leaves no file")

        let interrupted = try editor("interrupted.sh", "kill -INT $$")
        let stopped = try runTaskline(["edit", "--db", path, id], environment: ["EDITOR": interrupted, "VISUAL": "", "TMPDIR": temporary])
        #expect(stopped.status == 1)
        #expect(stopped.stderr.contains("was stopped by signal 2 ("), "\(stopped.stderr)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: temporary)
        #expect(kept.count == 1 && stopped.stderr.contains("the edited text is in \(temporary)/\(kept.first ?? "")"), "\(stopped.stderr)")
    }
}
