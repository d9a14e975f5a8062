import Foundation
import JSON
import JSONRPC
import TestSupport
import Testing

/// The command line's settings file: contexts, which filter the listings, and the urgency
/// coefficients.
@Suite struct SettingsTests {
    let directory = TemporaryDirectory()

    var environment: [String: String] { ["XDG_CONFIG_HOME": directory.file("config"), "TZ": "UTC"] }
    var settingsFile: String { directory.file("config") + "/taskline/config" }

    func run(_ arguments: [String]) throws -> CommandResult {
        try runTaskline(arguments, environment: environment)
    }

    /// Adds a task and returns its short id.
    func add(_ path: String, _ words: [String]) throws -> String {
        let added = try run(["add", "--db", path] + words)
        #expect(added.status == 0, "\(added.stderr)")
        return String(added.output.split(separator: " ")[1])
    }

    @Test func aContextFiltersTheListingsUntilNone() throws {
        let path = directory.file("tasks.sqlite")
        let trip = try add(path, ["Pack", "+trip", "pri:H"])
        let other = try add(path, ["Other", "pri:H"])
        _ = try add(path, ["Low", "trip", "+trip", "pri:L"])

        #expect(try run(["context", "define", "porto", "+trip", "pri:H"]).status == 0)
        #expect(try run(["context", "porto"]).stderr.contains("context porto in use: +trip pri:H"))
        #expect(try run(["list", "--db", path]).lines.map { $0.prefix(7) } == [Substring(trip)])
        #expect(try run(["next", "--db", path]).lines.map { $0.prefix(7) } == [Substring(trip)])
        #expect(try run(["search", "--db", path, "Pack"]).lines.count == 1)
        #expect(try run(["search", "--db", path]).status == 2, "the context's words are not the search's")
        let listed = try run(["context", "list"])
        #expect(listed.lines == ["* porto  +trip pri:H"])

        // A mistyped name is refused with a suggestion; the one in use stays.
        let typo = try run(["context", "prto"])
        #expect(typo.status == 1 && typo.stderr.contains("did you mean porto?"), "\(typo.stderr)")
        #expect(try run(["context"]).output == "porto: +trip pri:H\n")

        #expect(try run(["context", "none"]).status == 0)
        #expect(Set(try run(["list", "--db", path]).lines.map { String($0.prefix(7)) }).isSuperset(of: [trip, other]))
        #expect(try run(["context", "delete", "porto"]).status == 0)
        #expect(try run(["context", "list"]).lines.isEmpty)
    }

    @Test func badContextsAndSettingsAreRefusedWithWhereAndWhat() throws {
        let path = directory.file("tasks.sqlite")
        _ = try add(path, ["Task"])
        let badWords = try run(["context", "define", "x", "frob:1"])
        #expect(badWords.status == 2 && badWords.stderr.contains("frob is not one of"), "\(badWords.stderr)")
        #expect(try run(["context", "define", "list", "+x"]).status == 2, "a reserved name")
        #expect(try run(["context", "define", "a b", "+x"]).status == 2)

        // The file keeps what the person wrote around what the command line sets.
        try FileManager.default.createDirectory(atPath: directory.file("config") + "/taskline", withIntermediateDirectories: true)
        try "# mine\nurgency.due.coefficient = 12\n".write(toFile: settingsFile, atomically: true, encoding: .utf8)
        #expect(try run(["context", "define", "home", "+home"]).status == 0)
        #expect(try String(contentsOfFile: settingsFile, encoding: .utf8) == "# mine\nurgency.due.coefficient = 12\ncontext.home = +home\n")
        // Set again, a setting keeps its place.
        try "# mine\ncontext.home = +home\nurgency.due.coefficient = 12\n".write(toFile: settingsFile, atomically: true, encoding: .utf8)
        #expect(try run(["context", "define", "home", "+house"]).status == 0)
        #expect(try String(contentsOfFile: settingsFile, encoding: .utf8) == "# mine\ncontext.home = +house\nurgency.due.coefficient = 12\n")

        try "urgency.due.coeficient = 3\n".write(toFile: settingsFile, atomically: true, encoding: .utf8)
        let unknown = try run(["list", "--db", path])
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr.contains("\(settingsFile):1: there is no setting urgency.due.coeficient; did you mean urgency.due.coefficient?"),
            "\(unknown.stderr)")
        try "urgency.due.coefficient = lots\n".write(toFile: settingsFile, atomically: true, encoding: .utf8)
        #expect(try run(["next", "--db", path]).stderr.contains("urgency.due.coefficient takes a number, not lots"))
        try "context = gone\n".write(toFile: settingsFile, atomically: true, encoding: .utf8)
        #expect(try run(["list", "--db", path]).stderr.contains("the context in use, gone, is not defined"))
    }

    /// The coefficients change next's order, also where they defeat its early stop (a low
    /// priority worth more than a high one).
    @Test func urgencyCoefficientsComeFromTheSettings() throws {
        let path = directory.file("tasks.sqlite")
        let records =
            (0..<1100).map { #"{"id":"h\#(1000 + $0)","title":"high","priority":3,"createdAt":"2026-01-01T00:00:00Z"}"# }
            + [
                #"{"id":"book","title":"Book flights","createdAt":"2026-01-01T00:00:00Z"}"#,
                #"{"id":"pack","title":"Pack","priority":3,"dependsOn":["book"],"createdAt":"2026-01-01T00:00:00Z"}"#,
                #"{"id":"low","title":"Low","priority":1,"createdAt":"2026-01-01T00:00:00Z"}"#,
            ]
        #expect(try runTaskline(["import", "-", "--db", path], stdin: Data(records.joined(separator: "\n").utf8)).status == 0)
        func next() throws -> [String] {
            let result = try run(["next", "--db", path, "--limit", "1", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONParser.parse(result.stdout).arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        }
        #expect(try next() == ["book"])
        try FileManager.default.createDirectory(atPath: directory.file("config") + "/taskline", withIntermediateDirectories: true)
        try "urgency.blocking.coefficient = 0\n".write(toFile: settingsFile, atomically: true, encoding: .utf8)
        #expect(try next() == ["h1000"])
        try "urgency.priority.L.coefficient = 20\n".write(toFile: settingsFile, atomically: true, encoding: .utf8)
        #expect(try next() == ["low"])
    }
}
