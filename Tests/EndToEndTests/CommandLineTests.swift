import Foundation
import TestSupport
import Testing

@Suite struct CommandLineTests {
    let directory = TemporaryDirectory()

    @Test func helpAndVersionPrintAndExitZero() throws {
        let help = try ServerProcess(["--help"])
        let helpText = String(decoding: try help.readChunkedToEnd(), as: UTF8.self)
        #expect(help.waitForExit() == 0)
        #expect(helpText.contains("--db PATH"))
        #expect(helpText.contains("--durability"))

        let version = try ServerProcess(["--version"])
        let versionText = String(decoding: try version.readChunkedToEnd(), as: UTF8.self)
        #expect(version.waitForExit() == 0)
        #expect(versionText.hasPrefix("taskline 0.1.0"))
    }

    @Test(arguments: [
        ["--bogus"], ["--db"], ["--durability", "sometimes"], ["--framing", "xml"],
        ["--max-message-bytes", "0"], ["--log-level", "loud"], ["--busy-timeout", "-1"],
        ["--idle-spin", "-1"], ["--idle-spin", "10001"],
    ])
    func usageErrorsExitTwo(arguments: [String]) throws {
        let server = try ServerProcess(arguments)
        #expect(server.waitForExit() == 2)
        #expect(try server.readToEnd().isEmpty)
        #expect(server.stderr.contains("taskline: error:"))
    }

    /// Each bad file: exit code 3, a message on stderr, nothing on stdout, and the file unchanged.
    func expectRefused(_ path: String, mentioning words: String) throws {
        let before = fileBytes(path)
        let server = try ServerProcess(["--db", path])
        server.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#)
        #expect(server.waitForExit() == 3)
        #expect(try server.readToEnd().isEmpty)
        #expect(server.stderr.contains(words), "stderr: \(server.stderr)")
        #expect(fileBytes(path) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    /// Every command's help fits an 88-column terminal, as the man page made from it does.
    @Test func everyCommandsHelpFits88Columns() throws {
        // The list's rows: two spaces, the name, two spaces or more, its summary.
        let commands = try runTaskline(["--help"]).lines.compactMap { line -> String? in
            guard let match = line.wholeMatch(of: /\ \ ([a-z]+)\ \ +\S.*/) else { return nil }
            return String(match.1)
        }
        #expect(commands.count > 30, "\(commands)")
        for command in [""] + commands {
            let help = try runTaskline(command.isEmpty ? ["--help"] : [command, "--help"])
            #expect(help.status == 0, "\(command)")
            for line in help.lines where line.count > 88 {
                Issue.record("taskline \(command) --help: \(line.count) characters: \(line)")
            }
        }
    }

    @Test func refusesFilesThatAreNotTasklineDatabases() throws {
        let text = directory.file("notes.txt")
        _ = FileManager.default.createFile(atPath: text, contents: Data(String(repeating: "shopping list\n", count: 500).utf8))
        try expectRefused(text, mentioning: "not a usable SQLite database")

        let foreign = directory.file("foreign.sqlite")
        try runSQLite(foreign, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');")
        try expectRefused(foreign, mentioning: "belongs to another application")

        let future = directory.file("future.sqlite")
        let server = try ServerProcess(["--db", future])
        server.closeInput()
        _ = server.waitForExit()
        try runSQLite(future, "PRAGMA user_version = 42;")
        try expectRefused(future, mentioning: "newer than this taskline supports")

        let corrupt = directory.file("corrupt.sqlite")
        var bytes = try #require(fileBytes(future))
        for index in stride(from: 16, to: min(bytes.count, 200), by: 1) { bytes[index] = 0xA5 }
        _ = FileManager.default.createFile(atPath: corrupt, contents: bytes)
        try expectRefused(corrupt, mentioning: "not a usable SQLite database")
    }

    @Test func createsAPrivateDatabaseInMissingFolders() throws {
        let path = directory.file("deep/er/tasks.sqlite")
        let server = try ServerProcess(["--db", path])
        server.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#)
        _ = try server.next()
        _ = try server.call(2, "tasks/create", #"{"title":"x"}"#)
        #expect(fileMode(path) == 0o600)
        #expect(fileMode(path + "-wal") == 0o600)
        #expect(fileMode(path + "-shm") == 0o600)
        server.closeInput()
        #expect(server.waitForExit() == 1)
    }

    @Test func defaultDatabaseFollowsXDGDataHome() throws {
        let server = try ServerProcess([], environment: ["XDG_DATA_HOME": directory.path])
        server.closeInput()
        #expect(server.waitForExit() == 1)
        #expect(FileManager.default.fileExists(atPath: directory.file("taskline/tasks.sqlite")))
    }

    @Test func templateIsCopiedOnFirstRunOnly() throws {
        let template = directory.file("template.sqlite")
        let maker = try ServerProcess(["--db", template])
        maker.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#)
        _ = try maker.next()
        _ = try maker.call(2, "tasks/create", #"{"id":"welcome","title":"Welcome"}"#)
        maker.closeInput()
        _ = maker.waitForExit()

        let path = directory.file("user.sqlite")
        for round in 0..<2 {
            let server = try ServerProcess(["--db", path, "--template", template])
            server.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#)
            _ = try server.next()
            let got = try server.call(2, "tasks/get", #"{"id":"welcome"}"#)
            if round == 0 {
                #expect(got["result"]?["title"] == "Welcome")
                _ = try server.call(3, "tasks/delete", #"{"id":"welcome"}"#)
            } else {
                #expect(got["error"]?["code"] == 1001, "the template must not be copied over an existing database")
            }
            server.closeInput()
            _ = server.waitForExit()
        }
    }

    func runSQLite(_ path: String, _ sql: String) throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
