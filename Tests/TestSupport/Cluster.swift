import Foundation
import PostgreSQL

/// The test database of scripts/with-postgres (`TASKLINE_TEST_POSTGRES`), shared by every
/// target that tests against a real cluster: fresh schemas in it, connections to it, and
/// the end of a connection's server process. The tests that need it skip without it.
public enum Cluster {
    /// The test database, in libpq's key=value form; nil outside scripts/with-postgres.
    public static let connectionString = ProcessInfo.processInfo.environment["TASKLINE_TEST_POSTGRES"]

    /// Why there is no cluster to test against, or nil when there is.
    public static let unavailable: String? =
        connectionString == nil ? "TASKLINE_TEST_POSTGRES is unset: run the tests inside scripts/with-postgres" : nil

    /// The socket folder (`PGHOST`), for connection strings built here.
    public static var socketFolder: String { ProcessInfo.processInfo.environment["PGHOST"] ?? "" }

    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The test database's connection string, or `Unavailable` saying why there is none.
    public static func base() throws -> String {
        guard let connectionString else { throw Unavailable(description: unavailable ?? "") }
        return connectionString
    }

    /// A connection string whose search_path is a new, empty schema, named `prefix` and a
    /// random suffix: each test works in a schema of its own, so that tests run in parallel.
    /// Schemas stay until the throwaway cluster goes.
    public static func freshSchema(prefix: String = "t_") throws -> String {
        let base = try base()
        let name = prefix + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresConnection(base).execute("CREATE SCHEMA \(name)")
        return base + " options='-c search_path=\(name)'"
    }

    /// A connection to the test database.
    public static func connect() throws -> PostgresConnection {
        try PostgresConnection(try base())
    }

    public struct NotTerminated: Error {}

    /// Ends `victim`'s server process from another connection and waits until it is gone.
    public static func terminate(_ victim: PostgresConnection) throws {
        let killer = try connect()
        let rows = try killer.query("SELECT pg_terminate_backend($1::int4, 30000) AS gone", [.integer(Int64(victim.backendPID))])
        guard try rows[0].bool("gone") else { throw NotTerminated() }
    }
}
