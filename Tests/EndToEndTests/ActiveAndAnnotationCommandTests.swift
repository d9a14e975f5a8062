import Foundation
import JSON
import TestSupport
import Testing

/// `taskline start`, `stop`, `annotate`, `denotate`, and what `show`, the listings and
/// urgency make of active and annotated tasks.
@Suite struct ActiveAndAnnotationCommandTests {
    let directory = TemporaryDirectory()

    func run(_ path: String, _ arguments: [String]) throws -> CommandResult {
        try runTaskline(["--db", path] + arguments, environment: ["TZ": "UTC"])
    }

    /// A new task's short id.
    func add(_ path: String, _ words: [String]) throws -> String {
        let added = try run(path, ["add"] + words)
        #expect(added.status == 0, "\(added.stderr)")
        return String(added.lines.first?.split(separator: " ")[1] ?? "")
    }

    func task(_ path: String, _ id: String) throws -> JSON {
        let listed = try run(path, ["list", "--all", "--json"])
        let tasks = try JSONParser.parse(listed.stdout).arrayValue ?? []
        return try #require(tasks.first { $0["id"]?.stringValue?.split(separator: "-").last?.hasPrefix(id) == true })
    }

    @Test func startStopAndDoneEachOneChangeForSeveralTasks() throws {
        let path = directory.file("active.sqlite")
        let bike = try add(path, ["Fix", "bike"])
        let tax = try add(path, ["Do", "taxes"])
        let started = try run(path, ["start", bike, tax])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(started.lines == ["started \(bike)  [ ]  A  Fix bike", "started \(tax)  [ ]  A  Do taxes"])
        #expect(try run(path, [bike, "start"]).output == "already started \(bike)  [ ]  A  Fix bike\n", "the id may come first")
        #expect(try task(path, bike)["startedAt"]?.stringValue != nil && task(path, bike)["version"] == 2)
        // Both starts were one change group: one undo stops both.
        #expect(try run(path, ["undo"]).status == 0)
        #expect(try task(path, bike)["startedAt"] == .null && task(path, tax)["startedAt"] == .null)
        #expect(try run(path, ["start", bike]).status == 0)

        let list = try run(path, ["list"])
        #expect(list.lines.first == "\(bike)  [ ]  A  Fix bike", "the A flag")
        #expect(list.lines.last == "\(tax)  [ ]     Do taxes")
        let shown = try run(path, ["show", bike])
        #expect(shown.lines.contains("Status     open, active"))
        #expect(shown.lines.contains { $0.hasPrefix("Started    20") })

        #expect(try run(path, ["stop", bike]).output == "stopped \(bike)  [ ]  Fix bike\n")
        #expect(try run(path, ["stop", bike]).output == "not started \(bike)  [ ]  Fix bike\n")
        #expect(try run(path, ["start", bike]).status == 0)
        #expect(try run(path, ["done", bike]).status == 0)
        #expect(try task(path, bike)["startedAt"] == .null, "done stops it")
        let refused = try run(path, ["start", bike, tax])
        #expect(refused.status == 1 && refused.lines == ["started \(tax)  [ ]  A  Do taxes"])
        #expect(refused.stderr == "taskline: error: \(bike) \"Fix bike\" is done: reopen it to start it\n")
    }

    @Test func annotateAndDenotate() throws {
        let path = directory.file("notes.sqlite")
        let call = try add(path, ["Call", "the", "garage", "pri:L"])
        let annotated = try run(path, ["annotate", call, "no", "answer"])
        #expect(annotated.status == 0 && annotated.output == "annotated \(call)  [ ]  N  L  Call the garage\n", "\(annotated.stderr)")
        #expect(try run(path, [call, "annotate", "asked", "for", "a", "quote"]).status == 0)
        #expect(try run(path, ["annotate", call, "--", "-20%", "if", "paid", "cash"]).status == 0)
        let texts = { () throws -> [String] in
            try task(path, call)["annotations"]?.arrayValue?.compactMap { $0["text"]?.stringValue } ?? []
        }
        #expect(try texts() == ["no answer", "asked for a quote", "-20% if paid cash"])
        #expect(try run(path, ["list"]).lines == ["\(call)  [ ]  N  L  Call the garage"], "N for annotations")
        let shown = try run(path, ["show", call]).lines
        let heading = try #require(shown.firstIndex(of: "Annotations"))
        #expect(shown[heading + 1].hasPrefix("  20") && shown[heading + 1].hasSuffix("  no answer"), "\(shown)")

        let ambiguous = try run(path, ["denotate", call, "A"])
        #expect(ambiguous.status == 1 && ambiguous.stderr.contains("3 annotations of \(call) \"Call the garage\" hold \"A\""))
        #expect(ambiguous.stderr.contains("  no answer\n") && ambiguous.stderr.contains("  asked for a quote\n"))
        #expect(try run(path, ["denotate", call, "QUOTE"]).status == 0, "a part of the text, case ignored")
        #expect(try texts() == ["no answer", "-20% if paid cash"])
        #expect(try run(path, ["denotate", call]).status == 0, "the newest")
        #expect(try texts() == ["no answer"])
        #expect(try run(path, ["denotate", call, "no answer"]).status == 0, "the whole text")
        let none = try run(path, ["denotate", call])
        #expect(none.status == 1 && none.stderr == "taskline: error: \(call) \"Call the garage\" has no annotations\n")
        #expect(try run(path, ["annotate", call]).status == 2, "no words")
        let control = try run(path, ["annotate", call, "two\nlines"])
        #expect(control.status == 2 && control.stderr.contains("must not contain control characters"), "\(control.stderr)")
        // Each command was one change: an undo takes back the last denotate alone.
        #expect(try run(path, ["undo"]).status == 0)
        #expect(try texts() == ["no answer"])
    }

    /// A row's Urg column.
    func urgency(_ row: String) -> String {
        String(row.split(separator: " ").first { $0.contains(".") } ?? "")
    }

    @Test func urgencyCountsBeingActiveAndAnnotations() throws {
        let path = directory.file("urgency.sqlite")
        let plain = try add(path, ["Plain"])
        let busy = try add(path, ["Busy"])
        #expect(try run(path, ["start", busy]).status == 0)
        for word in ["one", "two"] { #expect(try run(path, ["annotate", busy, word]).status == 0) }
        let next = try run(path, ["next"])
        // 4 for being active, 1 × 0.9 for two annotations; the age part rounds to 0.0.
        #expect(next.lines.map(urgency) == ["4.9", "0.0"], "\(next.output)")
        #expect(next.lines.first?.hasPrefix(busy) == true && next.lines.last?.hasPrefix(plain) == true)
        // The settings file takes their coefficients by Taskwarrior's names.
        let home = directory.file("config")
        try FileManager.default.createDirectory(atPath: home + "/taskline", withIntermediateDirectories: true)
        try Data("urgency.active.coefficient = 0\nurgency.annotations.coefficient = 10\n".utf8)
            .write(to: URL(fileURLWithPath: home + "/taskline/config"))
        let changed = try runTaskline(["next", "--db", path], environment: ["TZ": "UTC", "XDG_CONFIG_HOME": home])
        #expect(changed.lines.first.map(urgency) == "9.0", "\(changed.output)")
    }

    @Test func exportAndImportCarryThemAndCheckHoldsTheRules() throws {
        let path = directory.file("from.sqlite")
        let bike = try add(path, ["Fix", "bike"])
        #expect(try run(path, ["start", bike]).status == 0)
        #expect(try run(path, ["annotate", bike, "tyre", "ordered"]).status == 0)
        let exported = try run(path, ["export"])
        let copy = directory.file("to.sqlite")
        let imported = try runTaskline(["import", "-", "--db", copy], stdin: exported.stdout)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try run(copy, ["export"]).stdout == exported.stdout, "every field, as it was")
        #expect(try run(copy, ["check"]).status == 0)

        let bad = try runTaskline(
            ["import", "-", "--db", directory.file("bad.sqlite")],
            stdin: Data(#"{"title":"t","done":true,"startedAt":"2026-01-01T00:00:00Z","annotations":[{"text":"x"}]}"#.utf8))
        #expect(bad.status != 0 && bad.stderr.contains("line 1: startedAt must be null when done is true"), "\(bad.stderr)")
    }
}
