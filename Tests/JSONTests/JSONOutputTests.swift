import JSON
import Testing

/// `JSONOutput` writes into a buffer of its own and moves it into the output when full:
/// what it writes must not depend on where those moves fall.
@Suite struct JSONOutputTests {
    func written(_ body: (inout JSONOutput) -> Void) -> String {
        var out = Array("prefix ".utf8)
        JSONWriter.write(to: &out, body)
        return String(decoding: out, as: UTF8.self)
    }

    @Test(arguments: [Int64.min, Int64.min + 1, -10, -1, 0, 9, 10, 1_780_000_000_042, Int64.max])
    func writesIntegersInDecimal(_ value: Int64) {
        #expect(written { $0.put(integer: value) } == "prefix \(value)")
    }

    /// Strings and runs of every length around the buffer's size (16 KiB) and half of it,
    /// each after a prefix that leaves the buffer partly full.
    @Test func textAcrossTheBufferIsWrittenWhole() throws {
        for length in [8191, 8192, 8193, 16383, 16384, 16385, 40000] {
            for filled in [0, 1, 100, 16383] {
                let filler = String(repeating: "f", count: filled)
                let text = String((0..<length).map { index -> Character in index % 97 == 0 ? "\n" : index % 89 == 0 ? "é" : "a" })
                let result = written { out in
                    filler.utf8.withContiguousStorageIfAvailable { out.put(bytes: $0) }
                    var copy = text
                    copy.withUTF8 { out.put(string: $0) }
                    out.put(UInt8(ascii: "!"))
                }
                #expect(result.hasPrefix("prefix " + filler))
                #expect(result.hasSuffix("!"))
                let json = Array(result.utf8.dropFirst(7 + filled).dropLast())
                #expect(try JSONParser.parse(json) == .string(text), "\(length) after \(filled)")
            }
        }
    }

    /// A text with nothing to escape and no byte past ASCII is copied whole; any other takes
    /// the checked path: each kind of byte, at every place around the eight-byte words the
    /// scans read, comes back as the text it was.
    @Test func aTextComesBackWhereverItsOneSpecialCharacterFalls() throws {
        for special in ["\"", "\\", "\u{1F}", "\n", "\u{7F}", "é", "😀", "a"] {
            for length in 0...20 {
                for place in 0...length {
                    let text = String(repeating: "x", count: place) + special + String(repeating: "y", count: length - place)
                    var bytes = Array(text.utf8)
                    let result = bytes.withUnsafeMutableBufferPointer { buffer in
                        written { $0.put(utf8String: UnsafeBufferPointer(buffer)) }
                    }
                    #expect(
                        try JSONParser.parse(Array(result.utf8.dropFirst(7))) == .string(text),
                        "\(special.unicodeScalars.map(\.value)) at \(place) of \(length)")
                }
            }
        }
    }

    /// Bytes a stored file holds that are not UTF-8 come out as U+FFFD, in strings and in
    /// JSON text, so the message stays UTF-8.
    @Test func bytesThatAreNotUTF8BecomeReplacementCharacters() throws {
        let bad: [UInt8] = [0x41, 0xFF, 0x42, 0xC3, 0x28, 0xE2, 0x82]
        let string = bad.withUnsafeBufferPointer { bytes in written { $0.put(utf8String: bytes) } }
        #expect(try JSONParser.parse(Array(string.utf8.dropFirst(7))) == .string("A\u{FFFD}B\u{FFFD}(\u{FFFD}"))
        let object: [UInt8] = Array(#"{"k":"x"#.utf8) + [0xFF] + Array(#""}"#.utf8)
        let json = object.withUnsafeBufferPointer { bytes in written { $0.put(utf8JSON: bytes) } }
        #expect(try JSONParser.parse(Array(json.utf8.dropFirst(7))) == ["k": "x\u{FFFD}"])
        let valid = Array("é😀".utf8)
        #expect(valid.withUnsafeBufferPointer { bytes in written { $0.put(utf8String: bytes) } } == "prefix \"é😀\"")
    }
}

extension JSONOutputTests {
    /// The writer's UTF-8 check against the standard library's, on random byte strings
    /// that lean towards the edges of the multi-byte forms.
    @Test func theUTF8CheckAgreesWithTheStandardLibrary() {
        var generator = SystemRandomNumberGenerator()
        let edges: [UInt8] = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
            0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ]
        for _ in 0..<200_000 {
            let length = Int.random(in: 0...12, using: &generator)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &generator) ? edges.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            #expect(bytes.withUnsafeBufferPointer(JSONWriter.isUTF8) == expected, "\(bytes)")
        }
        for text in ["", "ascii only, longer than eight", "é", "😀 and 中文", "\u{10FFFF}", "\u{D7FF}\u{E000}"] {
            #expect(Array(text.utf8).withUnsafeBufferPointer(JSONWriter.isUTF8))
        }
    }
}
