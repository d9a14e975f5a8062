import Foundation
import JSON
import TestSupport
import Testing

/// A server that only listens hears every burst of another process's writes: its watcher
/// reports once per burst and must be re-armed each time it looks, or every burst after the
/// first would go unheard. The listener sends nothing after `initialize`, so nothing but the
/// watcher can tell it of a change.
@Suite struct WatcherBurstTests {
    @Test(arguments: StoreKind.allCases)
    func aListeningServerHearsEveryBurstOfAnothersWrites(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let listener = Client(try ServerProcess(["--db", database.argument]))
        _ = try listener.request("initialize", #"{"clientInfo":{"name":"listener"}}"#)
        let writer = Client(try ServerProcess(["--db", database.argument]))
        _ = try writer.request("initialize", #"{"initializationOptions":{"notifications":false}}"#)

        var heard = 0
        // Bursts of different sizes, sent all at once (committed together) or one at a time.
        for (burst, size) in [1, 6, 2, 15, 1, 9, 3].enumerated() {
            var created: [String] = []
            if burst % 2 == 0 {
                let ids = (0..<size).map { writer.send("tasks/create", #"{"title":"burst \#(burst) #\#($0)"}"#) }
                for id in ids { created.append(try #require(try writer.response(id)["result"]?["id"]?.stringValue)) }
            } else {
                for index in 0..<size {
                    created.append(try #require(try writer.request("tasks/create", #"{"title":"burst \#(burst) #\#(index)"}"#)["id"]?.stringValue))
                }
            }
            // The writer's responses are the oracle: these tasks, in this order, numbered on.
            let changes = try listener.waitForChanges(count: size)
            #expect(changes.map { $0["id"]?.stringValue ?? "" } == created, "burst \(burst)")
            #expect(changes.map { $0["seq"] } == (heard + 1...heard + size).map { JSON.integer(Int64($0)) }, "burst \(burst)")
            heard += size
        }
        #expect(try listener.pendingChanges().isEmpty)
    }
}
