import Foundation
import JSONRPC
import TestSupport
import Testing

/// How a server keeps telling its client about changes when the client lags behind: it does
/// not read its output, the change log was pruned under it, or the database is reached
/// through a symbolic link.
@Suite struct ChangeDeliveryTests {
    let directory = TemporaryDirectory()
    var path: String { directory.file("shared.sqlite") }

    /// A client that stays connected but stops reading while another process imports about
    /// 150 MB of changes. The server stops queuing them past its 64 MiB of unread output and,
    /// once the client reads, says which it missed; `tasks/changes` gives exactly those.
    @Test func aClientThatStopsReadingIsToldWhatItMissedWhileTheServersMemoryStaysBounded() throws {
        let server = try ServerProcess(["--db", path, "--log-level", "info"])
        try server.initialize()
        let notes = String(repeating: "n", count: 60_000)
        let records = (1...2500).map { #"{"title":"big \#($0)","notes":"\#(notes)"}"# }
        #expect(try runTaskline(["import", "-", "--db", path], stdin: Data(records.joined(separator: "\n").utf8)).status == 0)
        try waitFor("the server stops queuing changes", timeout: 60) { server.stderr.contains("has not read 64 MiB of output") }

        var delivered: [JSON] = []
        var missed: JSON?
        while missed == nil {
            let message = try server.next(timeout: 30)
            switch message["method"]?.stringValue {
            case "tasks/didChange": delivered += message["params"]?["changes"]?.arrayValue ?? []
            case "tasks/didMissChanges": missed = message["params"]
            default: Issue.record("unexpected \(JSONWriter.string(message).prefix(200))"); return
            }
        }
        let since = Int64(delivered.count)
        #expect(since > 0 && since < 2500)
        #expect(delivered.map { $0["seq"] } == (0..<since).map { JSON.integer($0 + 1) })
        #expect(missed == ["since": .integer(since), "seq": 2500, "reason": "backlog"])

        // Delivery goes on after the missed range.
        #expect(try runTaskline(["add", "after the gap", "--db", path]).status == 0)
        let next = try server.didChanges(count: 1)
        #expect(next.map { $0["seq"] } == [2501])
        #expect(next.first?["task"]?["title"] == "after the gap")

        var caught: [JSON] = []
        var from = since
        for id in 100..<110 {
            let page = try server.call(id, "tasks/changes", #"{"since":\#(from),"limit":1000}"#)["result"]
            caught += page?["changes"]?.arrayValue ?? []
            if case .integer(let seq)? = page?["seq"] { from = seq }
            if page?["hasMore"] != true || from >= 2500 { break }
        }
        #expect(caught.prefix { $0["seq"] != 2501 }.map { $0["seq"] } == (since..<2500).map { JSON.integer($0 + 1) })

        // Unbounded, the server held every notification: over 300 MB (VmHWM).
        let peak = try #require(server.peakResidentKilobytes)
        #expect(peak < 200_000, "peak resident memory \(peak) KiB")
    }

    /// Another process prunes the history that a stopped server had not delivered yet: once
    /// it runs again it tells its client to refetch, then goes on with the changes after.
    @Test func aServerBehindPrunedHistoryTellsItsClientToRefetchAndCarriesOn() throws {
        let lagging = try ServerProcess(["--db", path])
        try lagging.initialize()
        let writer = Client(try ServerProcess(["--db", path]))
        _ = try writer.request("initialize")
        _ = try writer.request("tasks/create", #"{"title":"heard"}"#)
        #expect(try lagging.didChanges(count: 1).map { $0["seq"] } == [1])

        kill(lagging.pid, SIGSTOP)
        for index in 2...4 { _ = try writer.request("tasks/create", #"{"title":"pruned \#(index)"}"#) }
        usleep(20_000)  // the changes are older than "now" when the pruner starts
        let pruner = try ServerProcess(["--db", path, "--history-days", "0"])
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
