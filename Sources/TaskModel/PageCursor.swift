/// A keyset cursor, one format for every store: the sort-key values of the last task on a
/// page, with a signature of the sort (and whatever else a store's plan depends on) they
/// belong to. The next page starts strictly after those values, so tasks inserted or deleted
/// in between never make a page skip or repeat one. Each store binds the values in its SQL.
///
/// On the wire it is opaque: hex of `signature␟value␟value…`, where each value is
/// `i<integer>`, `s<text>` or `n` (null). The unit separator (U+001F) cannot occur in
/// stored keys, which have no control characters. Cursors are short-lived: a cursor of an
/// older format, or of another sort, is refused with invalid params (protocol §5).
package struct PageCursor: Equatable, Sendable {
    package enum Value: Equatable, Sendable {
        case integer(Int64)
        case text(String)
        case null
    }

    package var signature: String
    package var values: [Value]

    private static let separator: UInt8 = 0x1F

    package init(signature: String, values: [Value]) {
        self.signature = signature
        self.values = values
    }

    package var encoded: String {
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
            case .null:
                bytes.append(UInt8(ascii: "n"))
            }
        }
        return Hex.encode(bytes)
    }

    /// Nil when `encoded` is not a cursor a store made. Works on bytes: splitting a String
    /// walks grapheme clusters, which made decoding a cursor cost a quarter as much as
    /// reading the page it leads to.
    package init?(encoded: String) {
        // Valid UTF-8 as a whole, so every part between separators (ASCII) is valid too.
        guard let bytes = Hex.decode(encoded), String(validating: bytes, as: UTF8.self) != nil else { return nil }
        var parts = bytes.split(separator: Self.separator, omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return nil }
        signature = String(decoding: parts.removeFirst(), as: UTF8.self)
        var values: [Value] = []
        values.reserveCapacity(parts.count)
        for part in parts {
            let rest = String(decoding: part.dropFirst(), as: UTF8.self)
            switch part.first {
            case UInt8(ascii: "i"):
                guard let int = Int64(rest) else { return nil }
                values.append(.integer(int))
            case UInt8(ascii: "s"):
                values.append(.text(rest))
            case UInt8(ascii: "n") where rest.isEmpty:
                values.append(.null)
            default:
                return nil
            }
        }
        self.values = values
    }
}
