import Foundation
import JSON
import Testing

@Suite struct JSONRecordReaderTests {
    /// The records of `text`, read from a file, as (line, value or failure reason).
    func records(_ text: String, maxRecordBytes: Int = 64 << 20) throws -> [(Int, String)] {
        try records(Data(text.utf8), maxRecordBytes: maxRecordBytes)
    }

    func records(_ data: Data, maxRecordBytes: Int = 64 << 20) throws -> [(Int, String)] {
        let path = NSTemporaryDirectory() + "records-\(UUID().uuidString).json"
        try data.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let reader = JSONRecordReader(fileDescriptor: fd, maxRecordBytes: maxRecordBytes)
        return reader.map { record in
            switch record.value {
            case .success(let json): (record.line, JSONWriter.string(json))
            case .failure(let failure): (record.line, "! " + failure.reason)
            }
        }
    }

    func expect(_ actual: [(Int, String)], _ expected: [(Int, String)], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(actual.map(\.0) == expected.map(\.0), sourceLocation: sourceLocation)
        #expect(actual.map(\.1) == expected.map(\.1), sourceLocation: sourceLocation)
    }

    @Test func jsonLinesWithBlankLinesAndCarriageReturns() throws {
        expect(
            try records("\n{\"a\":1}\r\n\n  \n[2]\n\"three\"\n{\"b\":"),
            [
                (2, #"{"a":1}"#), (5, "[2]"), (6, #""three""#), (7, "! not valid JSON: unexpected end of input at byte 6"),
            ])
        expect(try records(""), [])
        expect(try records("\u{FEFF}{\"bom\":true}\n"), [(1, #"{"bom":true}"#)])
    }

    @Test func arrayElementsComeOneByOne() throws {
        let text = """
            [
              {"s": "a ] and a , and a \\" and { inside"},
              [1, [2, 3]],
              {"nested": {"deep": [{"x": "}"}]}},
              4
            ]
            """
        expect(
            try records(text),
            [
                (2, #"{"s":"a ] and a , and a \" and { inside"}"#), (3, "[1,[2,3]]"),
                (4, #"{"nested":{"deep":[{"x":"}"}]}}"#), (5, "4"),
            ])
        expect(try records("[]"), [])
        expect(try records(" [ ] \n"), [])
        expect(try records("[{\"a\":1},\n{\"b\":2}]"), [(1, #"{"a":1}"#), (2, #"{"b":2}"#)])
    }

    @Test func brokenArraysAreReportedWhereTheyBreak() throws {
        expect(try records("[1,\n{\"a\":\n"), [(1, "1"), (2, "! the array is not closed with ]")])
        expect(try records("[1,\n2,\n]"), [(1, "1"), (2, "2"), (3, "! a comma before ] ends the array")])
        expect(try records("[1]\nmore"), [(1, "1"), (2, "! data follows the end of the array")])
        // A bad element is reported and the next ones still read.
        expect(try records("[{\"a\" 1},\n{\"b\":2}]"), [(1, "! not valid JSON: expected ':' at byte 6"), (2, #"{"b":2}"#)])
    }

    @Test func recordsLargerThanAReadAreWhole() throws {
        let notes = String(repeating: "x", count: 1_100_000)
        let lines = try records("{\"n\":1}\n{\"notes\":\"\(notes)\"}\n{\"n\":3}\n")
        #expect(lines.map(\.0) == [1, 2, 3])
        #expect(lines[1].1.count == notes.count + 12)
        let array = try records("[{\"n\":1},\n{\"notes\":\"\(notes)\"},\n{\"n\":3}]")
        #expect(array.map(\.0) == [1, 2, 3])
        #expect(array[2].1 == #"{"n":3}"#)
    }

    @Test func overlongLinesAreSkippedNotHeld() throws {
        let long = String(repeating: "y", count: 5000)
        expect(
            try records("{\"a\":1}\n\"\(long)\"\n{\"b\":2}\n", maxRecordBytes: 1000),
            [
                (1, #"{"a":1}"#), (2, "! a line longer than 1000 bytes"), (3, #"{"b":2}"#),
            ])
        expect(try records("[1,\n\"\(long)\",\n3]", maxRecordBytes: 1000), [(1, "1"), (2, "! an element longer than 1000 bytes"), (3, "3")])
        // Past a read's worth, too: the element is read past, never held whole.
        let huge = String(repeating: "z", count: 1_100_000)
        expect(try records("[1,\n\"\(huge)\",\n3]", maxRecordBytes: 1000), [(1, "1"), (2, "! an element longer than 1000 bytes"), (3, "3")])
        expect(try records("1\n\"\(huge)\"\n3", maxRecordBytes: 1000), [(1, "1"), (2, "! a line longer than 1000 bytes"), (3, "3")])
    }
}
