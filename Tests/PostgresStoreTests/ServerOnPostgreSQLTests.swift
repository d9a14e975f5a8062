import Foundation
import JSON
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
        // Nothing more arrives: no change is told twice. A window, since nothing coming cannot
        // be waited for: a slow machine makes it pass, never fail.
        usleep(300_000)
        let page = try a.request("tasks/fetch", #"{"limit":5,"sort":[{"field":"createdAt","order":"desc"}]}"#)
        _ = try b.request("tasks/get", #"{"id":"\#(ids[0])"}"#)
        #expect(a.changes.count == 10 && b.changes.count == 10)
        #expect(page["result"]?["tasks"]?.arrayValue?.count == 5)
        #expect(page["result"]?["nextCursor"]?.stringValue != nil)
        #expect(page["result"]?["seq"] == 10)
    }

    /// Each server's connections ended twice while two servers write (as by a restart of the
    /// cluster): a write may be answered 1004 and go through when sent again, and each client
    /// still hears every change exactly once, in seq order.
    @Test func serversWhoseConnectionsAreLostMissNothingAndRepeatNothing() throws {
        let connectionString = try Cluster.freshSchema()
        let name = "outage_\(UInt32.random(in: 0...UInt32.max))"
        let clients = try (0..<2).map { _ in Client(try start(connectionString + " application_name=\(name)")) }
        var written = 0
        var refused = 0
        for round in 0..<3 {
            for client in clients {
                for _ in 0..<10 {
                    var answer = try client.request("tasks/create", #"{"title":"round \#(round)"}"#)
                    // Sent again until the server is back, however long that takes here.
                    if answer["result"] == nil { refused += 1 }
                    let deadline = Date().addingTimeInterval(60)
                    while answer["result"] == nil, Date() < deadline {
                        #expect(answer["error"]?["code"] == 1004)
                        usleep(50_000)
                        answer = try client.request("tasks/create", #"{"title":"round \#(round)"}"#)
                    }
                    #expect(answer["result"] != nil)
                    written += 1
                }
            }
            if round < 2 {
                let ended = try PostgresConnection(connectionString).query(
                    """
                    SELECT count(pg_terminate_backend(pid, 30000)) AS n FROM pg_stat_activity WHERE application_name = $1
                    """, [.text(name)])[0].int("n")
                #expect(ended == 4)  // each server's own connection and its listener's
            }
        }
        #expect(refused <= 4, "writes refused: at most one for each lost connection")
        for client in clients {
            let seqs = try client.waitForChanges(count: written).map { $0["seq"] }
            #expect(seqs == (1...written).map { JSON.integer(Int64($0)) })
        }
        usleep(300_000)
        for client in clients { _ = try client.request("tasks/fetch", #"{"limit":1}"#) }
        #expect(clients.allSatisfy { $0.changes.count == written })
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

    /// `taskline export --db FILE | taskline import - --db postgresql://…` and back again keep
    /// every field: each export is the same, byte for byte.
    @Test func tasksMoveFromSQLiteToPostgreSQLAndBackWithEveryField() throws {
        let directory = TemporaryDirectory()
        let records = [
            #"{"id":"a","title":"Plan","notes":"two\nlines é","done":true,"priority":2,"tags":["x","y"],"due":"2026-12-01T17:00:00.5+01:00","project":"Home.Garage","wait":"2026-11-30","meta":{"k":[1,2]},"remindAt":"2026-12-01T08:00:00Z","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-02T00:00:00Z","completedAt":"2026-01-02T00:00:00Z","version":7}"#,
            #"{"id":"b","title":"After the plan","dependsOn":["a","c"],"createdAt":"2026-01-03T00:00:00Z","version":2}"#,
            #"{"id":"c","title":"Weekly","due":"2026-12-07","recurrence":{"rule":"FREQ=WEEKLY"},"createdAt":"2026-01-04T00:00:00Z"}"#,
        ]
        let first = directory.file("first.sqlite")
        #expect(try runTaskline(["import", "-", "--db", first], stdin: Data(records.joined(separator: "\n").utf8)).status == 0)
        let fromSQLite = try runTaskline(["export", "--db", first])
        #expect(fromSQLite.status == 0 && fromSQLite.lines.count == 3)

        let postgres = try Cluster.freshSchema()
        let imported = try runTaskline(["import", "-", "--db", postgres], stdin: fromSQLite.stdout)
        #expect(imported.status == 0, "\(imported.stderr)")
        let fromPostgreSQL = try runTaskline(["export", "--db", postgres])
        #expect(fromPostgreSQL.status == 0)
        #expect(fromPostgreSQL.output == fromSQLite.output)

        let second = directory.file("second.sqlite")
        #expect(try runTaskline(["import", "-", "--db", second], stdin: fromPostgreSQL.stdout).status == 0)
        #expect(try runTaskline(["export", "--db", second]).output == fromSQLite.output)

        // Imported again with --on-conflict fail, nothing is: every id exists.
        let again = try runTaskline(["import", "-", "--db", postgres], stdin: fromSQLite.stdout)
        #expect(again.status != 0)
        #expect(try runTaskline(["export", "--db", postgres]).output == fromSQLite.output)
    }

    @Test func exportingASchemaWithoutTasklinesTablesExits3() throws {
        let result = try runTaskline(["export", "--db", try Cluster.freshSchema()])
        #expect(result.status == 3)
        #expect(result.stderr.contains("no Taskline tables"))
    }

    @Test func sqliteOptionsRefuseAPostgreSQLDatabase() throws {
        let connectionString = try Cluster.freshSchema()
        let server = try ServerProcess(["--db", connectionString, "--durability", "normal"])
        #expect(server.waitForExit() == 2)
    }
}
