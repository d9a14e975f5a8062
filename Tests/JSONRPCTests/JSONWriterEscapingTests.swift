import JSONRPC
import Testing

/// RFC 8259 §7: every character below U+0020 must be escaped in a JSON string.
@Suite struct JSONWriterEscapingTests {
    private static let shortEscapes: [UInt8: String] = [0x09: #"\t"#, 0x0A: #"\n"#, 0x0D: #"\r"#]

    @Test(arguments: 0..<0x20)
    func everyControlCharacterIsEscaped(code: Int) throws {
        let text = "a" + String(Character(UnicodeScalar(UInt8(code)))) + "b"
        let written = JSONWriter.string(.string(text))
        let hex = String(code, radix: 16)
        let escape = Self.shortEscapes[UInt8(code)] ?? #"\u00"# + (hex.count == 1 ? "0" + hex : hex)
        #expect(written == "\"a" + escape + "b\"")
        #expect(!written.utf8.contains { $0 < 0x20 })
        #expect(try JSONParser.parse(Array(written.utf8)) == .string(text))
    }

    @Test func quoteBackslashAndTheRestPassAsTheyAre() throws {
        let text = "\"\\ é \u{7F} \u{2028} 😀"
        let written = JSONWriter.string(.string(text))
        #expect(written == "\"\\\"\\\\ é \u{7F} \u{2028} 😀\"")
        #expect(try JSONParser.parse(Array(written.utf8)) == .string(text))
    }
}
