import PostgreSQL

/// What `--db` names: a SQLite file, or a PostgreSQL database in libpq's URI
/// (`postgresql://…`, `postgres://…`) or key=value form (`host=… dbname=…`). A file whose
/// name reads as key=value is named with its folder: `./dbname=x`.
enum StoreLocation: CustomStringConvertible {
    case sqlite(path: String)
    case postgresql(connectionString: String)

    init(_ text: String) {
        self = Self.isPostgreSQL(text) ? .postgresql(connectionString: text) : .sqlite(path: text)
    }

    private static func isPostgreSQL(_ text: String) -> Bool {
        if text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") { return true }
        let start = text.drop { $0 == " " }
        let keyword = start.prefix { $0.isASCII && ($0.isLetter || $0 == "_") }
        return !keyword.isEmpty && start.dropFirst(keyword.count).drop { $0 == " " }.first == "="
    }

    /// For messages and logs: a connection string without its passwords.
    var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgresql(let connectionString): redactPasswords(in: connectionString)
        }
    }
}
