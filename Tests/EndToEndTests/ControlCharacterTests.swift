import Foundation
import JSONRPC
import TestSupport
import Testing

/// Every control character a task's text may hold reaches the client escaped, in the answer
/// and in the notification: a raw one is invalid JSON (RFC 8259 §7), which a strict client
/// refuses and which, raw newlines above all, breaks newline-delimited framing.
@Suite struct ControlCharacterTests {
    static let allControls = String((0..<0x20).map { Character(UnicodeScalar(UInt8($0))) })

    /// SQLite only: the PostgreSQL store refuses a U+0000 (1004), which its text cannot hold.
    @Test(arguments: [false, true])
    func notesWithEveryControlCharacterComeBackEscaped(lsp: Bool) throws {
        let notes = "a" + Self.allControls + "z"
        let server = try ServerProcess(["--db", ":memory:"])
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
}
