import Foundation
import PostgreSQL
import Testing

/// The test database of scripts/with-postgres; the tests that need it skip without it.
enum Cluster {
    static let connectionString = ProcessInfo.processInfo.environment["TASKLINE_TEST_POSTGRES"]
    static let available: ConditionTrait = .enabled(if: connectionString != nil,
        "TASKLINE_TEST_POSTGRES is unset: run the tests inside scripts/with-postgres")
    /// The socket folder (`PGHOST`), for connection strings built here.
    static var socketFolder: String { ProcessInfo.processInfo.environment["PGHOST"] ?? "" }

    static func connect() throws -> PostgresConnection {
        try PostgresConnection(try #require(connectionString))
    }
}
