import Foundation
import JSON
import TestSupport
import Testing

/// `tasks/remind` from the real binary: reminders that come due while a server runs, and
/// those that passed while none sent them, at most once per database whatever the number of
/// servers and restarts. No timing targets: reminders are set a second or two ahead, and the
/// tests wait for those expected (a minute at most, which only a failure reaches) and assert
/// what came, in what order, and that nothing more came within a window after.
@Suite struct ReminderTests {
    static let remindersOn = #"{"initializationOptions":{"notifications":false,"reminders":true}}"#
    static let remindersOff = #"{"initializationOptions":{"notifications":false}}"#

    @Test(arguments: StoreKind.allCases)
    func aReminderComesWhenItsTimePassesOnceAndOnlyForOpenTasks(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try start(database, Self.remindersOn)
        // Ahead by enough for the writes below to come first on a busy machine.
        let at = time(secondsFromNow: 3)
        try create(server, id: "open", remindAt: at)
        try create(server, id: "done", remindAt: at, done: true)
        try create(server, id: "deleted", remindAt: at)
        try create(server, id: "moved", remindAt: at)
        try create(server, id: "none", remindAt: nil)
        #expect(try server.call("tasks/delete", #"{"id":"deleted"}"#)["result"]?["deleted"] == true)
        try update(server, id: "moved", remindAt: time(secondsFromNow: 3600))

        let reminders = try server.reminders(count: 1)
        #expect(reminders.map(\.ids) == [["open"]])
        // Not before its time, by the clock the reminder is set on.
        #expect(try #require(reminders.first).arrived >= Date(timeIntervalSince1970: try #require(Self.parse(at))))
    }

    @Test(arguments: StoreKind.allCases)
    func aClientThatDidNotAskGetsNone(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try start(database, Self.remindersOff)
        try create(server, id: "soon", remindAt: time(secondsFromNow: 1))
        try create(server, id: "past", remindAt: "2000-01-01T00:00:00Z")
        #expect(try server.reminders(within: 4).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func anUpdateMovesTheTimer(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try start(database, Self.remindersOn)
        try create(server, id: "far", remindAt: time(secondsFromNow: 7200))
        try update(server, id: "far", remindAt: time(secondsFromNow: 1.5))
        #expect(try server.reminders(count: 1).map(\.ids) == [["far"]])
    }

    /// Reminders that passed while no server sent them are sent by the next server that
    /// starts for a client that asks, and by no server after it.
    @Test(arguments: StoreKind.allCases)
    func pastRemindersAtStartAreSentOnceAcrossRestarts(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let writer = try start(database, Self.remindersOff)
        try create(writer, id: "first", remindAt: "2001-01-01T00:00:00Z")
        try create(writer, id: "second", remindAt: "2000-01-01T00:00:00Z")
        try create(writer, id: "finished", remindAt: "2000-01-01T00:00:00Z", done: true)
        try stop(writer)

        let first = try start(database, Self.remindersOn)
        #expect(try first.reminders(count: 1).map(\.ids) == [["second", "first"]])
        try stop(first)

        let again = try start(database, Self.remindersOn)
        #expect(try again.reminders(within: 2).isEmpty)
        try stop(again)
    }

    /// Two servers on one database, both asking for reminders: each past and each coming reminder
    /// reaches exactly one of the two clients.
    @Test(arguments: StoreKind.allCases)
    func twoServersAtOnceSendEachReminderOnce(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let writer = try start(database, Self.remindersOff)
        for index in 0..<20 { try create(writer, id: "past-\(index)", remindAt: "2000-01-01T00:00:\(10 + index)Z") }
        try stop(writer)

        let a = try start(database, Self.remindersOn)
        let b = try start(database, Self.remindersOn)
        let at = time(secondsFromNow: 2)
        for index in 0..<5 { try create(a, id: "coming-\(index)", remindAt: at) }

        let expected = (0..<20).map { "past-\($0)" } + (0..<5).map { "coming-\($0)" }
        var sent: [String] = []
        let deadline = Date().addingTimeInterval(60)
        while sent.count < expected.count, Date() < deadline {
            sent += try a.reminders(within: 0.1).flatMap(\.ids) + b.reminders(within: 0.1).flatMap(\.ids)
        }
        sent += try a.reminders(within: 0.5).flatMap(\.ids) + b.reminders(within: 0.5).flatMap(\.ids)
        #expect(sent.sorted() == expected.sorted())
        try stop(a)
        try stop(b)
        let restarted = try start(database, Self.remindersOn)
        #expect(try restarted.reminders(within: 2).isEmpty)
    }

    /// The timer follows other processes' writes, which the server hears through its watch
    /// on the database: a reminder they add, move or delete. Each comes in a notification of
    /// its own, well before the server's own timer (set to the deleted one) would have fired.
    @Test(arguments: StoreKind.allCases)
    func anotherProcessesChangesMoveTheTimer(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try start(database, Self.remindersOn)
        try create(server, id: "cancelled", remindAt: time(secondsFromNow: 6))
        try create(server, id: "pulled-in", remindAt: time(secondsFromNow: 7200))

        let other = try start(database, Self.remindersOff)
        #expect(try other.call("tasks/delete", #"{"id":"cancelled"}"#)["result"]?["deleted"] == true)
        try update(other, id: "pulled-in", remindAt: time(secondsFromNow: 2))
        try create(other, id: "added", remindAt: time(secondsFromNow: 4))

        #expect(try server.reminders(count: 2).map(\.ids) == [["pulled-in"], ["added"]])
        #expect(try other.reminders(within: 0.5).isEmpty)
    }

    // MARK: - Helpers

    struct Reminder {
        var ids: [String]
        var arrived: Date
    }

    struct Unexpected: Error, CustomStringConvertible {
        let description: String
    }

    /// A server and the reminders it has sent, including those that came while the test
    /// waited for an answer.
    final class Client {
        let server: ServerProcess
        private var pending: [Reminder] = []
        private var nextID = 1

        init(_ server: ServerProcess) {
            self.server = server
        }

        /// Sends a request and returns its answer.
        func call(_ method: String, _ params: String? = nil) throws -> JSON {
            nextID += 1
            server.sendLine(#"{"jsonrpc":"2.0","id":\#(nextID),"method":"\#(method)""# + (params.map { #","params":\#($0)"# } ?? "") + "}")
            while true {
                let message = try server.next()
                if message["id"] == .integer(Int64(nextID)) { return message }
                try take(message)
            }
        }

        /// Every reminder that came so far, and those that come until there are `count`
        /// (within a minute), and within `window` seconds after.
        func reminders(count: Int, window: Double = 0.5) throws -> [Reminder] {
            let deadline = Date().addingTimeInterval(60)
            while pending.count < count {
                let left = deadline.timeIntervalSinceNow
                guard left > 0, let message = try? server.next(timeout: left) else { break }
                try take(message)
            }
            return try reminders(within: window)
        }

        /// Every reminder that came so far, and those that come within `seconds`; anything
        /// else the server writes is a failure.
        func reminders(within seconds: Double) throws -> [Reminder] {
            let deadline = Date().addingTimeInterval(seconds)
            while true {
                let left = deadline.timeIntervalSinceNow
                guard left > 0, let message = try? server.next(timeout: left) else { break }
                try take(message)
            }
            defer { pending = [] }
            return pending
        }

        private func take(_ message: JSON) throws {
            guard message["method"] == "tasks/remind", let tasks = message["params"]?["tasks"]?.arrayValue else {
                throw Unexpected(description: "expected tasks/remind, got \(JSONWriter.string(message))")
            }
            for task in tasks { #expect(task["done"] == false) }
            // A server that sends reminders over and over would keep `call` from its answer.
            guard pending.count < 1000 else { throw Unexpected(description: "more than 1000 tasks/remind") }
            pending.append(Reminder(ids: tasks.compactMap { $0["id"]?.stringValue }, arrived: Date()))
        }
    }

    func start(_ database: TestDatabase, _ initializeParams: String) throws -> Client {
        let client = Client(try ServerProcess(["--db", database.argument]))
        let answer = try client.call("initialize", initializeParams)
        #expect(answer["result"] != nil, "\(JSONWriter.string(answer))")
        return client
    }

    func stop(_ client: Client) throws {
        #expect(try client.call("shutdown")["result"] == .null)
        client.server.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(client.server.waitForExit() == 0)
    }

    func create(_ client: Client, id: String, remindAt: String?, done: Bool = false) throws {
        let remind = remindAt.map { #","remindAt":"\#($0)""# } ?? ""
        let answer = try client.call("tasks/create", #"{"id":"\#(id)","title":"\#(id)","done":\#(done)\#(remind)}"#)
        #expect(answer["result"]?["remindAt"] == (remindAt.map(JSON.string) ?? .null), "\(JSONWriter.string(answer))")
    }

    func update(_ client: Client, id: String, remindAt: String) throws {
        let answer = try client.call("tasks/update", #"{"id":"\#(id)","changes":{"remindAt":"\#(remindAt)"}}"#)
        #expect(answer["result"]?["remindAt"] == .string(remindAt), "\(JSONWriter.string(answer))")
    }

    func time(secondsFromNow seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date().addingTimeInterval(seconds))
    }

    static func parse(_ text: String) -> TimeInterval? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)?.timeIntervalSince1970
    }
}
