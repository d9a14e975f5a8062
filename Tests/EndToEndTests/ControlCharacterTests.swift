import Foundation
import JSON
import TestSupport
import Testing

/// Every control character a task's text may hold reaches the client escaped, in the answer
/// and in the notification: a raw one is invalid JSON (RFC 8259 §7), which a strict client
/// refuses and which, raw newlines above all, breaks newline-delimited framing.
@Suite struct ControlCharacterTests {
    /// U+0001 to U+001F: notes hold every control character but U+0000.
    static let controls = String((1..<0x20).map { Character(UnicodeScalar(UInt8($0))) })

    @Test(arguments: StoreKind.allCases, [false, true])
    func notesWithEveryControlCharacterComeBackEscaped(store: StoreKind, lsp: Bool) throws {
        let notes = "a" + Self.controls + "z"
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument])
        let initialize = #"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#
        lsp ? server.sendLSP(initialize) : server.sendLine(initialize)
        _ = try server.next()
        let params = JSONWriter.string(.object(["title": "controls", "notes": .string(notes)]))
        // Strict parsing: `next()` refuses a raw control character in a string.
        let created = try server.call(1, "tasks/create", params, lsp: lsp)
        #expect(created["result"]?["notes"] == .string(notes))
        let change = try server.didChanges(count: 1)[0]
        #expect(change["task"]?["notes"] == .string(notes))
        let fetched = try server.call(2, "tasks/fetch", "{}", lsp: lsp)
        #expect(fetched["result"]?["tasks"]?.arrayValue?.first?["notes"] == .string(notes))
    }

    /// PostgreSQL's text cannot hold U+0000, so neither store takes one in notes or a text
    /// filter: both answer -32602 naming the field.
    @Test(arguments: StoreKind.allCases)
    func nulInNotesOrTextFilterIsRefusedNamingTheField(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument])
        server.sendLine(#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#)
        _ = try server.next()
        let create = try server.call(1, "tasks/create", JSONWriter.string(.object(["title": "t", "notes": "a\u{0}b"])))
        #expect(create["error"]?["code"] == -32602)
        #expect(create["error"]?["data"]?["field"] == "notes")
        let id = try #require(try server.call(2, "tasks/create", #"{"title":"t"}"#)["result"]?["id"]?.stringValue)
        _ = try server.didChanges(count: 1)
        let update = try server.call(3, "tasks/update", JSONWriter.string(.object(["id": .string(id), "changes": ["notes": "\u{0}"]])))
        #expect(update["error"]?["data"]?["field"] == "changes.notes")
        let fetch = try server.call(4, "tasks/fetch", JSONWriter.string(.object(["filter": ["text": "x\u{0}"]])))
        #expect(fetch["error"]?["code"] == -32602)
        #expect(fetch["error"]?["data"]?["field"] == "filter.text")
        let get = try server.call(5, "tasks/get", JSONWriter.string(.object(["id": .string(id + "\u{0}")])))
        #expect(get["error"]?["code"] == 1001)
    }
}
