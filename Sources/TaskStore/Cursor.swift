import SQLite
import TaskModel

/// A keyset cursor: the sort-key values of the last task on a page, plus the sort they
/// belong to. The next page starts strictly after those values, so tasks inserted or
/// deleted in between never make a page skip or repeat one.
///
/// On the wire it is opaque: hex of `signature␟value␟value…`, where each value is
/// `i<integer>` or `s<text>`. The unit separator (U+001F) cannot occur in stored keys,
/// which have no control characters.
struct Cursor: Equatable {
    var signature: String
    var values: [SQLValue]

    private static let separator: UInt8 = 0x1F

    var encoded: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(signature.utf8.count + 40 * values.count)
        bytes += signature.utf8
        for value in values {
            bytes.append(Self.separator)
            switch value {
            case .integer(let int):
                bytes.append(UInt8(ascii: "i"))
                bytes += String(int).utf8
            case .text(let string):
                bytes.append(UInt8(ascii: "s"))
                bytes += string.utf8
            default: preconditionFailure("sort keys are integers or text")
            }
        }
        return Hex.encode(bytes)
    }

    init(signature: String, values: [SQLValue]) {
        self.signature = signature
        self.values = values
    }

    /// Nil when `encoded` is not a cursor this server made. Works on bytes: splitting a
    /// String walks grapheme clusters, which made decoding a cursor cost a quarter as much
    /// as reading the page it leads to.
    init?(encoded: String) {
        // Valid UTF-8 as a whole, so every part between separators (ASCII) is valid too.
        guard let bytes = Hex.decode(encoded), String(validating: bytes, as: UTF8.self) != nil else { return nil }
        var parts = bytes.split(separator: Self.separator, omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return nil }
        signature = String(decoding: parts.removeFirst(), as: UTF8.self)
        var values: [SQLValue] = []
        values.reserveCapacity(parts.count)
        for part in parts {
            let rest = String(decoding: part.dropFirst(), as: UTF8.self)
            switch part.first {
            case UInt8(ascii: "i"):
                guard let int = Int64(rest) else { return nil }
                values.append(.integer(int))
            case UInt8(ascii: "s"):
                values.append(.text(rest))
            default:
                return nil
            }
        }
        self.values = values
    }
}
