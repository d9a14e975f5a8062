import Foundation
import JSON
import PostgreSQL
import TestSupport
import Testing

/// The real binary cut off from its database, as by a stopped cluster or a network that
/// drops, while other servers go on using it. Each server under test reaches the test
/// cluster through a path of its own (`SocketPath`), so that cutting it stops no other test.
@Suite(Cluster.available) struct OutageTests {
    typealias Client = ServerOnPostgreSQLTests.Client

    /// Cut off, a server answers every request at once with a retryable 1004 and keeps
    /// answering; once the database is back it serves again without a restart, and its
    /// client hears of the changes another server made meanwhile, once each.
    @Test func aServerCutOffAnswersAtOnceAndCatchesUpOnceBack() throws {
        let server = try CutOffServer()
        let (cutOff, other) = (server.client, try Self.start(server.connectionString))
        let first = try #require(try cutOff.request("tasks/create", #"{"title":"before"}"#)["result"]?["id"]?.stringValue)

        server.path.cut()
        #expect(try server.endSessions() == 2)
        for (method, params) in [
            ("tasks/get", #"{"id":"\#(first)"}"#), ("tasks/fetch", #"{"limit":5}"#),
            ("tasks/create", #"{"title":"refused"}"#), ("tasks/get", #"{"id":"\#(first)"}"#),
        ] {
            Self.expectUnreachable(try cutOff.request(method, params))
        }
        var theirs: [String] = []
        for title in ["theirs 1", "theirs 2"] {
            theirs.append(try #require(try other.request("tasks/create", #"{"title":"\#(title)"}"#)["result"]?["id"]?.stringValue))
        }

        server.path.restore()
        // No request drives the reconnecting: the client is told of the missed changes.
        let heard = try cutOff.waitForChanges(count: 3)
        #expect(heard.map { $0["seq"] } == [1, 2, 3])
        #expect(heard.map { $0["id"]?.stringValue } == [first] + theirs)
        #expect(try cutOff.request("tasks/get", #"{"id":"\#(theirs[1])"}"#)["result"]?["title"] == "theirs 2")
        usleep(300_000)  // a window for a change told twice, which cannot be waited for
        _ = try cutOff.request("tasks/fetch", #"{"limit":1}"#)
        #expect(cutOff.changes.count == 3)
    }

    /// Only the store's own connection lost, its listener still hearing others' commits: the
    /// change log cannot be read meanwhile, so the client hears of those changes once the
    /// store's connection is back, without a request or another commit to prompt it.
    @Test func aServerWhoseOwnConnectionAloneIsLostCatchesUpOnceBack() throws {
        let server = try CutOffServer()
        let (cutOff, other) = (server.client, try Self.start(server.connectionString))

        server.path.cut()
        #expect(try server.endSessions(listening: false) == 1)
        let theirs = try #require(try other.request("tasks/create", #"{"title":"theirs"}"#)["result"]?["id"]?.stringValue)
        // Time for the listener to hear it, and for the server to fail to read it, which
        // nothing outside the server shows: a slow machine makes it pass, never fail.
        usleep(300_000)
        server.path.restore()
        let heard = try cutOff.waitForChanges(count: 1)
        #expect(heard.map { $0["id"]?.stringValue } == [theirs])
    }

    /// The cluster stopped (as for maintenance): the server answers at once and keeps
    /// answering; once the cluster is started again it serves without a restart.
    @Test func aServerOutlivesAStoppedCluster() throws {
        let cluster = try PrivateCluster()
        let client = try Self.start(cluster.connectionString)
        let id = try #require(try client.request("tasks/create", #"{"title":"kept"}"#)["result"]?["id"]?.stringValue)

        try cluster.stop()
        for (method, params) in [("tasks/get", #"{"id":"\#(id)"}"#), ("tasks/fetch", #"{"limit":5}"#), ("tasks/create", #"{"title":"refused"}"#)] {
            Self.expectUnreachable(try client.request(method, params))
        }

        try cluster.start()
        var answer = try client.request("tasks/create", #"{"title":"after"}"#)
        let deadline = Date().addingTimeInterval(30)
        while answer["result"] == nil, Date() < deadline {
            Self.expectUnreachable(answer)
            usleep(100_000)
            answer = try client.request("tasks/create", #"{"title":"after"}"#)
        }
        #expect(answer["result"]?["title"] == "after")
        #expect(try client.request("tasks/fetch", #"{"limit":5}"#)["result"]?["tasks"]?.arrayValue?.count == 2)
        #expect(client.server.process.isRunning)
    }

    /// A reconnection that hangs (the server takes the connection and never answers) blocks
    /// nothing: requests are answered meanwhile, and the server is back once the path is.
    @Test func aHangingReconnectionLeavesTheServerAnswering() throws {
        let server = try CutOffServer()
        let client = server.client
        let id = try #require(try client.request("tasks/create", #"{"title":"kept"}"#)["result"]?["id"]?.stringValue)

        try server.path.hang()
        #expect(try server.endSessions() == 2)
        for _ in 0..<3 {
            Self.expectUnreachable(try client.request("tasks/get", #"{"id":"\#(id)"}"#))
        }

        server.path.restore()
        var answer = try client.request("tasks/get", #"{"id":"\#(id)"}"#)
        // Past the time limit of the attempt that hung, at the latest.
        let deadline = Date().addingTimeInterval(30)
        while answer["result"] == nil, Date() < deadline {
            Self.expectUnreachable(answer)
            usleep(100_000)
            answer = try client.request("tasks/get", #"{"id":"\#(id)"}"#)
        }
        #expect(answer["result"]?["title"] == "kept")
    }

    static func start(_ connectionString: String) throws -> Client {
        let server = try ServerProcess(["--db", connectionString])
        #expect(try server.initialize()["result"] != nil)
        return Client(server)
    }

    /// A server on a fresh schema that reaches the cluster through a `SocketPath` of its own.
    struct CutOffServer {
        let connectionString: String
        let path: SocketPath
        /// Its sessions' `application_name`.
        let name = "outage_\(UInt32.random(in: 0...UInt32.max))"
        let client: Client

        init() throws {
            connectionString = try Cluster.freshSchema()
            path = try SocketPath()
            client = try OutageTests.start(connectionString + " host=\(path.folder) application_name=\(name)")
        }

        /// Ends its sessions' server processes, as a restart of the cluster would (with
        /// `listening` false, all but the one that listens); returns how many there were.
        func endSessions(listening: Bool = true) throws -> Int {
            try PostgresConnection(connectionString).query(
                """
                SELECT count(pg_terminate_backend(pid, 30000)) AS n FROM pg_stat_activity
                WHERE application_name = $1 AND ($2 OR query NOT LIKE 'LISTEN%')
                """, [.text(name), .boolean(listening)])[0].int("n")
        }
    }

    static func expectUnreachable(_ answer: JSON, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = answer["error"]
        #expect(error?["code"] == 1004, "\(answer)", sourceLocation: sourceLocation)
        #expect(error?["data"]?["retryable"] == true, sourceLocation: sourceLocation)
        #expect(
            error?["data"]?["message"]?.stringValue?.contains("the database is unreachable; a retry may succeed") == true,
            sourceLocation: sourceLocation)
    }
}

/// A folder whose `.s.PGSQL.5432` leads to the test cluster's socket, as a network path leads
/// to a server: cut (no socket there, as when the cluster is stopped), hanging (a socket that
/// takes connections and never answers), or restored.
final class SocketPath {
    private let directory = TemporaryDirectory()
    private var listening: Int32 = -1

    var folder: String { directory.path }
    private var socket: String { directory.file(".s.PGSQL.5432") }

    init() throws {
        restore()
    }

    deinit {
        cut()
    }

    func cut() {
        if listening >= 0 {
            // The connections it never took are reset.
            close(listening)
            listening = -1
        }
        unlink(socket)
    }

    func restore() {
        cut()
        let cluster = (ProcessInfo.processInfo.environment["PGHOST"] ?? "") + "/.s.PGSQL.5432"
        precondition(symlink(cluster, socket) == 0, "symlink: \(String(cString: strerror(errno)))")
    }

    func hang() throws {
        cut()
        listening = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in socket.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(listening, 64) == 0, "cannot listen on \(socket): \(String(cString: strerror(errno)))")
    }
}

/// A cluster of its own, made by scripts/with-postgres, for a test that stops and starts it
/// while the shared one goes on serving the tests beside; removed when the value goes away.
/// A shell inside scripts/with-postgres runs pg_ctl for it, one command a line: a server
/// that pg_ctl starts then holds none of this process's descriptors.
final class PrivateCluster {
    private(set) var connectionString = ""
    private let process = ChildProcess()
    private let input = Pipe.closedOnExec()
    private let output = Pipe.closedOnExec()
    /// What was read of the shell's output past the last line taken.
    private var pending = Data()

    private static let shell = #"""
        echo "$TASKLINE_TEST_POSTGRES"
        while read -r command; do
            case $command in
                stop) "$TASKLINE_TEST_PG_CTL" stop -m fast ;;
                start) "$TASKLINE_TEST_PG_CTL" start -o "-c listen_addresses='' -c unix_socket_directories='$PGHOST'" ;;
            esac </dev/null >/dev/null 2>&1 && echo done || echo failed
        done
        """#

    init() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        process.executableURL = root.appendingPathComponent("scripts/with-postgres")
        process.arguments = ["sh", "-c", Self.shell]
        process.standardInput = .pipe(input)
        process.standardOutput = .pipe(output)
        try process.run()
        connectionString = try #require(readLine(), "scripts/with-postgres did not start a cluster")
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    func stop() throws {
        try run("stop")
    }

    /// Starts the stopped cluster as scripts/with-postgres did: on its folder's socket only.
    func start() throws {
        try run("start")
    }

    private func run(_ command: String) throws {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        let answer = readLine()
        try #require(answer == "done", "pg_ctl \(command): \(answer ?? "no answer")")
    }

    private func readLine() -> String? {
        while true {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                defer { pending.removeSubrange(...end) }
                return String(decoding: pending[..<end], as: UTF8.self)
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            pending.append(chunk)
        }
    }
}
