import PostgreSQL
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(Cluster.available) struct ConnectionLossTests {
    @Test func aTerminatedConnectionIsDetectedAndResetReconnects() throws {
        let db = try Cluster.connect()
        let oldPID = db.backendPID
        try Cluster.terminate(db)

        let error = try #require(throws: PostgresError.self) { try db.query("SELECT 1 AS one") }
        #expect(error.connectionLost)
        #expect(error.isRetryable)
        #expect(db.status == .bad)

        try db.reset()
        #expect(db.status == .ok)
        #expect(db.backendPID != oldPID)
        #expect(try db.query("SELECT 1 AS one")[0].int("one") == 1)
    }

    /// A listening connection learns of the loss from its socket, without sending anything.
    @Test func aListenerSeesTheLossOnItsSocket() throws {
        let listener = try Cluster.connect()
        let channel = "lost \(listener.backendPID)"
        try listener.listen(channel)
        try Cluster.terminate(listener)

        var descriptor = pollfd(fd: listener.socket, events: Int16(POLLIN), revents: 0)
        try #require(poll(&descriptor, 1, 30_000) == 1, "the socket never became readable")
        // The server's last words (57P01) may come first; reading past them finds the end.
        var lost: PostgresError?
        for _ in 0..<2 where lost == nil {
            do { try listener.consumeInput() } catch let error as PostgresError { lost = error }
        }
        #expect(lost?.connectionLost == true)
        #expect(listener.status == .bad)

        // A reset opens a new session: the old LISTEN is gone and must be made again.
        try listener.reset()
        try listener.listen(channel)
        try Cluster.connect().notify(channel, payload: "again")
        var again = listener.notifications()
        while again.isEmpty {
            descriptor = pollfd(fd: listener.socket, events: Int16(POLLIN), revents: 0)
            try #require(poll(&descriptor, 1, 30_000) == 1, "the socket never became readable")
            try listener.consumeInput()
            again = listener.notifications()
        }
        #expect(again.map(\.payload) == ["again"])
    }
}
