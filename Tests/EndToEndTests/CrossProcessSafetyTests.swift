import Foundation
import JSON
import SQLite
import TestSupport
import Testing

/// Two `taskline` servers write one file while a third connection holds a read transaction
/// open (as a slow export does: the log cannot be checkpointed past it), and one server's
/// transactions large enough to spill to the log roll back in between: nothing a server wrote for a transaction it rolled back may land in the file once the
/// other server can write there. After every step `taskline check` finds the file sound and
/// holding every acknowledged task; at the end `taskline export` gives every one of them.
///
/// 3 rounds by default; `TASKLINE_LONG_TESTS=1` makes it 30.
@Suite struct CrossProcessSafetyTests {
    let directory = TemporaryDirectory()
    var path: String { directory.file("shared.sqlite") }

    /// Three rounds take each of the reader's ways once.
    static let rounds = longTestsEnabled ? 30 : 3

    /// Server A's transaction that spills and rolls back, then B's larger commit over the
    /// offsets A spilled to, then A's next use of the log: a layer beneath SQLite that held
    /// A's spill past its lock would write it over B's frames and lose one of B's tasks. The
    /// file was made by a server that checkpointed it as it exited, so A's
    /// rollback reads nothing back from the log.
    @Test func aRolledBackSpillNeverOverwritesAnotherServersCommit() throws {
        var store = SharedStore(path: path)
        let earlier = try store.start()
        try store.create(1, by: earlier, as: "existing")
        try store.stop([earlier])
        let a = try store.start()
        let b = try store.start()
        let reader = try store.pinnedReader()

        try store.spillAndRollBack(by: a)
        try store.create(200, by: b, as: "from B", notes: SharedStore.longNotes)
        _ = try a.request("tasks/get", #"{"id":"\#(store.anyID)"}"#)
        try reader.execute("COMMIT")

        try store.stop([a, b])
        try store.expectExported()
        try store.expectSound("after both servers exited")
    }

    @Test func twoServersAndAPinnedReaderWithRolledBackSpillsBetween() throws {
        var store = SharedStore(path: path)
        let servers = [try store.start(), try store.start()]
        try store.create(1, by: servers[0], as: "first")
        var reader: Database?
        var steps = 0
        func step(_ what: String, _ body: () throws -> Void) throws {
            try body()
            steps += 1
            try store.expectSound("step \(steps): \(what)")
        }

        for round in 0..<Self.rounds {
            let (spiller, other) = round % 2 == 0 ? (servers[0], servers[1]) : (servers[1], servers[0])
            try step("the reader lets go, the log is checkpointed or not, the reader pins it again or not") {
                try reader?.execute("COMMIT")
                if round % 3 != 1 { try store.checkpoint() }
                reader = round % 3 == 2 ? nil : try store.pinnedReader()
            }
            try step("a spill rolls back") { try store.spillAndRollBack(by: spiller) }
            try step("the other server commits more than was spilled") {
                if round == 0 {
                    try store.create(150, by: other, as: "long", notes: SharedStore.longNotes)
                } else {
                    try store.update(150, by: other, notes: SharedStore.longNotes + "\(round)")
                }
            }
            try step("the spilling server reads") { _ = try spiller.request("tasks/get", #"{"id":"\#(store.anyID)"}"#) }
            try step("the spilling server commits") { try store.create(1 + round % 5, by: spiller, as: "round \(round), after its spill") }
            try step("the other server updates") { try store.update(10, by: other) }
        }
        try reader?.execute("COMMIT")
        try store.stop(servers)
        try store.expectExported()
        try store.expectSound("after both servers exited")
        print(
            "cross-process safety: \(Self.rounds) rolled-back spills between two servers, \(steps) steps each checked by "
                + "taskline check, \(store.tasks.count) tasks exported whole")
    }
}

/// The file the servers share, and every task they acknowledged, at the version acknowledged.
struct SharedStore {
    let path: String
    /// Each acknowledged task's title and version, by id.
    private(set) var tasks: [String: [JSON?]] = [:]

    init(path: String) {
        self.path = path
    }

    var anyID: String { tasks.keys.min() ?? "none" }

    /// A server, its client asking for no notifications (each would repeat megabytes of notes).
    func start() throws -> Writer {
        let writer = Writer(try ServerProcess(["--db", path, "--log-level", "error"]))
        _ = try writer.request("initialize", #"{"clientInfo":{"name":"cross-process safety"},"initializationOptions":{"notifications":false}}"#)
        return writer
    }

    /// A connection in this process holding a read transaction open.
    func pinnedReader() throws -> Database {
        let reader = try Database(path: path, mode: .readOnly)
        try reader.execute("BEGIN; SELECT count(*) FROM task")
        return reader
    }

    /// Copies the whole log into the database, so that the next writer starts it over.
    func checkpoint() throws {
        let database = try Database(path: path, mode: .readWrite)
        let busy = try database.integer("PRAGMA wal_checkpoint")
        #expect(busy == 0, "a checkpoint with no reader in the way copies the whole log")
    }

    /// 60,000 characters: 120 tasks with these notes are 7 MB, more than a server's page cache
    /// (8 MiB) holds with the indexes.
    static let longNotes = String(repeating: "spilled ", count: 7_500)

    mutating func create(_ count: Int, by client: Writer, as title: String, notes: String = "") throws {
        let operations = (0..<count).map { #"{"create":{"title":"\#(title) \#($0)","notes":"\#(notes)"}}"# }.joined(separator: ",")
        let results = try #require(try client.request("tasks/apply", #"{"operations":[\#(operations)]}"#)["results"]?.arrayValue)
        for result in results { try acknowledge(try #require(result["result"])) }
    }

    private mutating func acknowledge(_ task: JSON) throws {
        tasks[try #require(task["id"]?.stringValue)] = [task["title"], task["version"]]
    }

    /// Updates the `count` tasks with the oldest ids: their titles, or their notes.
    mutating func update(_ count: Int, by client: Writer, notes: String? = nil) throws {
        let ids = tasks.keys.sorted().prefix(count)
        let operations = ids.map { id in
            let changes = notes.map { #"{"notes":"\#($0)"}"# } ?? #"{"title":"\#(tasks[id]?.first??.stringValue ?? "")+"}"#
            return #"{"update":{"id":"\#(id)","changes":\#(changes)}}"#
        }.joined(separator: ",")
        let results = try #require(try client.request("tasks/apply", #"{"operations":[\#(operations)]}"#)["results"]?.arrayValue)
        for result in results { try acknowledge(try #require(result["result"])) }
    }

    /// An atomic `tasks/apply` of 120 creates with long notes whose last operation reuses an
    /// existing id: it fails with 1003 after SQLite has spilled most of it to the log.
    func spillAndRollBack(by client: Writer) throws {
        let creates = (0..<120).map { #"{"create":{"title":"rolled back \#($0)","notes":"\#(Self.longNotes)"}}"# }
        let operations = creates + [#"{"create":{"id":"\#(anyID)","title":"a duplicate"}}"#]
        let error = try client.requestError("tasks/apply", #"{"operations":[\#(operations.joined(separator: ","))]}"#)
        #expect(error["code"] == 1003)
    }

    func stop(_ clients: [Writer]) throws {
        for client in clients {
            _ = try client.request("shutdown")
            client.server.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
            #expect(client.server.waitForExit(timeout: 30) == 0, "stderr: \(client.server.stderr)")
        }
    }

    /// `taskline check` says the file is sound and holds as many tasks as were acknowledged;
    /// the test stops at the first step after which it does not.
    func expectSound(_ step: String) throws {
        let check = try runTaskline(["check", "--db", path])
        let counted = check.lines.first { $0.hasPrefix("tasks ") }?.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
        try #require(
            check.status == 0 && counted.map { $0.filter(\.isNumber) } == String(tasks.count),
            "\(step): taskline check, with \(tasks.count) tasks acknowledged, said:\n\(check.output)\(check.stderr)")
    }

    /// `taskline export` gives every acknowledged task, at the version and with the title acknowledged.
    func expectExported() throws {
        let export = try runTaskline(["export", "--db", path])
        #expect(export.status == 0, "\(export.stderr)")
        var exported: [String: [JSON?]] = [:]
        for line in export.lines {
            let task = try JSONParser.parse(Array(line.utf8))
            exported[try #require(task["id"]?.stringValue)] = [task["title"], task["version"]]
        }
        let lost = tasks.filter { exported[$0.key] != $0.value }
        #expect(
            lost.isEmpty && exported.count == tasks.count,
            "\(lost.count) of \(tasks.count) acknowledged tasks missing or changed (e.g. \(lost.first.map { "\($0.key): \($0.value)" } ?? "none")); \(exported.count) exported"
        )
    }
}

/// A client of one server, one request at a time, with time for requests that carry megabytes
/// through a debug build on a busy machine.
final class Writer {
    let server: ServerProcess
    private var nextID = 1

    init(_ server: ServerProcess) {
        self.server = server
    }

    /// The response to `method`, whether a result or an error.
    func call(_ method: String, _ params: String) throws -> JSON {
        let id = JSON.integer(Int64(nextID))
        nextID += 1
        server.sendLine(#"{"jsonrpc":"2.0","id":\#(JSONWriter.string(id)),"method":"\#(method)","params":\#(params)}"#)
        while true {
            let message = try server.next(timeout: 180)
            if message["id"] == id { return message }
        }
    }

    func request(_ method: String, _ params: String = "{}") throws -> JSON {
        let answer = try call(method, params)
        return try #require(answer["result"], "\(method) failed: \(answer)")
    }

    func requestError(_ method: String, _ params: String) throws -> JSON {
        let answer = try call(method, params)
        return try #require(answer["error"], "\(method) succeeded: \(answer["result"].map { "\($0)".prefix(200) } ?? "")")
    }
}
