import Foundation
import JSONRPC
import PostgreSQL
import TestSupport
import Testing

/// The real binary with `--db` naming a PostgreSQL database.
@Suite(Cluster.available) struct ServerOnPostgreSQLTests {
    func start(_ connectionString: String) throws -> ServerProcess {
        let server = try ServerProcess(["--db", connectionString])
        #expect(try server.initialize()["result"] != nil)
        return server
    }

    /// A client of one server: its answers, and the changes it was told of meanwhile.
    final class Client {
        let server: ServerProcess
        var changes: [JSON] = []
        var nextID = 0

        init(_ server: ServerProcess) {
            self.server = server
        }

        func request(_ method: String, _ params: String) throws -> JSON {
            nextID += 1
            server.sendLine(#"{"jsonrpc":"2.0","id":\#(nextID),"method":"\#(method)","params":\#(params)}"#)
            while true {
                let message = try server.next()
                if message["id"] == .integer(Int64(nextID)) { return message }
                record(message)
            }
        }

        func waitForChanges(count: Int) throws -> [JSON] {
            while changes.count < count { record(try server.next()) }
            return changes
        }

        private func record(_ message: JSON) {
            if message["method"] == "tasks/didChange" { changes += message["params"]?["changes"]?.arrayValue ?? [] }
        }
    }

    /// Two servers on one database, as on two machines: each client hears every change,
    /// its own and the other's, once and in seq order.
    @Test func twoServersHearEachOthersChanges() throws {
        let connectionString = try Cluster.freshSchema()
        let a = Client(try start(connectionString))
        let b = Client(try start(connectionString))
        var ids: [String] = []
        for round in 0..<10 {
            let writer = round % 2 == 0 ? a : b
            let created = try writer.request("tasks/create", #"{"title":"round \#(round)"}"#)
            ids.append(try #require(created["result"]?["id"]?.stringValue))
        }
        for client in [a, b] {
            let changes = try client.waitForChanges(count: 10)
            #expect(changes.map { $0["seq"] } == (1...10).map { JSON.integer(Int64($0)) })
            #expect(changes.map { $0["id"]?.stringValue } == ids)
        }
        // Nothing more arrives: no change is told twice.
        usleep(300_000)
        let page = try a.request("tasks/fetch", #"{"limit":5,"sort":[{"field":"createdAt","order":"desc"}]}"#)
        _ = try b.request("tasks/get", #"{"id":"\#(ids[0])"}"#)
        #expect(a.changes.count == 10 && b.changes.count == 10)
        #expect(page["result"]?["tasks"]?.arrayValue?.count == 5)
        #expect(page["result"]?["nextCursor"]?.stringValue != nil)
        #expect(page["result"]?["seq"] == 10)
    }

    @Test func whatTheStoreDoesNotServeIsAnsweredWith1008() throws {
        let server = try start(try Cluster.freshSchema())
        let undo = try server.call(1, "tasks/undo", "{}")
        #expect(undo["error"]?["code"] == 1008)
        #expect(undo["error"]?["data"]?["feature"] == "tasks/undo")
        #expect(undo["error"]?["data"]?["store"] == "postgresql")
        let recurring = try server.call(2, "tasks/create", #"{"title":"Weekly","due":"2026-12-01","recurrence":{"rule":"FREQ=WEEKLY"}}"#)
        #expect(recurring["error"]?["code"] == 1008)
        // The server goes on.
        #expect(try server.call(3, "tasks/create", #"{"title":"Once"}"#)["result"]?["version"] == 1)
    }

    @Test func aPasswordInTheAddressIsNeverPrinted() throws {
        let server = try ServerProcess(["--db", "postgresql://taskline:Kw7Secret@/taskline_test?host=/nonexistent-folder"])
        #expect(server.waitForExit() == 3)
        #expect(server.stderr.contains("postgresql://taskline:***@"))
        #expect(!server.stderr.contains("Kw7Secret"))
    }

    @Test func tablesOfAnotherApplicationExit3() throws {
        let connectionString = try Cluster.freshSchema()
        try PostgresConnection(connectionString).execute("CREATE TABLE change_log (id serial)")
        let server = try ServerProcess(["--db", connectionString])
        #expect(server.waitForExit() == 3)
        #expect(server.stderr.contains("Taskline will not touch it"))
    }

    @Test func theCommandsAndSQLiteOptionsRefuseAPostgreSQLDatabase() throws {
        let connectionString = try Cluster.freshSchema()
        let result = try runTaskline(["add", "x", "--db", connectionString])
        #expect(result.status == 3)
        #expect(result.stderr.contains("SQLite files"))
        let server = try ServerProcess(["--db", connectionString, "--durability", "normal"])
        #expect(server.waitForExit() == 2)
    }
}
