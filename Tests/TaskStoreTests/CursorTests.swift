import SQLite
import TaskModel
import Testing

@testable import TaskStore

/// Cursors are decoded byte by byte; every key a page can end on must come back as it went.
@Suite struct CursorTests {
    @Test(arguments: [
        [SQLValue.integer(0), .text("task-1")],
        [.integer(-9_223_372_036_854_775_807), .text("")],
        [.text("e\u{301}lan 🧑🏽‍🚀 İstanbul"), .integer(Int64.max), .text("id")],
        [.text("ÿ"), .text("\u{10FFFF}")],
    ])
    func roundTrips(values: [SQLValue]) throws {
        let cursor = Cursor(signature: "title.asc,due.desc", values: values)
        let decoded = try #require(Cursor(encoded: cursor.encoded))
        #expect(decoded == cursor)
    }

    @Test(arguments: [
        "",  // no signature, no values
        "7a",  // "z": a signature alone
        "zz",  // not hex
        "612",  // odd length
        Hex.encode(Array("a\u{1F}x1".utf8)),  // unknown kind of value
        Hex.encode(Array("a\u{1F}n".utf8)),  // a null, which no sort key of this store's is
        Hex.encode(Array("a\u{1F}i1x".utf8)),  // not an integer
        Hex.encode(Array("a\u{1F}i99999999999999999999".utf8)),  // beyond Int64
        Hex.encode(Array("a\u{1F}".utf8) + [UInt8(ascii: "s"), 0xC3]),  // cut UTF-8
        Hex.encode(Array("a\u{1F}".utf8) + [UInt8(ascii: "s"), 0xC0, 0x80]),  // overlong NUL
    ])
    func rejects(encoded: String) {
        #expect(Cursor(encoded: encoded) == nil)
    }

    /// The one wire format holds a null too (PostgreSQL's sorts end on an undated task).
    @Test func theWireFormatHoldsEveryKindOfValue() throws {
        let cursor = PageCursor(signature: "pg:due+", values: [.null, .integer(-1), .text("🧑🏽‍🚀")])
        #expect(PageCursor(encoded: cursor.encoded) == cursor)
        #expect(PageCursor(encoded: Hex.encode(Array("a\u{1F}nx".utf8))) == nil)
    }
}
