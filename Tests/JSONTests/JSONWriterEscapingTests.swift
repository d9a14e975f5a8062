import JSON
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

    /// The writer passes over eight clean bytes at a time: an escape is found wherever it
    /// falls in or across those words, beside multi-byte characters and bytes just above
    /// the ones that need it.
    @Test func anEscapeIsFoundAtEveryOffset() throws {
        for special in ["\u{0}", "\u{1F}", "\"", "\\", "\n"] {
            for length in 0..<20 {
                for position in 0...length {
                    var characters = Array(repeating: "é!#]", count: 6).joined().prefix(length).map(String.init)
                    characters.insert(special, at: position)
                    let text = characters.joined()
                    #expect(try JSONParser.parse(Array(JSONWriter.string(.string(text)).utf8)) == .string(text), "\(Array(text.utf8))")
                    #expect(!JSONWriter.string(.string(text)).utf8.contains { $0 < 0x20 })
                }
            }
        }
    }
}
