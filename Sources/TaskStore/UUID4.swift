#if canImport(Glibc)
import Glibc
#endif

/// Random (version 4) UUIDs in their lowercase text form, without pulling in Foundation.
enum UUID4 {
    static func random() -> String {
        // One system call for all 16 bytes (glibc's arc4random_buf asks the kernel each
        // time); SystemRandomNumberGenerator makes one per 64-bit draw.
        var draws: (high: UInt64, low: UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &draws) { arc4random_buf($0.baseAddress!, $0.count) }
        let (high, low) = draws
        // Written as bytes: splitting a hex String into Characters and joining the groups
        // cost 45,000 instructions, a tenth of a whole tasks/create.
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for index in 0..<16 {
            var byte = UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (8 * UInt64(index % 8)))
            if index == 6 { byte = byte & 0x0F | 0x40 }  // version 4
            if index == 8 { byte = byte & 0x3F | 0x80 }  // RFC 4122 variant
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            Hex.append(byte, to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
