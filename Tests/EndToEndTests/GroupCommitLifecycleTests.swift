import Foundation
import JSON
import TestSupport
import Testing

/// Writes that arrive together are committed together (group commit), on a path of their
/// own: the lifecycle holds there too. Each write of a run that comes before `initialize`
/// gets -32002 and one after `shutdown` gets -32600, and none of them is stored.
@Suite struct GroupCommitLifecycleTests {
    private static func creates(_ ids: ClosedRange<Int>) -> String {
        ids.map { #"{"jsonrpc":"2.0","id":\#($0),"method":"tasks/create","params":{"title":"early \#($0)"}}"# + "\n" }.joined()
    }

    private static func storedTitles(_ database: TestDatabase) throws -> [String] {
        let export = try runTaskline(["export", "--db", database.argument])
        #expect(export.status == 0, "\(export.stderr)")
        return try export.lines.map { try JSONParser.parse(Array($0.utf8))["title"]?.stringValue ?? "" }
    }

    @Test(arguments: StoreKind.allCases)
    func writesInOneReadBeforeInitializeAreRefusedEachAndStoreNothing(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument])
        server.write(Self.creates(1...8))  // one write: the server reads them together
        for id in 1...8 {
            let response = try server.next()
            #expect(response["id"] == .integer(Int64(id)))
            #expect(response["error"]?["code"] == .integer(-32002), "\(response)")
        }
        try server.initialize()
        #expect(try server.call(9, "tasks/fetch", "{}")["result"]?["tasks"]?.arrayValue?.count == 0)
        server.sendLine(#"{"jsonrpc":"2.0","id":10,"method":"shutdown"}"#)
        _ = try server.next()
        server.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(server.waitForExit() == 0)
        #expect(try Self.storedTitles(database) == [])
    }

    @Test(arguments: StoreKind.allCases)
    func writesInOneReadAfterShutdownAreRefusedEachAndStoreNothing(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument])
        try server.initialize(#"{"initializationOptions":{"notifications":false}}"#)
        server.write(#"{"jsonrpc":"2.0","id":0,"method":"shutdown"}"# + "\n" + Self.creates(1...8))
        #expect(try server.next()["result"] == .null)
        for id in 1...8 {
            let response = try server.next()
            #expect(response["id"] == .integer(Int64(id)))
            #expect(response["error"]?["code"] == .integer(-32600), "\(response)")
        }
        server.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(server.waitForExit() == 0)
        #expect(try Self.storedTitles(database) == [])
    }
}
