/// Random (version 4) UUIDs in their lowercase text form, without pulling in Foundation.
enum UUID4 {
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        // Two 64-bit draws: one system call each, rather than one per byte.
        let high = generator.next(), low = generator.next()
        var bytes = (0..<16).map { index in UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (8 * UInt64(index % 8))) }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
        let hex = Hex.encode(bytes)
        let chars = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }.joined(separator: "-")
    }
}
