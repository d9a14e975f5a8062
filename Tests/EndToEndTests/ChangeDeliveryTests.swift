import Foundation
import TestSupport
import Testing

/// How a server keeps telling its client about changes when the client lags behind: it does
/// not read its output, the change log was pruned under it, or the database is reached
/// through a symbolic link.
@Suite struct ChangeDeliveryTests {
    let directory = TemporaryDirectory()
    var path: String { directory.file("shared.sqlite") }

    /// A client that stays connected but stops reading while another process writes about
    /// 180 MB of changes. The server stops queuing them past its 64 MiB of unread output and,
    /// once the client reads, says which it missed; `tasks/changes` gives exactly those.
    @Test func aClientThatStopsReadingIsToldWhatItMissedWhileTheServersMemoryStaysBounded() throws {
        let server = try ServerProcess(["--db", path, "--log-level", "info"])
        try server.initialize()
        // 500 tasks whose notes are 60,000 control characters, each sent as a 6-byte escape,
        // written by the sqlite3 shell in a moment (taskline import would read 180 MB of JSON).
        try sqlite3(
            """
            INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, created_at, updated_at, version)
            SELECT 'big-' || value, 'big', 'big', notes, notes, 0, 0, 1, 1, 1
            FROM generate_series(1, 500), (SELECT replace(printf('%.60000c', 'n'), 'n', char(1)) AS notes)
            """)
        try waitFor("the server stops queuing changes", timeout: 60) { server.stderr.contains("has not read 64 MiB of output") }
        // Deleted again while the client is behind, so that catching up reads little.
        try sqlite3("DELETE FROM task")

        let reader = LineReader(server)
        var delivered: [Int] = []
        var missed: [String: Any] = [:]
        while missed.isEmpty {
            let message = try reader.next()
            switch message["method"] as? String {
            case "tasks/didChange": delivered += seqs(of: message)
            case "tasks/didMissChanges": missed = message["params"] as? [String: Any] ?? ["params": "missing"]
            default:
                Issue.record("unexpected \(message)")
                return
            }
        }
        let since = delivered.count
        #expect(since > 0 && since < 500)
        #expect(delivered == Array(1...max(since, 1)).prefix(since).map { $0 })
        #expect(missed["since"] as? Int == since)
        #expect(missed["reason"] as? String == "backlog")
        // The deletions came while the client was behind (the miss grew), or are delivered now.
        let missedThrough = try #require(missed["seq"] as? Int)
        #expect((500...1000).contains(missedThrough))

        #expect(try runTaskline(["add", "after the gap", "--db", path]).status == 0)
        var following: [Int] = []
        while following.last != 1001 {
            let message = try reader.next()
            #expect(message["method"] as? String == "tasks/didChange")
            following += seqs(of: message)
        }
        #expect(following == Array(missedThrough + 1...1001))
        // Unbounded, the server held every notification: about 500 MB (VmHWM).
        let peak = try #require(server.peakResidentKilobytes)
        #expect(peak < 200_000, "peak resident memory \(peak) KiB")

        var caught: [Int] = []
        var from = since
        for id in 1...20 where from < missedThrough {
            server.sendLine(#"{"jsonrpc":"2.0","id":\#(id),"method":"tasks/changes","params":{"since":\#(from),"limit":1000}}"#)
            let result = try #require(try reader.next()["result"] as? [String: Any])
            caught += (result["changes"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int }
            from = try #require(result["seq"] as? Int)
        }
        #expect(caught.prefix { $0 <= missedThrough } == Array(since + 1...missedThrough))
    }

    /// A client behind on its output that then ends its input is still told what it missed:
    /// after the answers it has not read, before the server exits.
    @Test func aClientThatEndsItsInputWhileBehindIsToldWhatItMissedBeforeTheServerExits() throws {
        // A task of 393 KB as JSON (65,536 control characters, each a 6-byte escape), changed
        // 180 times: `tasks/changes` carries it in each change, an answer of about 71 MB.
        // Written by another server first, so that the one under test owes its client nothing
        // before the answer (answers and changes this large would back it up at any moment).
        let writer = try ServerProcess(["--db", path])
        try writer.initialize(#"{"initializationOptions":{"notifications":false}}"#)
        let notes = String(repeating: #"\u0001"#, count: 65_536)
        _ = try writer.call(1, "tasks/create", #"{"id":"big","title":"big","notes":"\#(notes)"}"#)
        let updates = (1...180).map { #"{"update":{"id":"big","changes":{"title":"big \#($0)"}}}"# }.joined(separator: ",")
        _ = try writer.call(2, "tasks/apply", #"{"operations":[\#(updates)]}"#)
        writer.closeInput()
        #expect(writer.waitForExit() == 1)

        let server = try ServerProcess(["--db", path, "--log-level", "info"])
        try server.initialize()
        let reader = LineReader(server)
        server.sendLine(#"{"jsonrpc":"2.0","id":3,"method":"tasks/changes","params":{"since":0,"limit":1000}}"#)
        try reader.awaitOutput()  // the answer is queued whole before its first bytes are written
        #expect(try runTaskline(["add", "while behind", "--db", path]).status == 0)
        try waitFor("the server stops queuing changes", timeout: 60) { server.stderr.contains("changes after seq 181 are not sent") }
        server.closeInput()

        #expect(try reader.next()["id"] as? Int == 3)
        let missed = try reader.next()
        #expect(missed["method"] as? String == "tasks/didMissChanges")
        let params = missed["params"] as? [String: Any] ?? [:]
        #expect(params["since"] as? Int == 181 && params["seq"] as? Int == 182 && params["reason"] as? String == "backlog")
        #expect(throws: Waited.self) { try reader.next() }
        #expect(server.waitForExit() == 1)
    }

    /// Another process prunes the history that a stopped server had not delivered yet: once
    /// it runs again it tells its client to refetch, then goes on with the changes after.
    @Test(arguments: StoreKind.allCases)
    func aServerBehindPrunedHistoryTellsItsClientToRefetchAndCarriesOn(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let lagging = try ServerProcess(["--db", database.argument])
        try lagging.initialize()
        let writer = Client(try ServerProcess(["--db", database.argument]))
        _ = try writer.request("initialize")
        _ = try writer.request("tasks/create", #"{"title":"heard"}"#)
        #expect(try lagging.didChanges(count: 1).map { $0["seq"] } == [1])

        kill(lagging.pid, SIGSTOP)
        for index in 2...4 { _ = try writer.request("tasks/create", #"{"title":"pruned \#(index)"}"#) }
        usleep(20_000)  // the changes are older than "now" when the pruner starts
        let pruner = try ServerProcess(["--db", database.argument, "--history-days", "0"])
        try pruner.initialize()  // history is pruned before the first answer
        pruner.closeInput()
        #expect(pruner.waitForExit() == 1)
        kill(lagging.pid, SIGCONT)

        let missed = try lagging.next()
        #expect(missed["method"] == "tasks/didMissChanges")
        #expect(missed["params"] == ["since": 1, "seq": 4, "reason": "historyExpired"])
        #expect(try lagging.call(10, "tasks/changes", #"{"since":1}"#)["error"]?["code"] == 1005)

        _ = try writer.request("tasks/create", #"{"title":"after the pruning"}"#)
        let next = try lagging.didChanges(count: 1)
        #expect(next.map { $0["seq"] } == [5])
        #expect(next.first?["task"]?["title"] == "after the pruning")
    }

    /// SQLite follows symbolic links: servers that open the database through links in another
    /// folder (one of them a link to a link) hear each other and one that opens the file itself.
    @Test func serversReachingTheDatabaseThroughSymbolicLinksHearEachOther() throws {
        let files = directory.file("files")
        let links = directory.file("links")
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: links, withIntermediateDirectories: false)
        let target = files + "/tasks.sqlite"
        try FileManager.default.createSymbolicLink(atPath: links + "/link.sqlite", withDestinationPath: target)
        try FileManager.default.createSymbolicLink(atPath: links + "/link-to-link.sqlite", withDestinationPath: links + "/link.sqlite")

        let direct = Client(try ServerProcess(["--db", target]))
        _ = try direct.request("initialize")
        let linked = Client(try ServerProcess(["--db", links + "/link.sqlite"]))
        _ = try linked.request("initialize")
        let twiceLinked = Client(try ServerProcess(["--db", links + "/link-to-link.sqlite"]))
        _ = try twiceLinked.request("initialize")
        let clients = [direct, linked, twiceLinked]

        for (round, writer) in clients.enumerated() {
            _ = try writer.request("tasks/create", #"{"title":"from \#(round)"}"#)
            for client in clients {
                #expect(try client.waitForChanges(count: 1).map { $0["seq"] } == [.integer(Int64(round + 1))])
            }
        }
    }

    func seqs(of notification: [String: Any]) -> [Int] {
        ((notification["params"] as? [String: Any])?["changes"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int }
    }

    func sqlite3(_ sql: String) throws {
        let shell = ChildProcess()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = ["-bail", "-cmd", ".timeout 10000", path, sql]
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0, "sqlite3 \(sql.prefix(60))")
    }

    struct Waited: Error, CustomStringConvertible {
        let description: String
    }

    func waitFor(_ what: String, timeout: Double, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw Waited(description: "\(what): not within \(timeout) s") }
            usleep(50_000)
        }
    }
}

/// The messages a server writes in newline-delimited JSON, parsed by Foundation: the test's
/// own parser, built for debugging, would take most of a minute over the 64 MiB and more
/// that `aClientThatStopsReading…` reads.
final class LineReader {
    private let server: ServerProcess
    private var buffer = Data()
    private var searched = 0

    init(_ server: ServerProcess) {
        self.server = server
    }

    /// Waits until the server writes more, kept for `next`.
    func awaitOutput(timeout: Double = 30) throws {
        guard let chunk = try server.readChunk(until: Date().addingTimeInterval(timeout)) else {
            throw ChangeDeliveryTests.Waited(description: "stdout ended")
        }
        buffer.append(contentsOf: chunk)
    }

    func next(timeout: Double = 30) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let newline = buffer.withUnsafeBytes { bytes in
                memchr(bytes.baseAddress! + searched, 0x0A, bytes.count - searched).map { bytes.baseAddress!.distance(to: UnsafeRawPointer($0)) }
            }
            if let newline {
                let line = buffer.prefix(newline)
                buffer = Data(buffer.dropFirst(newline + 1))
                searched = 0
                return try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
            }
            searched = buffer.count
            guard let chunk = try server.readChunk(until: deadline) else { throw ChangeDeliveryTests.Waited(description: "stdout ended") }
            buffer.append(contentsOf: chunk)
        }
    }
}
