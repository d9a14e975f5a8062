import PostgresStore
import TestSupport
import Testing

extension Cluster {
    /// On inside scripts/with-postgres; outside, the suite skips, saying why.
    static let available: ConditionTrait = .enabled(if: unavailable == nil, Comment(rawValue: unavailable ?? ""))

    /// A store on `connectionString`, or on a fresh schema.
    static func store(_ connectionString: String? = nil) throws -> PostgresTaskStore {
        try PostgresTaskStore(connectionString: connectionString ?? freshSchema())
    }
}
