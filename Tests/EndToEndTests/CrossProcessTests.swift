import Foundation
import JSON
import SQLite
import TestSupport
import Testing

/// Two editor windows, two `taskline` processes, one database: a SQLite file, or a
/// PostgreSQL database as for two machines.
@Suite struct CrossProcessTests {
    func start(_ database: TestDatabase, _ extra: [String] = []) throws -> Client {
        let client = Client(try ServerProcess(["--db", database.argument] + extra))
        _ = try client.request("initialize", #"{"clientInfo":{"name":"window"}}"#)
        return client
    }

    @Test(arguments: StoreKind.allCases)
    func everyClientHearsEveryChangeOnceAndInOrder(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let a = try start(database)
        let b = try start(database)
        var ids: [String] = []
        for round in 0..<40 {
            let (writer, other) = round % 2 == 0 ? (a, b) : (b, a)
            let created = try writer.request("tasks/create", #"{"title":"round \#(round)"}"#)
            ids.append(try #require(created["id"]?.stringValue))
            if round % 5 == 4 {
                _ = try other.request("tasks/update", #"{"id":"\#(ids[round - 1])","changes":{"done":true}}"#)
                _ = try writer.request("tasks/delete", #"{"id":"\#(ids[round - 2])"}"#)
            }
        }
        let total = 40 + 2 * 8
        for client in [a, b] {
            let seqs = try client.waitForChanges(count: total).map { $0["seq"] }
            #expect(seqs == (1...total).map { JSON.integer(Int64($0)) })
        }
        // Nothing more arrives: no duplicates trail behind. A window, since nothing coming
        // cannot be waited for: a slow machine makes it pass, never fail.
        usleep(300_000)
        #expect(try a.pendingChanges().isEmpty)
        #expect(try b.pendingChanges().isEmpty)
    }

    /// A commit another process makes while a server answers `initialize` is either within
    /// the seq that `initialize` answers with or announced, even when nothing is committed
    /// after it. The commit is timed at a different moment of the server's start in each
    /// round, so that some rounds land between the seq being read and the watch being set.
    @Test(arguments: StoreKind.allCases)
    func aCommitWhileAServerStartsIsWithinItsSeqOrHeard(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        // On SQLite, commits that need no sync come sooner.
        let writer = Client(try ServerProcess(["--db", database.argument] + (store == .sqlite ? ["--durability", "normal"] : [])))
        _ = try writer.request("initialize", #"{"initializationOptions":{"notifications":false}}"#)
        var heard = 0
        for round in 0..<40 {
            let listener = Client(try ServerProcess(["--db", database.argument]))
            // Up and waiting: a request before initialize is answered -32002 at once.
            _ = try listener.response(listener.send("tasks/get", #"{"id":"x"}"#))
            let create = writer.send("tasks/create", #"{"title":"round \#(round)"}"#)
            usleep(UInt32(round) * 100)  // the timing varied on purpose: what the test explores
            let initialize = listener.send("initialize", "{}")
            _ = try writer.response(create)
            guard case .integer(let startSeq)? = try listener.response(initialize)["result"]?["database"]?["seq"],
                case .integer(let newest)? = try writer.request("tasks/fetch", #"{"limit":1}"#)["seq"]
            else { throw Client.Failure(description: "round \(round): no seq") }
            if newest > startSeq {
                let change = try listener.waitForChanges(count: 1)
                #expect(change.first?["seq"] == .integer(newest), "round \(round)")
                heard += 1
            }
            #expect(try listener.pendingChanges().isEmpty, "round \(round): a change announced twice")
            // Ended here, not left to run until the test ends: on PostgreSQL each holds two connections.
            listener.server.closeInput()
            _ = listener.server.waitForExit()
        }
        print("a commit while a server starts: \(heard) of 40 rounds committed after the seq initialize answered with, each heard")
    }

    /// SQLite only: there triggers write the change log; on PostgreSQL the store writes it,
    /// so a writer that goes around Taskline is not heard.
    @Test func aWriterThatIsNotTasklineIsHeardToo() throws {
        let database = try TestDatabase(.sqlite)
        let path = database.argument
        let a = try start(database)
        _ = try a.request("tasks/create", #"{"id":"t","title":"from taskline"}"#)
        _ = try a.waitForChanges(count: 1)
        let sqlite = ChildProcess()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [
            path, "UPDATE task SET title = 'from the sqlite3 shell', title_fold = 'from the sqlite3 shell', version = version + 1 WHERE id = 't'",
        ]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        let change = try #require(try a.waitForChanges(count: 1).first)
        #expect(change["kind"] == "updated")
        #expect(change["seq"] == 2)
        #expect(change["task"]?["title"] == "from the sqlite3 shell")
    }

    @Test(arguments: StoreKind.allCases)
    func aClientThatMissedChangesCatchesUp(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let a = try start(database)
        _ = try a.request("tasks/create", #"{"id":"first","title":"before the gap"}"#)
        let seenSeq = try #require(try a.waitForChanges(count: 1).last?["seq"])
        a.server.closeInput()
        _ = a.server.waitForExit()

        // While it is away another process makes 1,000 changes in one go.
        let b = try start(database)
        let operations = (0..<1000).map { #"{"create":{"title":"missed \#($0)"}}"# }.joined(separator: ",")
        _ = try b.request("tasks/apply", #"{"operations":[\#(operations)]}"#)

        let back = try start(database)
        var since = seenSeq
        var caught: [JSON] = []
        var calls = 0
        repeat {
            let page = try back.request("tasks/changes", #"{"since":\#(JSONWriter.string(since)),"limit":300}"#)
            caught += try #require(page["changes"]?.arrayValue)
            since = try #require(page["seq"])
            calls += 1
            if page["hasMore"] != true { break }
        } while calls < 10
        #expect(caught.count == 1000)
        #expect(caught.map { $0["seq"] } == (2...1001).map { JSON.integer(Int64($0)) })
        #expect(caught.allSatisfy { $0["kind"] == "created" && $0["task"]?["title"]?.stringValue?.hasPrefix("missed") == true })
        #expect(calls == 4)
        #expect(try back.pendingChanges().isEmpty, "changes made before initialize are not notified")
    }

    @Test(arguments: StoreKind.allCases)
    func racingIfVersionUpdatesHaveExactlyOneWinner(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let a = try start(database, ["--log-level", "error"])
        let b = try start(database, ["--log-level", "error"])
        for round in 0..<20 {
            let id = "race-\(round)"
            _ = try a.request("tasks/create", #"{"id":"\#(id)","title":"v1"}"#)
            // Both send at once, each believing it has version 1.
            let aID = a.send("tasks/update", #"{"id":"\#(id)","changes":{"title":"a wins"},"ifVersion":1}"#)
            let bID = b.send("tasks/update", #"{"id":"\#(id)","changes":{"title":"b wins"},"ifVersion":1}"#)
            let outcomes = [try a.response(aID), try b.response(bID)]
            let winners = outcomes.filter { $0["result"] != nil }
            let losers = outcomes.filter { $0["error"]?["code"] == 1002 }
            #expect(winners.count == 1 && losers.count == 1, "round \(round): \(outcomes)")
            #expect(losers.first?["error"]?["data"]?["task"]?["version"] == 2)
            #expect(try a.request("tasks/get", #"{"id":"\#(id)"}"#)["version"] == 2)
        }
    }

    /// SQLite only: the other process holds SQLite's write lock.
    @Test func aWriteWaitsOutAnotherProcesssNormalTransaction() throws {
        let database = try TestDatabase(.sqlite)
        let path = database.argument
        let a = try start(database)
        _ = try a.request("tasks/create", #"{"title":"before"}"#)
        // Used by one thread at a time: here, then in the block below.
        nonisolated(unsafe) let other = try Database(path: path)
        try other.execute("BEGIN IMMEDIATE")
        let released = DispatchSemaphore(value: 0)
        // Released once the request below is likely to wait on the lock, which nothing outside
        // the server shows: a slow machine makes it wait less, never fail.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
            try? other.execute(
                "INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, created_at, updated_at, version) VALUES ('o', 'other', 'other', '', '', 0, 0, 1, 1, 1); COMMIT"
            )
            released.signal()
        }
        // Sent while the other process holds the write lock: it waits, then succeeds.
        let created = try a.request("tasks/create", #"{"title":"after"}"#)
        #expect(created["title"] == "after")
        #expect(released.wait(timeout: .now() + 5) == .success)
        #expect(try a.request("tasks/fetch", #"{"includeTotal":true}"#)["total"] == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func serversStartingTogetherOnANewDatabaseAllServe(store: StoreKind) throws {
        for _ in 0..<5 {
            let database = try TestDatabase.fresh(store)
            let servers = try (0..<3).map { _ in try ServerProcess(["--db", database.argument]) }
            for server in servers { server.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#) }
            let ids = try servers.map { try #require(try $0.next()["result"]?["database"]?["id"]) }
            #expect(Set(ids).count == 1, "one database, one id")
            for server in servers { server.closeInput() }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRefetchTellsWhereTheChangeLogTakesOver(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let a = try start(database)
        let initialized = try start(database)
        _ = try a.request("tasks/create", #"{"title":"one"}"#)
        _ = try a.request("tasks/create", #"{"title":"two"}"#)
        let page = try initialized.request("tasks/fetch")
        #expect(page["seq"] == 2)
        #expect(try initialized.request("tasks/changes", #"{"since":2}"#)["changes"] == [])
    }

    @Test(arguments: StoreKind.allCases)
    func atomicApplyIsOneNotification(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let a = try start(database)
        let b = try start(database)
        let result = try a.request(
            "tasks/apply",
            #"{"operations":[{"create":{"id":"x","title":"x"}},{"create":{"id":"y","title":"y"}},{"update":{"id":"x","changes":{"priority":3}}}]}"#)
        #expect(result["results"]?.arrayValue?.count == 3)
        for client in [a, b] {
            let notification = try client.nextNotification()
            #expect(notification["changes"]?.arrayValue?.map { $0["seq"] } == [1, 2, 3])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func expiredHistoryTellsTheClientToRefetch(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let a = try start(database)
        for index in 0..<3 { _ = try a.request("tasks/create", #"{"title":"old \#(index)"}"#) }
        a.server.closeInput()
        _ = a.server.waitForExit()
        let b = try start(database, ["--history-days", "0"])
        let error = try b.requestError("tasks/changes", #"{"since":1}"#)
        #expect(error["code"] == 1005)
        #expect(error["data"]?["oldestSeq"] == 3, "the newest change is always kept")
        #expect(try b.request("tasks/changes", #"{"since":2}"#)["changes"]?.arrayValue?.map { $0["seq"] } == [3])
        #expect(try b.request("tasks/changes", #"{"since":3}"#)["changes"] == [])
        #expect(try b.request("tasks/fetch", #"{"includeTotal":true}"#)["total"] == 3, "pruning the log never touches tasks")
    }
}

/// A JSON-RPC client over a `ServerProcess` that keeps notifications apart from responses.
final class Client {
    let server: ServerProcess
    private var nextID = 1
    private var responses: [JSON: JSON] = [:]
    private var notifications: [JSON] = []

    init(_ server: ServerProcess) {
        self.server = server
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func send(_ method: String, _ params: String) -> JSON {
        let id = JSON.integer(Int64(nextID))
        nextID += 1
        server.sendLine(#"{"jsonrpc":"2.0","id":\#(JSONWriter.string(id)),"method":"\#(method)","params":\#(params)}"#)
        return id
    }

    func response(_ id: JSON) throws -> JSON {
        while responses[id] == nil { try receive() }
        return responses.removeValue(forKey: id)!
    }

    func request(_ method: String, _ params: String = "{}") throws -> JSON {
        let answer = try response(send(method, params))
        guard let result = answer["result"] else { throw Failure(description: "\(method) failed: \(answer)") }
        return result
    }

    func requestError(_ method: String, _ params: String) throws -> JSON {
        let answer = try response(send(method, params))
        guard let error = answer["error"] else { throw Failure(description: "\(method) succeeded: \(answer)") }
        return error
    }

    func nextNotification() throws -> JSON {
        while notifications.isEmpty { try receive() }
        return notifications.removeFirst()["params"]!
    }

    /// The next `count` changes, across as many notifications as they come in.
    func waitForChanges(count: Int) throws -> [JSON] {
        var changes: [JSON] = []
        while changes.count < count {
            changes += try nextNotification()["changes"]?.arrayValue ?? []
        }
        return changes
    }

    /// Changes already received or arriving within a short while.
    func pendingChanges() throws -> [JSON] {
        while let chunk = try? server.next(timeout: 0.2) { file(chunk) }
        defer { notifications.removeAll() }
        return notifications.flatMap { $0["params"]?["changes"]?.arrayValue ?? [] }
    }

    private func receive() throws {
        file(try server.next())
    }

    private func file(_ message: JSON) {
        if message["method"] != nil {
            notifications.append(message)
        } else if let id = message["id"] {
            responses[id] = message
        }
    }
}
