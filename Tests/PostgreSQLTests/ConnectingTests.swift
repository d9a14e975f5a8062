import PostgreSQL
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Opening and reopening a connection step by step, as an event loop would, waiting on the
/// socket with poll(2) between steps.
@Suite(Cluster.available) struct ConnectingTests {
    /// Takes `connection` from its first wait (for writing) to connected; returns the steps.
    @discardableResult
    func finishConnecting(_ connection: PostgresConnection) throws -> Int {
        var progress = PostgresConnection.ConnectingProgress.waitingToWrite
        var steps = 0
        while progress != .connected {
            #expect(connection.status == .connecting)
            let events = progress == .waitingToRead ? POLLIN : POLLOUT
            var descriptor = pollfd(fd: connection.socket, events: Int16(events), revents: 0)
            // The timeout only keeps a broken test from hanging.
            try #require(poll(&descriptor, 1, 30_000) == 1, "the socket never became ready")
            progress = try connection.continueConnecting()
            steps += 1
            try #require(steps < 100, "connecting goes round in circles")
        }
        return steps
    }

    @Test func connectsStepByStep() throws {
        let db = try PostgresConnection.startConnecting(try #require(Cluster.connectionString))
        // At least the start-up packet out and the server's answer in.
        #expect(try finishConnecting(db) >= 2)
        #expect(db.status == .ok)
        #expect(try db.query("SELECT current_user AS name")[0].text("name") == "taskline")
    }

    @Test func aServerThatIsNotThereFailsTheConnecting() throws {
        let error = try #require(throws: PostgresError.self) {
            let db = try PostgresConnection.startConnecting("host=\(Cluster.socketFolder)/nowhere user=taskline dbname=taskline_test")
            try finishConnecting(db)
        }
        #expect(error.connectionLost)
        #expect(error.message.contains("nowhere"))
    }

    @Test func aLostConnectionIsReopenedStepByStep() throws {
        let db = try Cluster.connect()
        let oldPID = db.backendPID
        try Cluster.terminate(db)
        #expect(throws: PostgresError.self) { try db.query("SELECT 1") }

        try db.startReset()
        try finishConnecting(db)
        #expect(db.status == .ok)
        #expect(db.backendPID != oldPID)
        #expect(try db.query("SELECT 1 AS one")[0].int("one") == 1)
    }
}
