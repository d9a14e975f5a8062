import Foundation
import JSON
import SQLite
import TestSupport
import Testing

/// Faults of the machine rather than of the input: a full disk, a read-only database, a
/// database damaged underneath, a parent that dies. Each gets its documented outcome (error
/// 1004 with SQLite's code, or a clear exit with a message on stderr), nothing already stored
/// is lost or altered, and the server keeps serving where it can.
///
/// The locked database (ProtocolTests.storageFailureIsReportedAndTheServerKeepsServing), files
/// that are not Taskline's (CommandLineTests), a closed stdout, stdin closed mid-message and a
/// client that does not read (RobustnessTests) are tested beside the features they concern.
@Suite(.serialized) struct FaultTests {
    let directory = TemporaryDirectory()

    // MARK: - Disk full

    @Test(.enabled(if: MountNamespace.available, "needs mount namespaces (unshare, root)"))
    func diskFullIs1004AndNothingIsLost() throws {
        let folder = directory.file("small-disk")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // A 4 MiB file system of its own, mounted only in the server's mount namespace.
        let server = try MountNamespace.server(
            setup: #"mount -t tmpfs -o size=4m tmpfs "$1""#, folder: folder,
            arguments: ["--db", folder + "/tasks.sqlite", "--log-level", "error"])
        let client = Client(server)
        _ = try client.request("initialize", #"{"initializationOptions":{"notifications":false}}"#)
        let notes = String(repeating: "n", count: 1000)
        for index in 0..<20 {
            _ = try client.request("tasks/create", #"{"id":"kept-\#(index)","title":"kept","notes":"\#(notes)"}"#)
        }

        // Fill what is left, through the server's own view of its file system.
        let view = "/proc/\(server.pid)/root\(folder)"
        try fill(view + "/filler")

        var refusal: JSON?
        var acknowledged: [String] = []
        for index in 0..<200 where refusal == nil {
            let answer = try client.response(client.send("tasks/create", #"{"id":"more-\#(index)","title":"more","notes":"\#(notes)"}"#))
            if let error = answer["error"] { refusal = error } else { acknowledged.append("more-\(index)") }
        }
        let error = try #require(refusal, "the disk never filled up")
        #expect(error["code"] == 1004)
        #expect(error["data"]?["code"] == 13, "SQLITE_FULL: \(error)")  // SQLITE_FULL
        #expect(error["data"]?["kind"] == "full" && error["data"]?["retryable"] == false, "\(error)")
        #expect(error["data"]?["message"]?.stringValue?.isEmpty == false)

        // Reads still work, and everything acknowledged is there.
        let stored = try fetchIDs(client)
        #expect(stored == Set((0..<20).map { "kept-\($0)" } + acknowledged))
        #expect(try client.request("tasks/get", #"{"id":"kept-7"}"#)["notes"] == .string(notes))

        // Room again: writing works again, without a restart.
        unlink(view + "/filler")
        #expect(try client.request("tasks/create", #"{"id":"after","title":"after"}"#)["version"] == 1)
        try expectIntact(folder + "/tasks.sqlite", inMountNamespaceOf: server.pid)
        server.closeInput()
        #expect(server.waitForExit() == 1)
    }

    // MARK: - Read-only database

    /// Reads are served from a database on a read-only file system; writes are 1004 with
    /// SQLITE_READONLY. (Tests run as root, for whom file modes are no obstacle: a read-only
    /// bind mount is an obstacle even to root.)
    @Test(.enabled(if: MountNamespace.available, "needs mount namespaces (unshare, root)"))
    func readOnlyFolderServesReadsAndRefusesWrites() throws {
        let folder = directory.file("read-only")
        let path = folder + "/tasks.sqlite"
        try populate(path, count: 5)
        let before = fileBytes(path)

        let server = try MountNamespace.server(
            setup: #"mount --bind "$1" "$1" && mount -o remount,bind,ro "$1""#, folder: folder,
            arguments: ["--db", path])
        let client = Client(server)
        let initialized = try client.response(client.send("initialize", "{}"))
        if initialized["error"] != nil || initialized["result"] == nil {
            Issue.record("initialize on a read-only folder: \(initialized)")
            return
        }
        #expect(try client.request("tasks/get", #"{"id":"task-3"}"#)["title"] == "task 3")
        #expect(try fetchIDs(client).count == 5)
        let refused = try client.requestError("tasks/create", #"{"title":"refused"}"#)
        #expect(refused["code"] == 1004)
        #expect(refused["data"]?["code"] == 8, "SQLITE_READONLY: \(refused)")
        #expect(refused["data"]?["kind"] == "readOnly", "\(refused)")
        #expect(try client.request("tasks/get", #"{"id":"task-1"}"#)["title"] == "task 1", "still serving")
        server.closeInput()
        #expect(server.waitForExit() == 1)
        #expect(server.stderr.contains("read-only"), "stderr: \(server.stderr)")
        #expect(fileBytes(path) == before)
    }

    /// The same for a file that is immutable (`chattr +i`) in a writable folder.
    @Test func immutableFileServesReadsAndRefusesWrites() throws {
        let path = directory.file("immutable.sqlite")
        try populate(path, count: 5)
        guard chattr("+i", path) else {
            print("skipped: chattr +i is not possible here")
            return
        }
        defer { _ = chattr("-i", path) }
        let before = fileBytes(path)
        let client = Client(try ServerProcess(["--db", path]))
        _ = try client.request("initialize")
        #expect(try fetchIDs(client).count == 5)
        let refused = try client.requestError("tasks/update", #"{"id":"task-2","changes":{"done":true}}"#)
        #expect(refused["code"] == 1004)
        #expect(refused["data"]?["code"] == 8, "SQLITE_READONLY: \(refused)")
        #expect(refused["data"]?["kind"] == "readOnly", "\(refused)")
        #expect(try client.request("tasks/get", #"{"id":"task-2"}"#)["done"] == false)
        client.server.closeInput()
        #expect(client.server.waitForExit() == 1)
        #expect(fileBytes(path) == before)
    }

    // MARK: - Damaged files

    /// Damage where only requests look (pages of the task table itself): found when a request
    /// reaches it, and answered 1004 with SQLITE_CORRUPT; other requests are served. (Damage in
    /// what start-up reads is refused at once, exit 3, as for any corrupt file.)
    @Test func corruptPagesAre1004AndTheServerKeepsServing() throws {
        let path = directory.file("damaged.sqlite")
        try populate(path, count: 300, notes: String(repeating: "n", count: 500))
        var bytes = try #require(fileBytes(path))
        let pageSize = try self.pageSize(path)
        try #require(bytes.count > 40 * pageSize, "a clean exit leaves the data in the database file")
        // The task table's leaf pages, from SQLite's own page map; a few in the middle are damaged.
        let leaves = try sqliteOutput(path, "SELECT pageno FROM dbstat WHERE name = 'task' AND pagetype = 'leaf' ORDER BY pageno")
            .split(separator: "\n").compactMap { Int($0) }
        try #require(leaves.count > 10, "\(leaves)")
        for page in leaves[(leaves.count / 2)..<(leaves.count / 2 + 3)] {
            for index in ((page - 1) * pageSize + 8)..<(page * pageSize) { bytes[index] = 0xA5 }
        }
        try bytes.write(to: URL(fileURLWithPath: path))

        let client = Client(try ServerProcess(["--db", path, "--log-level", "error"]))
        let initializeID = client.send("initialize", "{}")
        // Damage in what start-up reads (the schema, the change log's indexes) is refused at
        // once, as the contract says for a corrupt file: exit 3 and a message, file untouched.
        if let code = client.server.waitForExit(timeout: 0.5) {
            print("corrupt pages: refused at start")
            #expect(code == 3)
            #expect(client.server.stderr.contains("not a usable SQLite database"), "\(client.server.stderr)")
            #expect(fileBytes(path) == bytes)
            return
        }
        let initialized = try client.response(initializeID)
        guard initialized["result"] != nil else {
            #expect(initialized["error"]?["code"] == 1004, "\(initialized)")
            return
        }
        var codes: Set<JSON> = []
        for request in [#"{"limit":1000}"#, #"{"sort":[{"field":"title"}],"limit":1000}"#, #"{"filter":{"text":"n"},"limit":1000}"#] {
            let answer = try client.response(client.send("tasks/fetch", request))
            codes.insert(answer["error"]?["code"] ?? "ok")
            if let error = answer["error"] {
                #expect(error["data"]?["code"] == 11 && error["data"]?["kind"] == "corrupt", "SQLITE_CORRUPT: \(error)")
            }
        }
        for id in [1, 150, 299] {
            let answer = try client.response(client.send("tasks/get", #"{"id":"task-\#(id)"}"#))
            codes.insert(answer["error"]?["code"] ?? "ok")
        }
        print("corrupt pages: served, answers \(codes)")
        #expect(codes.contains(1004), "the damage was never noticed")
        #expect(Set(codes).isSubset(of: ["ok", 1004]))
        #expect(try client.request("tasks/changes", #"{"since":0,"limit":1}"#)["changes"] != nil, "still serving")
        client.server.closeInput()
        #expect(client.server.waitForExit() == 1)
    }

    /// A file cut short, to its first 100 bytes or to half its pages: either refused at start
    /// (exit 3, a message, the file untouched) or, when what is left passes the open-time
    /// checks, served with 1004 and SQLITE_CORRUPT for what is missing.
    @Test(arguments: [0.0, 0.5])
    func truncatedFile(keepingFraction fraction: Double) throws {
        let path = directory.file("truncated-\(fraction).sqlite")
        try populate(path, count: 200, notes: String(repeating: "n", count: 500))
        let whole = try #require(fileBytes(path))
        let pageSize = try self.pageSize(path)
        try Data(whole.prefix(max(100, Int(Double(whole.count) * fraction) / pageSize * pageSize))).write(to: URL(fileURLWithPath: path))
        let before = fileBytes(path)
        let server = try ServerProcess(["--db", path, "--log-level", "error"])
        server.sendLine(#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#)
        guard let initialized = try? server.next() else {
            print("truncated to \(Int(fraction * 100))%: refused at start")
            #expect(server.waitForExit() == 3)
            #expect(server.stderr.contains("not a usable SQLite database"), "stderr: \(server.stderr)")
            #expect(fileBytes(path) == before)
            return
        }
        #expect(initialized["result"] != nil)
        print("truncated to \(Int(fraction * 100))%: served, the missing pages reported")
        let fetched = try server.call(1, "tasks/fetch", #"{"limit":1000}"#)
        #expect(fetched["error"]?["code"] == 1004 && fetched["error"]?["data"]?["code"] == 11, "\(fetched)")
        #expect(try server.call(2, "tasks/get", #"{"id":"task-1"}"#)["id"] == 2, "still serving")
        server.closeInput()
        #expect(server.waitForExit() == 1)
    }

    // MARK: - The parent dies

    /// An editor killed with SIGKILL cannot say goodbye; its end of the pipe closes, which the
    /// server reads as the end of input: it finishes and exits, its data intact.
    @Test(arguments: StoreKind.allCases)
    func parentKilledWithoutProcessIDClosesTheServer(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let fifo = directory.file("to-server")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The parent shell starts the server reading from the fifo, holds the fifo's write end
        // itself, writes two requests and then becomes `sleep` (same process, same fd).
        let script = #"""
            "$1" --db "$2" < "$3" &
            exec 4> "$3"
            printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize"}' '{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"id":"orphan","title":"written before the parent died"}}' >&4
            echo $! > "$3.pid"
            exec sleep 600
            """#
        let parent = ChildProcess()
        parent.executableURL = URL(fileURLWithPath: "/bin/sh")
        parent.arguments = ["-c", script, "sh", ServerProcess.binaryPath, database.argument, fifo]
        let output = Pipe.closedOnExec()
        parent.standardOutput = .pipe(output)
        try parent.run()
        var serverPID: Int32 = 0
        let deadline = Date().addingTimeInterval(10)
        while serverPID == 0 && Date() < deadline {
            serverPID =
                Int32((try? String(contentsOfFile: fifo + ".pid", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
            usleep(10_000)
        }
        #expect(serverPID > 0)
        // Wait for both answers (and the notification), so the write is acknowledged.
        var received = Data()
        while received.split(separator: UInt8(ascii: "\n")).count < 3 && Date() < deadline {
            received += try output.fileHandleForReading.readChunk(until: deadline) ?? Data()
        }
        #expect(String(decoding: received, as: UTF8.self).contains(#""id":"orphan""#))

        kill(parent.processIdentifier, SIGKILL)
        parent.waitUntilExit()
        // The end of input is read at once; a server that ignored it would run on for ever.
        #expect(waitUntil { kill(serverPID, 0) != 0 }, "the server outlived its parent")

        let check = Client(try ServerProcess(["--db", database.argument]))
        _ = try check.request("initialize")
        #expect(try check.request("tasks/get", #"{"id":"orphan"}"#)["title"] == "written before the parent died")
    }

    // MARK: - Helpers

    func populate(_ path: String, count: Int, notes: String = "") throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let client = Client(try ServerProcess(["--db", path, "--log-level", "error"]))
        _ = try client.request("initialize", #"{"initializationOptions":{"notifications":false}}"#)
        let operations = (1...count).map { #"{"create":{"id":"task-\#($0)","title":"task \#($0)","notes":"\#(notes)"}}"# }
        _ = try client.request("tasks/apply", #"{"operations":[\#(operations.joined(separator: ","))]}"#)
        client.server.sendLine(#"{"jsonrpc":"2.0","id":"s","method":"shutdown"}"#)
        client.server.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(client.server.waitForExit() == 0)
    }

    func fetchIDs(_ client: Client) throws -> Set<String> {
        let page = try client.request("tasks/fetch", #"{"limit":1000}"#)
        return Set((page["tasks"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
    }

    /// `PRAGMA integrity_check`, run by the sqlite3 shell where the server sees the file (SQLite
    /// resolves /proc/<pid>/root to / and would open the file of this namespace instead).
    func expectIntact(_ path: String, inMountNamespaceOf pid: Int32) throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nsenter")
        process.arguments = ["--target", "\(pid)", "--mount", "sqlite3", path, "PRAGMA integrity_check"]
        let output = Pipe.closedOnExec()
        process.standardOutput = .pipe(output)
        try process.run()
        let text = String(decoding: try output.fileHandleForReading.readAll(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
    }

    /// Writes to `path` until the file system is full.
    func fill(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        let block = [UInt8](repeating: 0xF1, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        #expect(errno == ENOSPC)
    }

    func pageSize(_ path: String) throws -> Int {
        Int(try #require(try Database(path: path).integer("PRAGMA page_size")))
    }

    func sqliteOutput(_ path: String, _ sql: String) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        let output = Pipe.closedOnExec()
        process.standardOutput = .pipe(output)
        try process.run()
        let text = String(decoding: try output.fileHandleForReading.readAll(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    func chattr(_ flag: String, _ path: String) -> Bool {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag, path]
        process.standardError = .nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

/// Runs the server in a mount namespace of its own, so that a test can give it a small or a
/// read-only file system without touching anybody else's.
enum MountNamespace {
    static let unshare = "/usr/bin/unshare"

    static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: unshare) else { return false }
        let probe = ChildProcess()
        probe.executableURL = URL(fileURLWithPath: unshare)
        probe.arguments = ["--mount", "--propagation", "private", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]
        probe.standardError = .nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// Runs `setup` (a shell command; `$1` is `folder`) in a new mount namespace, then the
    /// server in its place (same process id, so `/proc/<pid>/root` shows what it sees).
    static func server(setup: String, folder: String, arguments: [String]) throws -> ServerProcess {
        try ServerProcess(
            [
                "--mount", "--propagation", "private", "sh", "-c", #"\#(setup) || exit 97; shift; exec "$@""#,
                "sh", folder, ServerProcess.binaryPath,
            ] + arguments, executable: unshare)
    }
}
