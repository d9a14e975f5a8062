import Foundation
import PostgreSQL
import PostgresStore
import Testing

/// The test database of scripts/with-postgres; the tests that need it skip without it.
/// Each test works in a schema of its own, made fresh, so that tests can run in parallel.
enum Cluster {
    static let connectionString = ProcessInfo.processInfo.environment["TASKLINE_TEST_POSTGRES"]
    static let available: ConditionTrait = .enabled(
        if: connectionString != nil,
        "TASKLINE_TEST_POSTGRES is unset: run the tests inside scripts/with-postgres")

    /// A connection string whose search_path is a new, empty schema.
    static func freshSchema() throws -> String {
        let base = try #require(connectionString)
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresConnection(base).execute("CREATE SCHEMA \(name)")
        return base + " options='-c search_path=\(name)'"
    }

    static func store(_ connectionString: String? = nil) throws -> PostgresTaskStore {
        try PostgresTaskStore(connectionString: connectionString ?? freshSchema())
    }
}
