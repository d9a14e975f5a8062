import Foundation
import JSON
import TestSupport
import Testing

/// Taskline's hand-written JSON parser against another one: Python's `json`, made as strict as
/// the protocol (Fixtures/json_reference.py says how). Over corner cases and thousands of
/// generated and mutated documents, both must accept the same inputs and read the same values.
@Suite struct JSONParserDifferentialTests {
    static let referencePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/json_reference.py").path

    @Test func agreesWithPythonsJSON() throws {
        var generator = SplitMix64(seed: 0x7A5C_11E5)
        var inputs = Self.cornerCases.map { Array($0.utf8) } + Self.byteCases
        for _ in 0..<3000 {
            let document = Self.randomDocument(using: &generator)
            inputs.append(document)
            inputs.append(Self.mutated(document, using: &generator))
        }
        let disagreements = try Self.compareWithReference(inputs)
        #expect(disagreements.count == 1, "\(disagreements.joined(separator: "\n"))")
        #expect(disagreements.last == "compared \(inputs.count)")
    }

    /// The same inputs as files read by `JSONRecordReader` (as `taskline import` reads them):
    /// each on its own, then in arrays and JSON Lines of several, and in files of more than
    /// one read's worth, so that elements straddle the reader's reads.
    @Test func recordReaderAgreesWithPythonsJSON() throws {
        var generator = SplitMix64(seed: 0x5EC0_4D5)
        var documents: [[UInt8]] = []
        var valid: [[UInt8]] = []
        for _ in 0..<1000 {
            let document = Self.randomDocument(using: &generator)
            valid.append(document)
            documents.append(document)
            documents.append(Self.mutated(document, using: &generator))
        }
        var files = Self.cornerCases.map { Array($0.utf8) } + Self.byteCases
        files += Self.cornerCases.map { Array("[\($0)]".utf8) } + Self.byteCases.map { [0x5B] + $0 + [0x5D] }
        files += [Array("\u{FEFF}[1]".utf8), Array("\u{FEFF}{\"a\":1}\n2".utf8), Array(" \u{FEFF}[1]".utf8)]
        var index = 0
        while index < documents.count {
            let group = documents[index..<min(index + Int.random(in: 1...4, using: &generator), documents.count)]
            index += group.count
            let separator: [UInt8] = Bool.random(using: &generator) ? [0x2C] : [0x0A, 0x2C, 0x20]
            files.append([0x5B] + Array(group.joined(separator: separator)) + [0x5D])
            files.append(Array(group.joined(separator: [0x0A])))
        }
        let oneLine = valid.map { $0.map { $0 == 0x0A ? 0x20 : $0 } }
        var large: [[UInt8]] = []
        var size = 0
        while size < 3 << 19 {
            large += oneLine
            size += oneLine.reduce(0) { $0 + $1.count + 2 }
        }
        files.append([0x5B] + Array(large.joined(separator: [0x2C, 0x0A])) + [0x5D])
        files.append(Array(large.joined(separator: [0x0A])))
        #expect(files.suffix(2).allSatisfy { $0.count > 1 << 20 })
        let disagreements = try Self.compareWithReference(
            files.map { file in
                ["input": .string(Data(file).base64EncodedString()), "records": try Self.records(of: file)]
            })
        #expect(disagreements.count == 1, "\(disagreements.joined(separator: "\n"))")
        #expect(disagreements.last == "compared \(files.count)")
    }

    /// What `JSONRecordReader` reads from `file`: its values written back as JSON text, or
    /// null when it reported a failure.
    static func records(of file: [UInt8]) throws -> JSON {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("json-records-\(getpid()).json").path
        try Data(file).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var values: [JSON] = []
        for record in JSONRecordReader(fileDescriptor: fd) {
            guard case .success(let value) = record.value else { return .null }
            values.append(.string(Data(JSONWriter.bytes(value)).base64EncodedString()))
        }
        return .array(values)
    }

    /// Runs the reference over every input, with what Taskline's parser made of it.
    static func compareWithReference(_ inputs: [[UInt8]]) throws -> [String] {
        try compareWithReference(
            inputs.map { input in
                let taskline: JSON = (try? JSONParser.parse(input)).map { .string(Data(JSONWriter.bytes($0)).base64EncodedString()) } ?? .null
                return ["input": .string(Data(input).base64EncodedString()), "taskline": taskline]
            })
    }

    /// Runs the reference over cases in its input format (Fixtures/json_reference.py).
    static func compareWithReference(_ cases: [JSON]) throws -> [String] {
        var lines = Data()
        for line in cases {
            lines.append(contentsOf: JSONWriter.bytes(line))
            lines.append(0x0A)
        }
        // A file of each call's own: the tests that call this run at once, in one process.
        let inputPath = FileManager.default.temporaryDirectory.appendingPathComponent("json-differential-\(UUID().uuidString).jsonl").path
        try lines.write(to: URL(fileURLWithPath: inputPath))
        defer { try? FileManager.default.removeItem(atPath: inputPath) }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", referencePath]
        let output = Pipe.closedOnExec()
        process.standardInput = .fileHandle(try FileHandle(forReadingFrom: URL(fileURLWithPath: inputPath)))
        process.standardOutput = .pipe(output)
        try process.run()
        let report = try output.fileHandleForReading.readAll()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: report, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    // MARK: - Inputs

    static let cornerCases: [String] = {
        let numbers = [
            "0", "-0", "1", "-1", "1.0", "1e0", "1E+2", "1e-2", "0.1", "-0.0", "123456789012345678901234567890",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "18446744073709551616", "1.7976931348623157e308", "1.7976931348623159e308", "2e308", "-2e308",
            "1e-400", "4.9e-324", "1" + String(repeating: "0", count: 400), "01", "1.", ".1", "-", "+1", "1e",
            "1e+", "0x10", "NaN", "Infinity", "-Infinity", "1_000", "--1", "1.5e3.2", "00", "-01", "1E400",
        ]
        let strings = [
            #""""#, #""\"\\\/\b\f\n\r\t""#, #""\u0000""#, #""\u00e9\u00E9""#, #""\uD83D\uDE00""#, #""\uD83D""#,
            #""\uDE00""#, #""\uD83D\u0041""#, #""\x41""#, #""\'""#, #""\u12""#, #""\u12G4""#, "\"\u{7F}\"",
            "\"é😀\u{FFFF}\u{10FFFF}\"", "\"\t\"", "\"\n\"", "\"\u{1F}\"", #""\uDBFF\uDFFF""#, #""\uD800\uD800""#,
            #"""#, #""abc"#, #""\""#,
        ]
        let structures = [
            "[]", "{}", "[1,]", #"{"a":1,}"#, #"{"a" 1}"#, "{a:1}", #"{"a":1,"a":2}"#, #"{"a":1,"b":{"a":2}}"#,
            #"{"\u0061":1,"a":2}"#, #"{"é":1,"e\u0301":2}"#,
            "{" + (0..<20).map { #""k\#($0)":\#($0),"# }.joined() + #""é":1,"e\u0301":2}"#,
            "{" + (0..<20).map { #""k\#($0)":\#($0),"# }.joined() + #""é":1,"\u00e9":2}"#, "[1 2]", "[,1]", "[1,,2]", #"{"a":1 "b":2}"#,
            " [ 1 , 2 ] ", "\t\n\r[]\r\n", "[]\u{A0}", "\u{FEFF}[]", "[] x", "", "  ", "1", #""x""#, "true",
            "false", "null", "nul", "True", "[true,false,null]", "[[[]]]", #"{"":""}"#,
            String(repeating: "[", count: 64) + String(repeating: "]", count: 64),
            String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
            String(repeating: #"{"a":"#, count: 64) + "1" + String(repeating: "}", count: 64),
            String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65),
        ]
        return numbers + numbers.map { "[\($0)]" } + strings + structures
    }()

    /// Invalid UTF-8 in a string and outside one: overlong, surrogate, out of range, truncated, stray continuation.
    static let byteCases: [[UInt8]] = {
        let sequences: [[UInt8]] = [
            [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x82],
            [0x80], [0xFF], [0xF0, 0x9F, 0x98], [0xC3, 0xA9],
        ]
        var cases: [[UInt8]] = []
        for bytes in sequences {
            let inString: [UInt8] = [0x22] + bytes + [0x22]
            let bare: [UInt8] = [0x5B] + bytes + [0x5D]
            let inName: [UInt8] = [0x7B, 0x22] + bytes + [0x22, 0x3A, 0x31, 0x7D]
            cases += [inString, bare, inName]
        }
        return cases
    }()

    static func randomDocument(using generator: inout SplitMix64) -> [UInt8] {
        var out: [UInt8] = []
        appendValue(depth: 0, to: &out, using: &generator)
        return out
    }

    private static func appendSpace(to out: inout [UInt8], using generator: inout SplitMix64) {
        if Int.random(in: 0..<4, using: &generator) == 0 {
            out += (0..<Int.random(in: 1...3, using: &generator)).map { _ in [0x20, 0x09, 0x0A, 0x0D].randomElement(using: &generator)! }
        }
    }

    private static func appendValue(depth: Int, to out: inout [UInt8], using generator: inout SplitMix64) {
        appendSpace(to: &out, using: &generator)
        switch Int.random(in: 0..<(depth > 4 ? 5 : 7), using: &generator) {
        case 0: out += Array(["null", "true", "false"].randomElement(using: &generator)!.utf8)
        case 1, 2: out += Array(randomNumber(using: &generator).utf8)
        case 3, 4: appendString(to: &out, using: &generator)
        case 5:
            out.append(0x5B)
            for index in 0..<Int.random(in: 0...4, using: &generator) {
                if index > 0 { out.append(0x2C) }
                appendValue(depth: depth + 1, to: &out, using: &generator)
            }
            appendSpace(to: &out, using: &generator)
            out.append(0x5D)
        default:
            out.append(0x7B)
            for index in 0..<Int.random(in: 0...4, using: &generator) {
                if index > 0 { out.append(0x2C) }
                appendSpace(to: &out, using: &generator)
                appendString(to: &out, using: &generator)
                out.append(0x3A)
                appendValue(depth: depth + 1, to: &out, using: &generator)
            }
            appendSpace(to: &out, using: &generator)
            out.append(0x7D)
        }
        appendSpace(to: &out, using: &generator)
    }

    private static func randomNumber(using generator: inout SplitMix64) -> String {
        var text = Bool.random(using: &generator) ? "-" : ""
        let digits = Int.random(in: 1...(Int.random(in: 0..<8, using: &generator) == 0 ? 25 : 6), using: &generator)
        text += String(Int.random(in: 1...9, using: &generator)) + String((1..<digits).map { _ in "0123456789".randomElement(using: &generator)! })
        if Bool.random(using: &generator) { text = text.hasPrefix("-") ? "-0" : "0" }
        if Bool.random(using: &generator) { text += "." + String(Int.random(in: 0...99_999, using: &generator)) }
        if Int.random(in: 0..<3, using: &generator) == 0 {
            text +=
                ["e", "E"].randomElement(using: &generator)! + ["", "+", "-"].randomElement(using: &generator)!
                + String(Int.random(in: 0...330, using: &generator))
        }
        return text
    }

    private static let escapes = [
        #"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\n"#, #"\r"#, #"\t"#, #"\u0041"#, #"\u00e9"#,
        #"\uD83D\uDE00"#, #"\uDBFF\uDFFD"#, #"\u0000"#, #"\u001f"#, #"\uFEFF"#, #"\u2028"#,
    ]

    private static func appendString(to out: inout [UInt8], using generator: inout SplitMix64) {
        out.append(0x22)
        for _ in 0..<Int.random(in: 0...8, using: &generator) {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0, 1: out += Array(escapes.randomElement(using: &generator)!.utf8)
            case 2:
                let planes: [ClosedRange<UInt32>] = [0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF]
                let scalar = Unicode.Scalar(UInt32.random(in: planes.randomElement(using: &generator)!, using: &generator))!
                out += Array(String(Character(scalar)).utf8)
            default: out.append(UInt8.random(in: 0x20...0x7E, using: &generator) == 0x22 ? 0x61 : UInt8.random(in: 0x23...0x5B, using: &generator))
            }
        }
        out.append(0x22)
    }

    /// A byte deleted, inserted or replaced, with bytes JSON gives meaning to most of the time.
    static func mutated(_ document: [UInt8], using generator: inout SplitMix64) -> [UInt8] {
        var bytes = document
        let meaningful = Array(#"{}[],:"\-+.eE0123456789 tfn"#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xED, 0xFF]
        let position = Int.random(in: 0...bytes.count, using: &generator)
        let byte =
            Int.random(in: 0..<4, using: &generator) == 0
            ? UInt8.random(in: 0...255, using: &generator) : meaningful.randomElement(using: &generator)!
        switch Int.random(in: 0..<3, using: &generator) {
        case 0 where position < bytes.count: bytes.remove(at: position)
        case 1 where position < bytes.count: bytes[position] = byte
        default: bytes.insert(byte, at: position)
        }
        return bytes
    }
}
