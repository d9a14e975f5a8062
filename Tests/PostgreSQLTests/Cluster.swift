import Foundation
import PostgreSQL
import Testing

/// The test database of scripts/with-postgres; the tests that need it skip without it.
enum Cluster {
    static let connectionString = ProcessInfo.processInfo.environment["TASKLINE_TEST_POSTGRES"]
    static let available: ConditionTrait = .enabled(
        if: connectionString != nil,
        "TASKLINE_TEST_POSTGRES is unset: run the tests inside scripts/with-postgres")
    /// The socket folder (`PGHOST`), for connection strings built here.
    static var socketFolder: String { ProcessInfo.processInfo.environment["PGHOST"] ?? "" }

    static func connect() throws -> PostgresConnection {
        try PostgresConnection(try #require(connectionString))
    }

    /// Ends `victim`'s server process from another connection and waits until it is gone.
    static func terminate(_ victim: PostgresConnection) throws {
        let killer = try connect()
        let rows = try killer.query("SELECT pg_terminate_backend($1::int4, 30000) AS gone", [.integer(Int64(victim.backendPID))])
        try #require(try rows[0].bool("gone"))
    }
}
