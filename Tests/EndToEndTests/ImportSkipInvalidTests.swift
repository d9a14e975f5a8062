import Foundation
import JSON
import TestSupport
import Testing

/// `taskline import --skip-invalid`: the good records go in, each bad one is reported by line.
@Suite struct ImportSkipInvalidTests {
    let directory = TemporaryDirectory()

    /// Line 1 depends on line 5, which is bad: it is skipped too, found on a second pass.
    let records = [
        #"{"id":"needs-x","title":"depends on a bad record","dependsOn":["x"]}"#,
        #"{"title":" "}"#,
        #"not json"#,
        #"{"title":"two","tags":["two words"]}"#,
        #"{"id":"x","title":"y","dependsOn":["nope"]}"#,
        #"{"id":"good","title":"fine"}"#,
        #"{"title":"also fine","dependsOn":["good"]}"#,
    ]

    func check(_ result: CommandResult, source: String, path: String) throws {
        #expect(result.status == 0, "\(result.stderr)")
        for expected in [
            "\(source): skipped line 1: dependsOn[0] no task has the id x (import that task too, or take its id out of dependsOn)",
            "\(source): skipped line 2: title must contain a character that is not white space (every task needs a title)",
            "\(source): skipped line 3: not valid JSON",
            "\(source): skipped line 4: tags[0] a tag must not contain white space or control characters (a tag is one word: join the words with -, as in two-words, or make each word a tag)",
            "\(source): skipped line 5: dependsOn[0] no task has the id nope",
            "imported 2 new tasks, skipped 5 bad records",
        ] {
            #expect(result.stderr.contains(expected), "missing \(expected) in \(result.stderr)")
        }
        #expect(!result.stderr.contains("line 6") && !result.stderr.contains("line 7"))
        let exported = try runTaskline(["export", "--db", path])
        let titles = try exported.lines.map { try JSONParser.parse(Data($0.utf8))["title"]?.stringValue }
        #expect(Set(titles) == ["fine", "also fine"])
    }

    @Test func skipsBadRecordsOfAFile() throws {
        let file = directory.file("mixed.jsonl")
        try records.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let path = directory.file("file.sqlite")
        try check(try runTaskline(["import", file, "--db", path, "--skip-invalid"]), source: file, path: path)
    }

    @Test func skipsBadRecordsOfAPipe() throws {
        let path = directory.file("pipe.sqlite")
        let result = try runTaskline(["import", "-", "--db", path, "--skip-invalid"], stdin: Data(records.joined(separator: "\n").utf8))
        try check(result, source: "stdin", path: path)
    }

    @Test func withoutItNothingIsImportedAndTheMessageSaysSo() throws {
        let path = directory.file("strict.sqlite")
        let result = try runTaskline(["import", "-", "--db", path], stdin: Data(records.joined(separator: "\n").utf8))
        #expect(result.status == 1)
        #expect(result.stderr.contains("nothing was imported: 4 bad records (fix them, or import the others with --skip-invalid)"))
        #expect(try runTaskline(["export", "--db", path]).stdout.isEmpty)
    }
}
