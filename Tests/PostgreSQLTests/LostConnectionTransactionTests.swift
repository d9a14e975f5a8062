import PostgreSQL
import TestSupport
import Testing

@Suite(Cluster.available) struct LostConnectionTransactionTests {
    /// A transaction begun on a lost connection fails as the lost connection it is, rather
    /// than taking libpq's "unknown" transaction status for a transaction already open.
    @Test func aTransactionOnALostConnectionThrows() throws {
        let db = try Cluster.connect()
        try Cluster.terminate(db)
        #expect(throws: PostgresError.self) { try db.query("SELECT 1") }

        let error = try #require(throws: PostgresError.self) { try db.transaction { try db.query("SELECT 1") } }
        #expect(error.connectionLost)
    }

    /// What a reconnection waits at most is the connection string's `connect_timeout`,
    /// at least 2 s as libpq has it; nil when it sets none.
    @Test func theConnectTimeoutIsTheConnectionStrings() throws {
        let base = try #require(Cluster.connectionString)
        #expect(try PostgresConnection(base).connectTimeoutSeconds == nil)
        #expect(try PostgresConnection(base + " connect_timeout=7").connectTimeoutSeconds == 7)
        #expect(try PostgresConnection(base + " connect_timeout=1").connectTimeoutSeconds == 2)
        #expect(try PostgresConnection(base + " connect_timeout=0").connectTimeoutSeconds == nil)
    }
}
