#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
/// A strict RFC 8259 parser over UTF-8 bytes.
///
/// Beyond the RFC it refuses what Taskline cannot interpret unambiguously: duplicate member
/// names, lone surrogate escapes, numbers outside a double's range, and nesting deeper than
/// `maxDepth` (which also bounds the parser's stack, whatever the input).
public struct JSONParser {
    public struct Error: Swift.Error, Equatable, CustomStringConvertible {
        public let reason: String
        public let offset: Int
        public var description: String { "\(reason) at byte \(offset)" }
    }

    public static let defaultMaxDepth = 64

    /// `enclosingDepth`: how deep in a larger document the value sits (1 for an element of a
    /// top-level array), so that its nesting counts against `maxDepth` as the whole
    /// document's would.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaxDepth, enclosingDepth: Int = 0) throws(Error) -> JSON {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { buffer throws(Error) in
            var parser = Cursor(bytes: buffer, maxDepth: maxDepth)
            parser.skipWhitespace()
            let value = try parser.value(depth: enclosingDepth)
            parser.skipWhitespace()
            guard parser.position == buffer.count else { throw parser.error("unexpected data after the JSON value") }
            return value
        }
    }

    /// JSON's white space (RFC 8259 §2): nothing else separates tokens.
    public static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Where a value inside an array ends, found without parsing it, over input that
    /// arrives piece by piece: the `,` or `]` after it, outside any string and at the
    /// array's own level. It follows only strings, their escapes and the nesting of brackets,
    /// which is enough to find the end of every valid value; what the value is, and
    /// whether it is valid at all, `parse` says.
    public struct ElementEnd {
        private var depth = 0
        private var inString = false
        private var escaped = false
        /// Line feeds passed over since the element began.
        public private(set) var newlines = 0

        public init() {}

        /// The index of the end in `bytes[start...]`, or nil when these bytes do not reach it;
        /// the scan then goes on with the next bytes.
        public mutating func find(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
            // Locals, not stored properties, in the loop: it is an import's innermost one.
            var (depth, inString, escaped, newlines) = (self.depth, self.inString, self.escaped, self.newlines)
            defer { (self.depth, self.inString, self.escaped, self.newlines) = (depth, inString, escaped, newlines) }
            var index = start
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x0A { newlines += 1 }
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                } else {
                    switch byte {
                    case UInt8(ascii: "\""): inString = true
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"): depth = Swift.max(0, depth - 1)
                    case UInt8(ascii: "]") where depth > 0: depth -= 1
                    case UInt8(ascii: "]"): return index
                    case UInt8(ascii: ",") where depth == 0: return index
                    default: break
                    }
                }
                index += 1
            }
            return nil
        }
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
        }

        func error(_ reason: String) -> Error {
            Error(reason: reason, offset: position)
        }

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipWhitespace() {
            while let byte = current, JSONParser.isWhitespace(byte) { position += 1 }
        }

        mutating func expect(_ literal: StaticString, _ value: JSON) throws(Error) -> JSON {
            let count = literal.utf8CodeUnitCount
            guard position + count <= bytes.count else { throw error("invalid literal") }
            for index in 0..<count where bytes[position + index] != literal.utf8Start[index] {
                throw error("invalid literal")
            }
            position += count
            return value
        }

        mutating func value(depth: Int) throws(Error) -> JSON {
            guard let byte = current else { throw error("unexpected end of input") }
            switch byte {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try expect("true", .bool(true))
            case UInt8(ascii: "f"): return try expect("false", .bool(false))
            case UInt8(ascii: "n"): return try expect("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw error("unexpected character")
            }
        }

        mutating func object(depth: Int) throws(Error) -> JSON {
            guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
            position += 1
            var object = JSONObject()
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                position += 1
                return .object(object)
            }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw error("expected a member name") }
                let keyStart = position
                let key = try string()
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
                position += 1
                skipWhitespace()
                let member = try value(depth: depth)
                guard object.insertNew(key, member) else {
                    throw Error(reason: "duplicate member name \"\(key)\"", offset: keyStart)
                }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"):
                    position += 1
                    return .object(object)
                default: throw error("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws(Error) -> JSON {
            guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
            position += 1
            var elements: [JSON] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try value(depth: depth))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"):
                    position += 1
                    return .array(elements)
                default: throw error("expected ',' or ']'")
                }
            }
        }

        mutating func string() throws(Error) -> String {
            position += 1  // opening quote
            let start = position
            // Fast path: no escapes. The bytes are copied once and validated as UTF-8.
            var ascii = true
            while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                guard byte >= 0x20 else { throw error("control character in string") }
                ascii = ascii && byte < 0x80
                position += 1
            }
            guard let stop = current else { throw error("unterminated string") }
            if stop == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: bytes[start..<position])
                // ASCII (keys, ids, most titles) is valid UTF-8 as it is.
                let text = ascii ? String(decoding: run, as: UTF8.self) : try utf8(run, at: start)
                position += 1
                return text
            }
            var scratch = Array(bytes[start..<position])
            while true {
                guard let byte = current else { throw error("unterminated string") }
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    return try scratch.withUnsafeBufferPointer { buffer throws(Error) in try utf8(buffer, at: start) }
                case UInt8(ascii: "\\"):
                    position += 1
                    try escape(into: &scratch)
                case 0..<0x20:
                    throw error("control character in string")
                default:
                    scratch.append(byte)
                    position += 1
                }
            }
        }

        /// The bytes as a String, or an error if they are not UTF-8. `String(validating:as:)`
        /// is generic over the encoding and many times slower for a short string; the
        /// decoding initializer is specialized for UTF-8, and it changes exactly the bytes
        /// that are not valid UTF-8 (into U+FFFD), so an unchanged result proves them valid.
        func utf8(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int) throws(Error) -> String {
            var text = String(decoding: buffer, as: UTF8.self)
            let unchanged = text.withUTF8 { decoded in
                decoded.count == buffer.count && (buffer.isEmpty || memcmp(decoded.baseAddress!, buffer.baseAddress!, buffer.count) == 0)
            }
            guard unchanged else { throw Error(reason: "invalid UTF-8 in string", offset: offset) }
            return text
        }

        mutating func escape(into scratch: inout [UInt8]) throws(Error) {
            guard let byte = current else { throw error("unterminated escape") }
            position += 1
            switch byte {
            case UInt8(ascii: "\""): scratch.append(0x22)
            case UInt8(ascii: "\\"): scratch.append(0x5C)
            case UInt8(ascii: "/"): scratch.append(0x2F)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                        throw error("lone surrogate escape")
                    }
                    position += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("lone surrogate escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("lone surrogate escape")
                }
                scratch.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
            default:
                throw error("invalid escape")
            }
        }

        mutating func hex4() throws(Error) -> UInt32 {
            guard position + 4 <= bytes.count else { throw error("invalid \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw error("invalid \\u escape")
                }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }

        mutating func number() throws(Error) -> JSON {
            let start = position
            var isInteger = true
            if current == UInt8(ascii: "-") { position += 1 }
            guard let first = current, isDigit(first) else { throw error("invalid number") }
            position += 1
            if first != UInt8(ascii: "0") {
                while let byte = current, isDigit(byte) { position += 1 }
            }
            if current == UInt8(ascii: ".") {
                isInteger = false
                position += 1
                guard let byte = current, isDigit(byte) else { throw error("invalid number") }
                while let byte = current, isDigit(byte) { position += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                isInteger = false
                position += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
                guard let byte = current, isDigit(byte) else { throw error("invalid number") }
                while let byte = current, isDigit(byte) { position += 1 }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            if isInteger, let integer = Int64(text), integer != 0 || bytes[start] != UInt8(ascii: "-") {
                return .integer(integer)
            }
            // Out of range means too large for a double; 1e-400 (which rounds to 0) is kept.
            guard let double = Double(text), double.isFinite else {
                throw Error(reason: "number out of range", offset: start)
            }
            return .number(text)
        }

        func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }
    }
}
