/// Lowercase hexadecimal text of bytes.
package enum Hex {
    /// A page's cursor is encoded and decoded on every request: written straight into the
    /// string's storage, with no array between.
    package static func encode(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            var index = 0
            for byte in bytes {
                out[index] = digit(byte >> 4)
                out[index + 1] = digit(byte & 0xF)
                index += 2
            }
            return index
        }
    }

    @inline(__always) private static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }

    /// `byte`'s two lowercase hex digits.
    package static func append(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(digit(byte >> 4))
        out.append(digit(byte & 0xF))
    }

    package static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { chars -> [UInt8]? in
            guard chars.count % 2 == 0 else { return nil }
            var valid = true
            let bytes = [UInt8](unsafeUninitializedCapacity: chars.count / 2) { out, count in
                for index in 0..<(chars.count / 2) {
                    guard let high = value(chars[2 * index]), let low = value(chars[2 * index + 1]) else {
                        valid = false
                        break
                    }
                    out[index] = high << 4 | low
                    count = index + 1
                }
            }
            return valid ? bytes : nil
        }
    }

    private static func value(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): char - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
