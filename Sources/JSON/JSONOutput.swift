/// Writes JSON text into a small buffer of its own and moves it into the output array when
/// full: each write is a copy and a comparison, with no capacity or uniqueness check and no
/// call, which an array's `append` costs each time (a page of tasks is a thousand short
/// writes). Made by `JSONWriter.write(to:_:)`, whose buffer it must not outlive.
public struct JSONOutput {
    /// The buffer's size unless the writer asks for less; a `put` of up to 64 bytes in one
    /// piece needs at least that.
    public static let defaultBufferSize = 16384
    @usableFromInline var text: [UInt8]
    @usableFromInline let buffer: UnsafeMutablePointer<UInt8>
    @usableFromInline let bufferSize: Int
    @usableFromInline var used = 0

    init(text: [UInt8], buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.text = text
        self.buffer = buffer.baseAddress!
        bufferSize = buffer.count
    }

    /// Moves what the buffer holds into `text`.
    @usableFromInline mutating func flush() {
        text.append(contentsOf: UnsafeBufferPointer(start: buffer, count: used))
        used = 0
    }

    @inlinable @inline(__always) public mutating func put(_ byte: UInt8) {
        if used == bufferSize { flush() }
        buffer[used] = byte
        used += 1
    }

    /// Text that is already JSON, such as a fixed member name.
    @inlinable @inline(__always) public mutating func put(_ text: StaticString) {
        put(bytes: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Bytes that are already JSON text.
    @inlinable @inline(__always) public mutating func put(bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        if bytes.count > bufferSize - used {
            flush()
            if bytes.count > bufferSize / 2 {
                text.append(contentsOf: bytes)
                return
            }
        }
        (buffer + used).update(from: base, count: bytes.count)
        used += bytes.count
    }

    /// Writes through `body` at most `count` bytes (no more than 64); `body` returns how many
    /// it wrote.
    @inlinable @inline(__always) public mutating func put(atMost count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if count > bufferSize - used { flush() }
        used += body(buffer + used)
    }

    public mutating func put(integer value: Int64) {
        put(atMost: 20) { text in
            var magnitude = value.magnitude
            var digits = 0
            repeat {
                digits += 1
                magnitude /= 10
            } while magnitude > 0
            let sign = value < 0 ? 1 : 0
            if value < 0 { text[0] = UInt8(ascii: "-") }
            magnitude = value.magnitude
            for position in stride(from: sign + digits - 1, through: sign, by: -1) {
                text[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            }
            return sign + digits
        }
    }

    /// UTF-8 text as a JSON string literal. Bytes that are not UTF-8 (another program's, in a
    /// stored file) are written as `String(decoding:)` reads them, each bad sequence as
    /// U+FFFD (3 bytes for at least 1): a message is always UTF-8.
    public mutating func put(utf8String bytes: UnsafeBufferPointer<UInt8>) {
        // Most texts are ASCII with nothing to escape: found so in one pass, they are copied
        // whole, where checking them as UTF-8 and then for escapes took two.
        if Self.isPlainASCII(bytes) {
            put(UInt8(ascii: "\""))
            put(bytes: bytes)
            put(UInt8(ascii: "\""))
            return
        }
        Self.asUTF8(bytes) { put(string: $0) }
    }

    /// True when every byte is ASCII and none needs an escape in a JSON string.
    private static func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 || mayNeedEscape(word) { return false }
            offset += 8
        }
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte >= 0x80 || byte < 0x20 || byte == 0x22 || byte == 0x5C { return false }
            offset += 1
        }
        return true
    }

    /// Bytes that are JSON text but may not be UTF-8, such as a stored object: those that are
    /// not are made U+FFFD, as in `put(utf8String:)`.
    public mutating func put(utf8JSON bytes: UnsafeBufferPointer<UInt8>) {
        Self.asUTF8(bytes) { put(bytes: $0) }
    }

    /// Calls `body` with `bytes`, or when they are not UTF-8, with `String(decoding:)`'s
    /// reading of them.
    private static func asUTF8(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        if JSONWriter.isUTF8(bytes) { return body(bytes) }
        var repaired = String(decoding: bytes, as: UTF8.self)
        repaired.withUTF8(body)
    }

    /// Valid UTF-8 `bytes` as a JSON string literal: control characters, the quote and the
    /// backslash escaped, so a message stays on one line.
    public mutating func put(string bytes: UnsafeBufferPointer<UInt8>) {
        put(UInt8(ascii: "\""))
        defer { put(UInt8(ascii: "\"")) }
        guard let base = bytes.baseAddress else { return }
        // Copy runs of bytes that need no escape in one go, looking at eight at a time.
        var runStart = 0
        var offset = 0
        while offset < bytes.count {
            if offset + 8 <= bytes.count && !Self.mayNeedEscape(UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)) {
                offset += 8
                continue
            }
            let byte = bytes[offset]
            offset += 1
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            put(bytes: UnsafeBufferPointer(rebasing: bytes[runStart..<(offset - 1)]))
            runStart = offset
            put(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): put(byte)
            case 0x0A: put(UInt8(ascii: "n"))
            case 0x0D: put(UInt8(ascii: "r"))
            case 0x09: put(UInt8(ascii: "t"))
            default:
                put("u00")
                put(Self.hexDigits[Int(byte >> 4)])
                put(Self.hexDigits[Int(byte & 0xF)])
            }
        }
        put(bytes: UnsafeBufferPointer(rebasing: bytes[runStart...]))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

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
