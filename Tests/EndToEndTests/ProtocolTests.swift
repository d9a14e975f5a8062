import Foundation
import JSON
import SQLite
import TestSupport
import Testing

/// The real binary, over real pipes, in both framings, through the whole lifecycle.
@Suite struct ProtocolTests {
    let directory = TemporaryDirectory()

    static let initialize = #"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":"e2e"}}}"#

    @Test(arguments: StoreKind.allCases)
    func newlineDelimitedLifecycle(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument], framing: .ndjson)
        server.sendLine(Self.initialize)
        #expect(try server.next()["result"]?["protocolVersion"] == "1")
        server.sendLine(#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#)
        let created = try server.call(1, "tasks/create", #"{"title":"Buy milk","tags":["errand"]}"#)
        #expect(created["result"]?["title"] == "Buy milk")
        let change = try server.next()
        #expect(change["method"] == "tasks/didChange")
        #expect(change["params"]?["seq"] == 1)
        let fetched = try server.call(2, "tasks/fetch")
        #expect(fetched["result"]?["tasks"] == [try #require(created["result"])])
        #expect(try server.call(3, "shutdown") == ["jsonrpc": "2.0", "id": 3, "result": .null])
        server.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(server.waitForExit() == 0)
        #expect(try server.readToEnd().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func lspLifecycleAnswersInLSPFraming(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument])
        server.sendLSP(Self.initialize)
        let raw = try #require(try server.readChunk(until: Date().addingTimeInterval(10)))
        let text = String(decoding: raw, as: UTF8.self)
        #expect(text.hasPrefix("Content-Length: "))
        let body = try #require(text.range(of: "\r\n\r\n")).upperBound
        #expect(Int(text[text.index(text.startIndex, offsetBy: 16)..<text.range(of: "\r\n")!.lowerBound]) == text[body...].utf8.count)
        #expect(try server.call(1, "shutdown", lsp: true)["result"] == .null)
        server.sendLSP(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(server.waitForExit() == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func messagesSplitAcrossManyWrites(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument])
        let message = "Content-Length: \(Self.initialize.utf8.count)\r\n\r\n\(Self.initialize)"
        for byte in message.utf8 {
            server.write([byte])
            usleep(200)  // so that the server reads the bytes apart: what the test explores
        }
        #expect(try server.next()["id"] == 0)
        server.closeInput()
        #expect(server.waitForExit() == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func manyMessagesInOneWriteAreAnsweredInOrder(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument, "--log-level", "error"])
        var text = Self.initialize + "\n"
        for id in 1...200 {
            text += #"{"jsonrpc":"2.0","id":\#(id),"method":"tasks/create","params":{"title":"task \#(id)"}}"# + "\n"
        }
        server.write(text)
        server.closeInput()
        let output = try server.readToEnd()
        let ids = output.compactMap { $0["id"] }
        #expect(ids == (0...200).map { JSON.integer(Int64($0)) })
        // Waiting writes are committed and announced together: count changes, not notifications.
        let changes = output.filter { $0["method"] == "tasks/didChange" }.flatMap { $0["params"]?["changes"]?.arrayValue ?? [] }
        #expect(changes.map { $0["seq"] } == (1...200).map { JSON.integer(Int64($0)) })
        #expect(server.waitForExit() == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func endOfInputFinishesTheWorkThenExits(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument])
        server.write(Self.initialize + "\n" + #"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"# + "\n")
        server.closeInput()
        let output = try server.readToEnd()
        #expect(output.map { $0["id"] } == [0, 1])
        #expect(server.waitForExit() == 0)
    }

    /// After the process ends (cleanly, or at the end of input), the database file alone holds
    /// every write: a copy of it without its -wal file is complete.
    @Test(arguments: [true, false])
    func theDatabaseFileAloneHoldsEverythingAfterExit(shutdown: Bool) throws {
        let path = directory.file("alone-\(shutdown).sqlite")
        let server = try ServerProcess(["--db", path])
        server.sendLine(Self.initialize)
        _ = try server.next()
        for index in 0..<50 { _ = try server.call(index + 1, "tasks/create", #"{"id":"t\#(index)","title":"kept"}"#) }
        if shutdown {
            _ = try server.call(100, "shutdown")
            server.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
        } else {
            server.closeInput()
        }
        #expect(server.waitForExit() == (shutdown ? 0 : 1))
        let copy = directory.file("copy-\(shutdown).sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let database = try Database(path: copy, mode: .readOnly)
        #expect(try database.integer("SELECT count(*) FROM task") == 50)
    }

    @Test(arguments: StoreKind.allCases)
    func restartKeepsDataAndSeq(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        var id = ""
        do {
            let server = try ServerProcess(["--db", database.argument])
            server.sendLine(Self.initialize)
            _ = try server.next()
            id = try #require(try server.call(1, "tasks/create", #"{"title":"survives"}"#)["result"]?["id"]?.stringValue)
            #expect(try server.next()["params"]?["seq"] == 1)
            _ = try server.call(2, "tasks/update", #"{"id":"\#(id)","changes":{"done":true}}"#)
            #expect(try server.next()["params"]?["seq"] == 2)
            server.closeInput()
            #expect(server.waitForExit() == 1)
        }
        let server = try ServerProcess(["--db", database.argument])
        server.sendLine(Self.initialize)
        _ = try server.next()
        let task = try server.call(1, "tasks/get", #"{"id":"\#(id)"}"#)
        #expect(task["result"]?["done"] == true)
        #expect(task["result"]?["version"] == 2)
        _ = try server.call(2, "tasks/delete", #"{"id":"\#(id)"}"#)
        #expect(try server.next()["params"]?["seq"] == 3)
        server.closeInput()
        #expect(server.waitForExit() == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func everyErrorInTheTableOverTheWire(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument, "--max-message-bytes", "4096"])
        func code(_ json: JSON) -> JSON? { json["error"]?["code"] }
        server.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}"#)
        #expect(code(try server.next()) == -32002)
        server.sendLine(Self.initialize)
        _ = try server.next()
        server.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"x"#)
        let parse = try server.next()
        #expect(code(parse) == -32700)
        #expect(parse["id"] == .null)
        server.sendLine(#"{"jsonrpc":"1.0","id":3,"method":"tasks/get"}"#)
        #expect(code(try server.next()) == -32600)
        server.sendLine(#"{"jsonrpc":"2.0","id":"big","method":"tasks/create","params":{"title":"\#(String(repeating: "x", count: 5000))"}}"#)
        let big = try server.next()
        #expect(code(big) == -32600)
        #expect(big["id"] == .null)
        #expect(code(try server.call(4, "tasks/nope")) == -32601)
        #expect(code(try server.call(5, "tasks/create", #"{"title":1}"#)) == -32602)
        #expect(code(try server.call(6, "tasks/get", #"{"id":"x"}"#)) == 1001)
        _ = try server.call(7, "tasks/create", #"{"id":"x","title":"x"}"#)
        _ = try server.next()
        #expect(code(try server.call(8, "tasks/update", #"{"id":"x","changes":{},"ifVersion":5}"#)) == 1002)
        #expect(code(try server.call(9, "tasks/create", #"{"id":"x","title":"x"}"#)) == 1003)
        server.closeInput()
        #expect(server.waitForExit() == 1)
    }

    @Test func storageFailureIsReportedAndTheServerKeepsServing() throws {
        let path = directory.file("locked.sqlite")
        let server = try ServerProcess(["--db", path, "--busy-timeout", "200"])
        server.sendLine(Self.initialize)
        _ = try server.next()
        _ = try server.call(1, "tasks/create", #"{"id":"kept","title":"kept"}"#)
        _ = try server.next()

        // Another process holds the write lock for longer than the busy timeout.
        let other = try Database(path: path)
        try other.execute("BEGIN IMMEDIATE")
        let failed = try server.call(2, "tasks/create", #"{"title":"refused"}"#)
        #expect(failed["error"]?["code"] == 1004)
        #expect(failed["error"]?["data"]?["code"] == 5)  // SQLITE_BUSY
        #expect(failed["error"]?["data"]?["message"]?.stringValue?.isEmpty == false)
        #expect(try server.call(3, "tasks/get", #"{"id":"kept"}"#)["result"]?["title"] == "kept")
        try other.execute("ROLLBACK")

        #expect(try server.call(4, "tasks/create", #"{"title":"accepted"}"#)["result"]?["title"] == "accepted")
        #expect(try server.next()["params"]?["seq"] == 2)
        #expect(try server.call(5, "tasks/fetch", #"{"includeTotal":true}"#)["result"]?["total"] == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func batchOverTheWire(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument])
        server.sendLine(Self.initialize)
        _ = try server.next()
        server.sendLine(
            "["
                + [
                    #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"id":"a","title":"A"}}"#,
                    #"{"jsonrpc":"2.0","method":"initialized"}"#,
                    #"{"foo":"boo"}"#,
                    #"{"jsonrpc":"2.0","id":"2","method":"tasks/get","params":{"id":"a"}}"#,
                ].joined(separator: ",") + "]")
        let responses = try #require(try server.next().arrayValue)
        #expect(responses.map { $0["id"] } == [1, .null, "2"])
        #expect(try server.next()["method"] == "tasks/didChange")
        server.sendLine(#"[{"jsonrpc":"2.0","method":"initialized"},{"jsonrpc":"2.0","method":"$/ping"}]"#)
        #expect(try server.call(3, "tasks/fetch")["id"] == 3, "a batch of notifications gets no answer")
    }

    @Test(arguments: StoreKind.allCases)
    func cancellationInTheSameWriteStopsTheRequest(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument])
        server.sendLine(Self.initialize)
        _ = try server.next()
        for _ in 0..<20 {
            server.write(
                #"{"jsonrpc":"2.0","id":"c","method":"tasks/create","params":{"title":"never"}}"# + "\n"
                    + #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"c"}}"# + "\n")
            #expect(try server.next()["error"]?["code"] == -32800)
        }
        #expect(try server.call(1, "tasks/fetch", #"{"includeTotal":true}"#)["result"]?["total"] == 0)
    }

    /// Ids "é" (precomposed) and "e\u{301}" are two requests: cancelling one leaves the other.
    @Test(arguments: StoreKind.allCases)
    func cancellationNamesItsRequestCodePointByCodePoint(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument])
        server.sendLine(Self.initialize)
        _ = try server.next()
        server.write(
            #"{"jsonrpc":"2.0","id":"\u00e9","method":"tasks/fetch"}"# + "\n"
                + #"{"jsonrpc":"2.0","id":"e\u0301","method":"tasks/fetch"}"# + "\n"
                + #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"e\u0301"}}"# + "\n")
        var cancelled: [String: Bool] = [:]
        for _ in 0..<2 {
            let response = try server.next()
            let id = try #require(response["id"]?.stringValue)
            let codePoints = id.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")
            cancelled[codePoints] = response["error"]?["code"] == -32800
        }
        #expect(cancelled == ["e9": false, "65 301": true])
    }
}
