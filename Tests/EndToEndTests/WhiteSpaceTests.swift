import JSON
import TestSupport
import Testing

/// The white space of protocol/task.md §4 ("White space"), the list a second
/// implementation copies: exactly these code points make a title blank and a tag invalid,
/// and no other character of the Basic Multilingual Plane does.
@Suite struct WhiteSpaceTests {
    static let listed: [ClosedRange<UInt32>] = [
        0x09...0x0D, 0x20...0x20, 0x85...0x85, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
        0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF,
    ]

    static func isListed(_ value: UInt32) -> Bool {
        listed.contains { $0.contains(value) }
    }

    /// Every code point of the plane that is not a control character (those are refused for
    /// that reason) or a surrogate, and the listed ones that are controls too.
    static let candidates: [Unicode.Scalar] = (UInt32(0)...0xFFFF).compactMap { value -> Unicode.Scalar? in
        let control = value < 0x20 || (0x7F...0x9F).contains(value)
        guard !control || isListed(value) else { return nil }
        return Unicode.Scalar(value)
    }

    @Test func exactlyTheListedCodePointsAreWhiteSpace() throws {
        let server = try ServerProcess(["--db", ":memory:"])
        _ = try server.call(0, "initialize", #"{"initializationOptions":{"notifications":false}}"#)
        var refusedTitles: [UInt32] = []
        var refusedTags: [UInt32] = []
        // Updates of a task that does not exist: a value the rules accept gets 1001 and
        // nothing is written; one they refuse gets -32602 first.
        for (batch, start) in stride(from: 0, to: Self.candidates.count, by: 500).enumerated() {
            let scalars = Self.candidates[start..<min(start + 500, Self.candidates.count)]
            let operations: [JSON] = scalars.flatMap { scalar -> [JSON] in
                let text = String(Character(scalar))
                return [
                    ["update": ["id": "none", "changes": ["title": .string(text)]]],
                    ["update": ["id": "none", "changes": ["tags": [.string("a" + text + "b")]]]],
                ]
            }
            let params = JSONWriter.string(["atomic": false, "operations": .array(operations)])
            let results = try #require(try server.call(batch + 1, "tasks/apply", params)["result"]?["results"]?.arrayValue)
            try #require(results.count == operations.count)
            for (offset, scalar) in scalars.enumerated() {
                if results[2 * offset]["error"]?["code"] == .integer(-32602) { refusedTitles.append(scalar.value) }
                if results[2 * offset + 1]["error"]?["code"] == .integer(-32602) { refusedTags.append(scalar.value) }
            }
        }
        let listedCandidates = Self.candidates.map(\.value).filter(Self.isListed)
        #expect(listedCandidates.count == 26)
        #expect(refusedTitles == listedCandidates)
        // A tag refuses control characters as well, listed ones included.
        #expect(refusedTags == listedCandidates)
    }
}
