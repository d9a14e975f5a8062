import Foundation
import JSON
import TestSupport
import Testing

/// `tasks/parse` against the real binary: the command line's grammar, served.
@Suite struct ParseTests {
    let directory = TemporaryDirectory()
    static let fields = ["title", "tags", "priority", "project", "due", "wait", "remindAt", "recurrence", "done"]

    /// The same words make the same task through `taskline add` and through `tasks/parse` then
    /// `tasks/create`, the client's zone winning over the server's.
    @Test func theSameWordsMakeTheSameTaskAsAdd() throws {
        let words = ["Call", "the", "bank", "+money", "due:fri", "pri:H", "wait:tomorrow", "remind:mon", "project:Money", "recur:weekly"]
        let cliPath = directory.file("cli.sqlite")
        let added = try runTaskline(["add", "--db", cliPath] + words, environment: ["TZ": "America/New_York"])
        #expect(added.status == 0, "\(added.stderr)")
        let listed = try runTaskline(["all", "--db", cliPath, "--json"])
        let byCLI = try #require(try JSONParser.parse(listed.stdout).arrayValue?.first)

        let server = try ServerProcess(["--db", directory.file("server.sqlite")], environment: ["TZ": "Asia/Tokyo"])
        try server.initialize(#"{"initializationOptions":{"timeZone":"America/New_York","notifications":false}}"#)
        let text = JSONWriter.string(.string(words.joined(separator: " ")))
        let parsed = try server.call(1, "tasks/parse", #"{"text":\#(text)}"#)
        let params = try #require(parsed["result"]?["task"], "\(parsed)")
        let created = try #require(try server.call(2, "tasks/create", JSONWriter.string(params))["result"])
        for field in Self.fields {
            #expect(created[field] == byCLI[field], "\(field)")
        }
        #expect(created["wait"]?.stringValue?.hasSuffix("-05:00") == true, "read in New York, not in Tokyo")
    }

    /// With `id`: the changes `taskline modify` would make, and the task is left alone.
    @Test func changesAreWhatModifyMakes() throws {
        let path = directory.file("modify.sqlite")
        #expect(try runTaskline(["add", "--db", path, "Old", "+a", "+b", "due:2099-01-01"]).status == 0)
        let id = try #require(try JSONParser.parse(try runTaskline(["list", "--db", path, "--json"]).stdout).arrayValue?.first?["id"]?.stringValue)
        let server = try ServerProcess(["--db", path])
        try server.initialize(#"{"initializationOptions":{"notifications":false}}"#)
        let parsed = try server.call(1, "tasks/parse", #"{"text":"New -a +c due: status:done","id":"\#(id)"}"#)
        #expect(parsed["result"] == ["changes": ["title": "New", "tags": ["b", "c"], "due": .null, "done": true]])
        #expect(try server.call(2, "tasks/get", #"{"id":"\#(id)"}"#)["result"]?["version"] == 1, "parse writes nothing")
    }

    /// Without `timeZone`, dates are read in the server's zone.
    @Test func theServersZoneByDefault() throws {
        let server = try ServerProcess(["--db", directory.file("zone.sqlite")], environment: ["TZ": "Asia/Kolkata"])
        try server.initialize()
        let parsed = try server.call(1, "tasks/parse", #"{"text":"x wait:2027-01-10"}"#)
        #expect(parsed["result"]?["task"]?["wait"] == "2027-01-10T00:00:00+05:30")
    }
}
