import Foundation
import JSON
import SQLite
import TestSupport
import Testing

/// Taskline files on media no one can write: a folder made read-only, read by a user who
/// cannot write it. Tests run as root, whom file modes do not stop: the commands then run
/// as `nobody` (setpriv), for whom they do; as anyone else, as the test's own user.
@Suite struct ReadOnlyMediaTests {
    let directory = TemporaryDirectory()

    static let runsAsRoot = getuid() == 0
    static let setpriv = "/usr/bin/setpriv"
    static let sqlite3 = "/usr/bin/sqlite3"
    static let possible = !runsAsRoot || FileManager.default.isExecutableFile(atPath: setpriv)

    /// `program arguments…` as a user the folder's modes hold for, on its own stdin.
    func unprivileged(_ arguments: [String], program: String = ServerProcess.binaryPath) throws -> ServerProcess {
        guard Self.runsAsRoot else { return try ServerProcess(arguments, executable: program) }
        return try ServerProcess(["--reuid=65534", "--regid=65534", "--clear-groups", program] + arguments, executable: Self.setpriv)
    }

    /// Runs a command to its end: its exit status, stdout and stderr.
    func run(_ arguments: [String], program: String = ServerProcess.binaryPath) throws -> (status: Int32?, output: String, stderr: String) {
        let process = try unprivileged(arguments, program: program)
        process.closeInput()
        let output = String(decoding: try process.readChunkedToEnd(timeout: 60), as: UTF8.self)
        return (process.waitForExit(timeout: 60), output, process.stderr)
    }

    /// A folder holding `files` (copied in under their own names) that nobody can write.
    func readOnlyFolder(with files: [String]) throws -> String {
        let folder = directory.file("media")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for file in files {
            let copy = folder + "/" + (file as NSString).lastPathComponent
            try FileManager.default.copyItem(atPath: file, toPath: copy)
            chmod(copy, 0o644)
        }
        chmod(directory.path, 0o755)
        chmod(folder, 0o555)
        return folder
    }

    /// A file holding tasks a, b and c, closed by its last connection: no -wal, no -shm.
    func closedFile() throws -> String {
        let path = directory.file("tasks.sqlite")
        let records = ["a", "b", "c"].map { #"{"id":"\#($0)","title":"task \#($0)"}"# }.joined(separator: "\n")
        #expect(try runTaskline(["import", "-", "--db", path], stdin: Data(records.utf8)).status == 0)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal") && !FileManager.default.fileExists(atPath: path + "-shm"))
        return path
    }

    /// check, export and list read it; a server serves it, refusing writes with 1004.
    func expectReadable(_ path: String, titles: [String], seq: Int64) throws {
        let check = try run(["check", "--db", path])
        #expect(check.status == 0, "check: \(check.output) \(check.stderr)")
        #expect(check.output.hasSuffix("sound\n"))
        #expect(check.output.contains("newest seq \(seq)\n"), "\(check.output)")

        let export = try run(["export", "--db", path])
        #expect(export.status == 0, "export: \(export.stderr)")
        let exported = try export.output.split(separator: "\n").map { try JSONParser.parse(Array($0.utf8))["title"]?.stringValue }
        #expect(exported == titles)

        let list = try run(["list", "--db", path])
        #expect(list.status == 0, "list: \(list.stderr)")
        #expect(list.output.contains(titles[0]))

        let server = try unprivileged(["--db", path])
        try server.initialize()
        let page = try server.call(1, "tasks/fetch", #"{"includeTotal":true}"#)
        #expect(page["result"]?["tasks"]?.arrayValue?.map { $0["title"]?.stringValue } == titles, "\(page)")
        let refused = try server.call(2, "tasks/create", #"{"title":"refused"}"#)
        #expect(refused["error"]?["code"] == 1004)
        #expect(refused["error"]?["data"]?["code"] == 8, "SQLITE_READONLY: \(refused)")
        #expect(try server.call(3, "shutdown")["result"] != nil)
        server.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(server.waitForExit() == 0, "\(server.stderr)")
    }

    @Test(.enabled(if: possible, "needs setpriv to drop root"))
    func aClosedFileWithNoShmIsRead() throws {
        let folder = try readOnlyFolder(with: [try closedFile()])
        defer { chmod(folder, 0o755) }
        let path = folder + "/tasks.sqlite"
        let before = fileBytes(path)
        try expectReadable(path, titles: ["task a", "task b", "task c"], seq: 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["tasks.sqlite"])
        #expect(fileBytes(path) == before)
    }

    /// A -shm left behind without its -wal (a copy of a folder a server had open).
    @Test(.enabled(if: possible, "needs setpriv to drop root"))
    func aClosedFileWithAStaleShmIsRead() throws {
        let path = try closedFile()
        try Data(count: 32_768).write(to: URL(fileURLWithPath: path + "-shm"))
        let folder = try readOnlyFolder(with: [path, path + "-shm"])
        defer { chmod(folder, 0o755) }
        try expectReadable(folder + "/tasks.sqlite", titles: ["task a", "task b", "task c"], seq: 3)
    }

    /// A -wal that holds commits the file does not: they are read, never ignored.
    @Test(.enabled(if: possible, "needs setpriv to drop root"))
    func commitsInAWALWithNoShmAreRead() throws {
        let path = try closedFile()
        let writer = try Database(path: path)
        try writer.execute("PRAGMA wal_autocheckpoint = 0")
        try writer.execute("UPDATE task SET title = 'only in the wal', title_fold = 'only in the wal' WHERE id = 'b'")
        // Copied while the writer is open: its commit is in the -wal alone.
        let folder = try readOnlyFolder(with: [path, path + "-wal"])
        defer { chmod(folder, 0o755) }
        writer.close()
        let copy = folder + "/tasks.sqlite"
        #expect((try FileManager.default.attributesOfItem(atPath: copy + "-wal")[.size] as? Int ?? 0) > 0)
        try expectReadable(copy, titles: ["task a", "only in the wal", "task c"], seq: 4)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == ["tasks.sqlite", "tasks.sqlite-wal"])

        // As a template, the same.
        let writable = directory.file("writable")
        try FileManager.default.createDirectory(atPath: writable, withIntermediateDirectories: false)
        chmod(writable, 0o777)
        let server = try unprivileged(["--db", writable + "/new.sqlite", "--template", copy])
        try server.initialize()
        let page = try server.call(1, "tasks/fetch", "{}")
        #expect(page["result"]?["tasks"]?.arrayValue?.map { $0["title"]?.stringValue } == ["task a", "only in the wal", "task c"], "\(page)")
    }

    /// A rollback-mode file copied with a hot journal, its transaction half written into
    /// it: only rolling back makes it whole, which read-only media forbid, so it is refused,
    /// never read as it is.
    @Test(.enabled(if: possible, "needs setpriv to drop root"))
    func aHotJournalIsNeverIgnored() throws {
        let path = directory.file("rollback.sqlite")
        #expect(try runTaskline(["backup", path, "--db", try closedFile()]).status == 0)
        let writer = try Database(path: path)
        try writer.execute("PRAGMA cache_size = 1")
        try writer.execute("BEGIN IMMEDIATE; UPDATE task SET notes = hex(randomblob(3000)), notes_fold = 'half written'")
        let folder = try readOnlyFolder(with: [path, path + "-journal"])
        defer { chmod(folder, 0o755) }
        try writer.execute("ROLLBACK")
        let copy = folder + "/rollback.sqlite"
        #expect(fileBytes(copy) != fileBytes(path), "pages of the transaction reached the copy")
        for command in ["check", "export", "list"] {
            let refused = try run([command, "--db", copy])
            #expect(refused.status == 3, "\(command): \(refused.output)")
            #expect(refused.stderr.contains("cannot open"), "\(refused.stderr)")
        }
    }

    /// A backup is one self-contained file: any SQLite reader opens it on read-only media,
    /// and a server that opens it for writing puts it back in WAL mode.
    @Test(.enabled(if: possible && FileManager.default.isExecutableFile(atPath: sqlite3), "needs setpriv and the sqlite3 shell"))
    func aBackupOpensOnReadOnlyMedia() throws {
        let backup = directory.file("backup.sqlite")
        #expect(try runTaskline(["backup", backup, "--db", try closedFile()]).status == 0)
        #expect(try #require(fileBytes(backup))[18...19] == Data([1, 1]), "rollback journal mode in the header")
        #expect(!FileManager.default.fileExists(atPath: backup + "-wal"))

        let folder = try readOnlyFolder(with: [backup])
        defer { chmod(folder, 0o755) }
        let shell = try run(["-readonly", folder + "/backup.sqlite", "SELECT count(*) FROM task"], program: Self.sqlite3)
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.output == "3\n")
        try expectReadable(folder + "/backup.sqlite", titles: ["task a", "task b", "task c"], seq: 3)

        #expect(try runTaskline(["add", "--db", backup, "task d"]).status == 0)
        #expect(try #require(fileBytes(backup))[18...19] == Data([2, 2]), "WAL mode again")
    }
}
