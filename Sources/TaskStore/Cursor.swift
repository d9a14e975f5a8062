import SQLite
import TaskModel

/// A page's keyset cursor (`PageCursor`, the one wire format) with its values as this
/// store binds them.
struct Cursor: Equatable {
    var signature: String
    var values: [SQLValue]

    init(signature: String, values: [SQLValue]) {
        self.signature = signature
        self.values = values
    }

    var encoded: String {
        PageCursor(
            signature: signature,
            values: values.map { value in
                switch value {
                case .integer(let int): .integer(int)
                case .text(let text): .text(text)
                default: preconditionFailure("sort keys are integers or text")
                }
            }
        ).encoded
    }

    /// Nil when `encoded` is not a cursor; whether it is one of this plan's, the plan says.
    init?(encoded: String) {
        guard let cursor = PageCursor(encoded: encoded) else { return nil }
        var values: [SQLValue] = []
        values.reserveCapacity(cursor.values.count)
        for value in cursor.values {
            switch value {
            case .integer(let int): values.append(.integer(int))
            case .text(let text): values.append(.text(text))
            case .null: return nil
            }
        }
        self.init(signature: cursor.signature, values: values)
    }
}
