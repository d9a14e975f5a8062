import PostgreSQL
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(Cluster.available) struct NotificationTests {
    /// Waits for `count` notifications as an event loop would: until the socket is readable,
    /// then reads what came. The timeout only keeps a broken test from hanging.
    func receive(_ count: Int, on connection: PostgresConnection) throws -> [PostgresNotification] {
        var received = connection.notifications()
        while received.count < count {
            var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
            try #require(poll(&descriptor, 1, 30_000) == 1, "the socket never became readable")
            try connection.consumeInput()
            received += connection.notifications()
        }
        return received
    }

    @Test func notificationsArriveThroughTheSocketOnCommitOnly() throws {
        let listener = try Cluster.connect()
        let sender = try Cluster.connect()
        let channel = "changes \(listener.backendPID)"
        try listener.listen(channel)
        #expect(listener.notifications().isEmpty)

        try sender.transaction {
            try sender.notify(channel)
            try sender.notify(channel)
            try sender.notify(channel, payload: "other")
        }
        let received = try receive(2, on: listener)
        // Two of the same channel and payload in one transaction arrive once.
        #expect(received.map(\.payload) == ["", "other"])
        #expect(received.allSatisfy { $0.channel == channel && $0.senderPID == sender.backendPID })

        // A rolled-back transaction notifies nobody: the next one to arrive is the one after.
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try sender.transaction {
                try sender.notify(channel, payload: "rolled back")
                throw Abort()
            }
        }
        try sender.notify(channel, payload: "after")
        #expect(try receive(1, on: listener).map(\.payload) == ["after"])
    }

    @Test func unlistenStopsDelivery() throws {
        let listener = try Cluster.connect()
        let sender = try Cluster.connect()
        let (quiet, loud) = ("quiet \(listener.backendPID)", "loud \(listener.backendPID)")
        try listener.listen(quiet)
        try listener.listen(loud)
        try listener.unlisten(quiet)
        try sender.notify(quiet, payload: "unheard")
        try sender.notify(loud, payload: "heard")
        #expect(try receive(1, on: listener).map(\.payload) == ["heard"])
    }
}
