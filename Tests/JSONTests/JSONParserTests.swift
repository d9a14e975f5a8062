import JSON
import Testing

@Suite struct JSONParserTests {
    func parse(_ text: String) throws -> JSON {
        try JSONParser.parse(Array(text.utf8))
    }

    func reason(_ bytes: [UInt8]) -> String? {
        do {
            _ = try JSONParser.parse(bytes)
            return nil
        } catch {
            return error.reason
        }
    }

    func reason(_ text: String) -> String? { reason(Array(text.utf8)) }

    @Test func parsesEveryKindOfValue() throws {
        let value = try parse(#" {"a": [1, -2, 3.5, 1e3, true, false, null, "x\n\u00e9\ud83d\ude00"], "b": {}} "#)
        #expect(value == ["a": [1, -2, .number("3.5"), .number("1e3"), true, false, .null, "x\né😀"], "b": [:]])
    }

    @Test func keepsIntegersApartFromOtherNumbers() throws {
        #expect(try parse("1") == .integer(1))
        #expect(try parse("1.0") == .number("1.0"))
        #expect(try parse("9223372036854775807") == .integer(.max))
        #expect(try parse("9223372036854775808") == .number("9223372036854775808"))
    }

    @Test func keepsTheTextOfNumbersThatAreNotInt64() throws {
        for text in [
            "18446744073709551616", "-9223372036854775809", "12345678901234567890123", "1.5", "1.50", "1E2",
            "1e-400", "-0", "-0.0", "0e0", "1e308",
        ] {
            #expect(try parse(text) == .number(text))
            #expect(JSONWriter.string(try parse(text)) == text)
        }
        #expect(try parse("1.5") != parse("1.50"), "numbers compare by their text")
        #expect(try parse("12345678901234567890123").doubleValue == 1.2345678901234568e22)
        #expect(try parse("1e-400").doubleValue == 0)
        for text in ["1e400", "-1e309", "1" + String(repeating: "0", count: 400)] {
            #expect(reason(text)?.hasPrefix("number out of range") == true, "\(text) is outside a double's range")
        }
    }

    /// Objects equal but for their members' order hash alike, names that `String` takes for
    /// one ("é" precomposed and with a combining accent) included.
    @Test func equalObjectsHashAlike() throws {
        let a = try parse(#"{"\u00e9":1,"e\u0301":2}"#)
        let b = try parse(#"{"e\u0301":2,"\u00e9":1}"#)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != (try parse(#"{"\u00e9":2,"e\u0301":1}"#)))
    }

    @Test func keepsMemberOrder() throws {
        let object = try #require(try parse(#"{"z":1,"a":2,"m":3}"#).objectValue)
        #expect(object.keys == ["z", "a", "m"])
    }

    @Test(arguments: [
        ("", "unexpected end of input"),
        ("{", "expected a member name"),
        ("[1,]", "unexpected character"),
        ("01", "unexpected data after the JSON value"),
        ("1.", "invalid number"),
        ("-", "invalid number"),
        ("1e400", "number out of range"),
        ("tru", "invalid literal"),
        ("nul", "invalid literal"),
        ("\"abc", "unterminated string"),
        ("\"a\tb\"", "control character in string"),
        ("\"\\x\"", "invalid escape"),
        ("\"\\u12\"", "invalid \\u escape"),
        ("\"\\ud800\"", "lone surrogate escape"),
        ("\"\\udc00\"", "lone surrogate escape"),
        ("\"\\ud800\\u0041\"", "lone surrogate escape"),
        (#"{"a":1,"a":2}"#, "duplicate member name \"a\""),
        ("{} {}", "unexpected data after the JSON value"),
        ("'a'", "unexpected character"),
        ("NaN", "unexpected character"),
    ])
    func rejects(_ text: String, _ expected: String) {
        #expect(reason(text) == expected)
    }

    /// Member names are compared byte for byte, as JSON compares them: "é" and "e" with a
    /// combining acute, which Swift's `==` holds equal, are two members, each found by its own
    /// bytes; so are names that share a prefix, short names and long ones. Past 16 members the
    /// object keeps an index, which must agree.
    @Test(arguments: [0, 20])
    func findsMembersByTheirExactBytes(padding: Int) throws {
        let names = ["\u{E9}", "e\u{301}", "a", "ab", "b", "a long member name, past fifteen bytes", "a long member name, past fifteen bytez"]
        let members = names.enumerated().map { "\"\($0.element)\": \($0.offset)" } + (0..<padding).map { "\"p\($0)\": null" }
        guard case .object(let object) = try parse("{" + members.joined(separator: ", ") + "}") else {
            Issue.record("not an object")
            return
        }
        #expect(object.count == names.count + padding)
        for (value, name) in names.enumerated() {
            #expect(object[name] == .integer(Int64(value)), "\(name)")
        }
        #expect(object["\u{E9}\u{301}"] == nil)
        #expect(object["a long member name, past fifteen byte"] == nil)
        #expect(reason(#"{"e\u0301": 1, "e\u0301": 2}"#) == "duplicate member name \"e\u{301}\"")
    }

    @Test func rejectsInvalidUTF8AndNULs() throws {
        #expect(reason([0x22, 0xFF, 0x22]) == "invalid UTF-8 in string")
        #expect(reason([0x22, 0xC3, 0x22]) == "invalid UTF-8 in string")
        #expect(reason([0x22, 0xED, 0xA0, 0x80, 0x22]) == "invalid UTF-8 in string")  // an encoded surrogate
        #expect(reason([0x22, 0xC0, 0x80, 0x22]) == "invalid UTF-8 in string")  // an overlong NUL
        #expect(reason([0x22, 0x5C, 0x6E, 0xF4, 0x90, 0x80, 0x80, 0x22]) == "invalid UTF-8 in string")  // past U+10FFFF, after an escape
        // Valid multi-byte text, with and without escapes, comes through unchanged.
        #expect(try JSONParser.parse(Array(#""é😀 ok""#.utf8)) == .string("é😀 ok"))
        #expect(try JSONParser.parse(Array(#""é\n😀""#.utf8)) == .string("é\n😀"))
        #expect(reason([0x22, 0x00, 0x22]) == "control character in string")
        #expect(reason([0x7B, 0x00, 0x7D]) == "expected a member name")
        #expect(reason([0xEF, 0xBB, 0xBF, 0x31]) == "unexpected character")  // a byte order mark
    }

    @Test func boundsNestingWithoutExhaustingTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(reason(deep) == "nesting deeper than 64 levels")
        let objects = String(repeating: #"{"a":"#, count: 100_000)
        #expect(reason(objects) == "nesting deeper than 64 levels")
        let allowed = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(reason(allowed) == nil)
    }
}

@Suite struct JSONWriterTests {
    @Test func writesCompactJSON() {
        let value: JSON = ["id": 1, "s": "a\"b\\c\n\u{1}é", "list": [true, .null, .number("0.5")], "o": [:]]
        #expect(JSONWriter.string(value) == #"{"id":1,"s":"a\"b\\c\n\u0001é","list":[true,null,0.5],"o":{}}"#)
    }

    @Test func roundTripsThroughTheParser() throws {
        let value: JSON = ["unicode": "𝄞 ✓ \u{2028}", "numbers": [0, -1, .number("1e-7"), .number("123456.75")], "nested": [["a": [[]]]]]
        #expect(try JSONParser.parse(JSONWriter.bytes(value)) == value)
    }

    @Test func neverWritesARawNewline() {
        let bytes = JSONWriter.bytes(["text": "line\nline\r\n"])
        #expect(!bytes.contains(0x0A))
        #expect(!bytes.contains(0x0D))
    }
}
