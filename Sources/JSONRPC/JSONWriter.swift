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

    static func write(_ value: JSON, to out: inout [UInt8]) {
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

    /// Appends `response` as a JSON object: `jsonrpc`, `id`, then `result` or `error`. The
    /// envelope is written as it is, not built as a tree first: it is on every answer.
    public static func write(_ response: Response, to out: inout [UInt8]) {
        append(#"{"jsonrpc":"2.0","id":"#, to: &out)
        write(response.id.json, to: &out)
        switch response.result {
        case .success(let value):
            append(#","result":"#, to: &out)
            write(value, to: &out)
        case .failure(let error):
            append(#","error":"#, to: &out)
            write(error.json, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends `notification` as a JSON object: `jsonrpc`, `method`, then `params` if any.
    public static func write(_ notification: Notification, to out: inout [UInt8]) {
        append(#"{"jsonrpc":"2.0","method":"#, to: &out)
        write(notification.method, to: &out)
        if let params = notification.params {
            append(#","params":"#, to: &out)
            write(params, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends text that is already JSON (or part of it), such as a fixed member name.
    public static func append(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `string` as a JSON string literal.
    public static func write(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            // Copy runs of bytes that need no escape in one go, looking at eight at a time.
            var runStart = 0
            var offset = 0
            while offset < bytes.count {
                if offset + 8 <= bytes.count && !mayNeedEscape(UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)) {
                    offset += 8
                    continue
                }
                let byte = bytes[offset]
                offset += 1
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<(offset - 1)]))
                runStart = offset
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
                case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                default:
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                            hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// True when one of the eight bytes of `word` may be below 0x20, a quote or a backslash
    /// (never false when one is): the zero-byte tests of "Bit Twiddling Hacks".
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
        let below = (word &- ones &* 0x20) & ~word & highs != 0
        return below || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
    }
}
