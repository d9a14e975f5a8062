/// Writes JSON as compact UTF-8. Control characters, including newlines, are always escaped,
/// so a message is one line: what newline-delimited framing needs.
public enum JSONWriter {
    public static func bytes(_ value: JSON) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, to: &out)
        return out
    }

    public static func string(_ value: JSON) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// Appends `value` as JSON text.
    package static func write(_ value: JSON, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let bool): out.append(contentsOf: (bool ? "true" : "false").utf8)
        case .integer(let int): out.append(contentsOf: String(int).utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let string): write(string, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, member) in object {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                write(key, to: &out)
                out.append(UInt8(ascii: ":"))
                write(member, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .raw(let text):
            out.append(contentsOf: text)
        }
    }

    /// Appends text that is already JSON (or part of it), such as a fixed member name.
    public static func append(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends what `body` writes through a `JSONOutput` to `out`; `bufferSize` smaller than
    /// the default for short texts, whose buffer is then on the stack.
    public static func write(to out: inout [UInt8], bufferSize: Int = JSONOutput.defaultBufferSize, _ body: (inout JSONOutput) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(64, min(bufferSize, JSONOutput.defaultBufferSize))) { buffer in
            var output = JSONOutput(text: out, buffer: buffer)
            out = []
            body(&output)
            output.flush()
            out = output.text
        }
    }

    /// Appends `string` as a JSON string literal.
    public static func write(_ string: String, to out: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes in
            write(to: &out, bufferSize: 6 * bytes.count + 2) { $0.put(string: bytes) }
        }
    }

    /// True when `bytes` are UTF-8 (Unicode's table 3-7: no overlong form, surrogate or
    /// code point past U+10FFFF). Eight ASCII bytes are passed at a time; the standard
    /// library's `String(validating:as:)`, generic over the encoding, costs thousands of
    /// instructions for a short text.
    package static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var offset = 0
        while offset < count {
            if offset + 8 <= count && UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                offset += 8
                continue
            }
            let lead = bytes[offset]
            if lead < 0x80 {
                offset += 1
                continue
            }
            let length: Int
            var second: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                second = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                second = 0x80...0x9F
            case 0xF0:
                length = 4
                second = 0x90...0xBF
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                second = 0x80...0x8F
            default: return false
            }
            guard offset + length <= count, second.contains(bytes[offset + 1]) else { return false }
            for next in (offset + 2)..<(offset + length) where bytes[next] & 0xC0 != 0x80 { return false }
            offset += length
        }
        return true
    }
}
