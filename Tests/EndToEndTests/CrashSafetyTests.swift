import Foundation
import JSON
import SQLite
import TestSupport
import Testing

/// A writer keeps many writes in flight while the server is killed with SIGKILL at random
/// moments, then restarted on the same file. After every restart: every write the client saw
/// acknowledged is there, with the acknowledged version; a write in flight at the kill is
/// there entirely or not at all; `PRAGMA integrity_check` is ok; and the change log holds
/// every change ever announced under its `seq`, so no `seq` is ever handed out twice.
///
/// `--durability normal` promises the same for a crash of the process (what SIGKILL is); what
/// it gives up is only the last writes on a power loss, which no test here can cause.
///
/// 5 kills per durability by default; `TASKLINE_LONG_TESTS=1` makes it 60.
@Suite(.serialized) struct CrashSafetyTests {
    static let kills = longTestsEnabled ? 60 : 5

    @Test(arguments: ["full", "normal"])
    func acknowledgedWritesSurviveSIGKILL(durability: String) throws {
        let directory = TemporaryDirectory()
        var writer = CrashWriter(path: directory.file("tasks.sqlite"), durability: durability)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<Self.kills {
            try writer.startServer()
            try writer.verifyAfterRestart(round: round)
            try writer.writeUntilKilled(after: .milliseconds(Int.random(in: 10...250, using: &generator)))
        }
        try writer.startServer()
        try writer.verifyAfterRestart(round: Self.kills)
        #expect(writer.acknowledged > Self.kills * 5, "the writer should have got some writes through: \(writer.acknowledged)")
        print(
            "crash safety (\(durability)): \(Self.kills) kills, \(writer.acknowledged) acknowledged writes, "
                + "\(writer.resolvedInFlight) in flight at a kill (\(writer.appliedInFlight) of them committed), "
                + "\(writer.announced.count) changes announced, none lost")
    }
}

/// The writing client and its record of what the server has acknowledged.
struct CrashWriter {
    let path: String
    let durability: String
    var server: ServerProcess?

    /// Acknowledged state: a task's version, or nil once its deletion was acknowledged.
    var tasks: [String: Int64?] = [:]
    /// Every change ever announced in `tasks/didChange`, by seq.
    var announced: [Int64: String] = [:]
    var acknowledged = 0
    var resolvedInFlight = 0
    /// In flight at a kill, yet committed: the server died between the commit and the answer.
    var appliedInFlight = 0

    private var inFlight: [Int64: Operation] = [:]
    private var busy: Set<String> = []
    private var nextRequest: Int64 = 1
    private var nextTask = 0
    private static let window = 16

    enum Operation {
        /// Several creates in one atomic `tasks/apply` (or a single `tasks/create`).
        case create([String])
        case update(String, to: Int64)
        case delete(String)

        var ids: [String] {
            switch self {
            case .create(let ids): ids
            case .update(let id, _), .delete(let id): [id]
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(path: String, durability: String) {
        self.path = path
        self.durability = durability
    }

    mutating func startServer() throws {
        let server = try ServerProcess(["--db", path, "--durability", durability, "--log-level", "error"])
        server.sendLine(#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#)
        guard try server.next()["result"] != nil else { throw Failure(description: "initialize failed: \(server.stderr)") }
        self.server = server
    }

    // MARK: - Writing

    /// Pipelines writes (so that waiting ones are group-committed) until the server is killed.
    mutating func writeUntilKilled(after delay: DispatchTimeInterval) throws {
        let server = try #require(server)
        let pid = server.pid
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { kill(pid, SIGKILL) }
        var alive = true
        while alive {
            while alive && inFlight.count < Self.window {
                alive = send(on: server)
            }
            guard alive, let message = try? server.next(timeout: 5) else { break }
            try receive(message)
        }
        // Whatever the server wrote before it died still counts as acknowledged.
        while let message = try? server.next(timeout: 1) { try receive(message) }
        #expect(server.waitForExit() == 128 + SIGKILL, "the server should have died of the kill; stderr: \(server.stderr)")
        self.server = nil
    }

    /// Sends one write on tasks that have no write in flight; false once the server is gone.
    private mutating func send(on server: ServerProcess) -> Bool {
        let id = nextRequest
        nextRequest += 1
        let live = tasks.filter { $0.value != nil && !busy.contains($0.key) }
        let operation: Operation
        let method: String
        let params: String
        switch live.isEmpty ? 0 : Int.random(in: 0..<10) {
        case 0..<4:
            let count = Int.random(in: 0..<4) == 0 ? 3 : 1
            let ids = (0..<count).map { _ in newTaskID() }
            operation = .create(ids)
            if count == 1 {
                (method, params) = ("tasks/create", #"{"id":"\#(ids[0])","title":"v1"}"#)
            } else {
                let creates = ids.map { #"{"create":{"id":"\#($0)","title":"v1"}}"# }.joined(separator: ",")
                (method, params) = ("tasks/apply", #"{"operations":[\#(creates)]}"#)
            }
        case 4..<8:
            let (task, version) = live.randomElement()!
            operation = .update(task, to: version! + 1)
            (method, params) = ("tasks/update", #"{"id":"\#(task)","changes":{"title":"v\#(version! + 1)"},"ifVersion":\#(version!)}"#)
        default:
            let (task, version) = live.randomElement()!
            operation = .delete(task)
            (method, params) = ("tasks/delete", #"{"id":"\#(task)","ifVersion":\#(version!)}"#)
        }
        inFlight[id] = operation
        busy.formUnion(operation.ids)
        return server.write(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"# + "\n")
    }

    private mutating func newTaskID() -> String {
        nextTask += 1
        return "task-\(nextTask)"
    }

    private mutating func receive(_ message: JSON) throws {
        if message["method"] == "tasks/didChange" {
            for change in message["params"]?["changes"]?.arrayValue ?? [] {
                try record(change)
            }
            return
        }
        guard case .integer(let id)? = message["id"], let operation = inFlight.removeValue(forKey: id) else {
            throw Failure(description: "a response to no request: \(message)")
        }
        guard message["result"] != nil else { throw Failure(description: "a write failed: \(message)") }
        acknowledged += 1
        busy.subtract(operation.ids)
        switch operation {
        case .create(let ids): for task in ids { tasks[task] = .some(1) }
        case .update(let task, let version): tasks[task] = .some(version)
        case .delete(let task): tasks[task] = .some(nil)
        }
    }

    /// A seq names one change, forever.
    private mutating func record(_ change: JSON) throws {
        guard case .integer(let seq)? = change["seq"] else { throw Failure(description: "a change without a seq: \(change)") }
        let summary = Self.summary(change)
        if let earlier = announced[seq], earlier != summary {
            throw Failure(description: "seq \(seq) was announced for \(earlier) and again for \(summary)")
        }
        announced[seq] = summary
    }

    private static func summary(_ change: JSON) -> String {
        "\(change["kind"]?.stringValue ?? "?") \(change["id"]?.stringValue ?? "?") v\(change["version"].map(JSONWriter.string) ?? "?")"
    }

    // MARK: - Checking

    mutating func verifyAfterRestart(round: Int) throws {
        let stored = try fetchAll()
        try checkIntegrity()

        // Writes in flight at the kill: all of one, or none of it.
        for operation in inFlight.values {
            let applied: Bool
            switch operation {
            case .create(let ids):
                let present = ids.filter { stored[$0] == 1 }
                guard present.isEmpty || present.count == ids.count else {
                    throw Failure(description: "round \(round): a create of \(ids) was half applied: \(present)")
                }
                applied = !present.isEmpty
                if applied { for task in ids { tasks[task] = .some(1) } }
            case .update(let task, let version):
                applied = stored[task] == version
                if applied { tasks[task] = .some(version) }
            case .delete(let task):
                applied = stored[task] == nil
                if applied { tasks[task] = .some(nil) }
            }
            resolvedInFlight += 1
            if applied { appliedInFlight += 1 }
        }
        inFlight = [:]
        busy = []

        // Everything acknowledged is there as acknowledged, and nothing else is.
        for (task, version) in tasks where stored[task] != version {
            throw Failure(
                description: "round \(round): \(task) was acknowledged at \(version.map { "version \($0)" } ?? "deleted"), "
                    + "but the database has \(stored[task].map { "version \($0)" } ?? "nothing")")
        }
        for task in stored.keys where tasks[task] == nil {
            throw Failure(description: "round \(round): \(task) is in the database but was never written")
        }
        try checkChangeLog(round: round)
    }

    /// Every task in the database: id → version (titles say their version, and must agree).
    private func fetchAll() throws -> [String: Int64] {
        let server = try #require(server)
        var stored: [String: Int64] = [:]
        var cursor = JSON.null
        repeat {
            let page = try server.call(1, "tasks/fetch", #"{"limit":1000,"cursor":\#(JSONWriter.string(cursor))}"#)
            guard let result = page["result"], let list = result["tasks"]?.arrayValue else {
                throw Failure(description: "fetch failed: \(page)")
            }
            for task in list {
                guard let id = task["id"]?.stringValue, case .integer(let version)? = task["version"] else { continue }
                guard task["title"]?.stringValue == "v\(version)" else {
                    throw Failure(description: "\(id) is at version \(version) with the title of another: \(task)")
                }
                stored[id] = version
            }
            cursor = result["nextCursor"] ?? .null
        } while cursor != .null
        return stored
    }

    private func checkIntegrity() throws {
        let database = try Database(path: path, mode: .readOnly)
        let result = try database.cachedStatement("PRAGMA integrity_check").firstRow { $0.text(0) }
        guard result == "ok" else { throw Failure(description: "integrity_check: \(result ?? "no answer")") }
    }

    /// The log counts up, and holds every change announced before any kill under its seq.
    private mutating func checkChangeLog(round: Int) throws {
        let server = try #require(server)
        var since: Int64 = 0
        var logged: [Int64: String] = [:]
        var more = true
        while more {
            let page = try server.call(2, "tasks/changes", #"{"since":\#(since),"limit":1000}"#)
            guard let result = page["result"], let changes = result["changes"]?.arrayValue else {
                throw Failure(description: "tasks/changes failed: \(page)")
            }
            for change in changes {
                guard case .integer(let seq)? = change["seq"], seq > since else {
                    throw Failure(description: "round \(round): the change log goes back or repeats at \(change) after \(since)")
                }
                since = seq
                logged[seq] = Self.summary(change)
            }
            more = result["hasMore"] == true
        }
        for (seq, summary) in announced where logged[seq] != summary {
            throw Failure(description: "round \(round): seq \(seq) was announced as \(summary), the log has \(logged[seq] ?? "nothing")")
        }
    }
}
