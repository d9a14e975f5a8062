import PostgreSQL
import TestSupport
import Testing

@Suite(Cluster.available) struct TransactionTests {
    struct Failure: Error {}

    @Test func commitsWhatTheBodyDid() throws {
        let db = try Cluster.connect()
        try db.execute("CREATE TEMP TABLE t (n int8)")
        let level = try db.transaction {
            try db.run("INSERT INTO t VALUES (1)")
            return try db.query("SELECT current_setting('transaction_isolation') AS level")[0].text("level")
        }
        #expect(level == "serializable")
        #expect(try db.query("SELECT count(*) AS n FROM t")[0].int("n") == 1)
    }

    @Test func anErrorRollsBackAndIsRethrown() throws {
        let db = try Cluster.connect()
        try db.execute("CREATE TEMP TABLE t (n int8)")
        #expect(throws: Failure.self) {
            try db.transaction(.readCommitted) {
                try db.run("INSERT INTO t VALUES (1)")
                throw Failure()
            }
        }
        #expect(try db.query("SELECT count(*) AS n FROM t")[0].int("n") == 0)
    }

    /// PostgreSQL answers COMMIT after a failed statement with a rollback, not an error.
    @Test func aFailedStatementTheBodyCaughtStillFailsTheTransaction() throws {
        let db = try Cluster.connect()
        try db.execute("CREATE TEMP TABLE t (n int8 PRIMARY KEY)")
        let error = try #require(throws: PostgresError.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (1)")
                _ = try? db.run("INSERT INTO t VALUES (1)")
            }
        }
        #expect(error.message.contains("rolled back"))
        #expect(try db.query("SELECT count(*) AS n FROM t")[0].int("n") == 0)
    }

    /// Two serializable transactions that each read what the other writes: one must fail
    /// with 40001, and says that running it again may succeed.
    @Test func aSerializationFailureIsRetryable() throws {
        let a = try Cluster.connect()
        let b = try Cluster.connect()
        let table = "serial_\(a.backendPID)"
        try a.execute("CREATE TABLE \(table) (n int8)")
        defer { try? a.execute("DROP TABLE \(table)") }
        let error = try #require(throws: PostgresError.self) {
            try a.transaction {
                _ = try a.query("SELECT sum(n) FROM \(table)")
                try b.transaction {
                    _ = try b.query("SELECT sum(n) FROM \(table)")
                    try b.run("INSERT INTO \(table) VALUES (1)")
                }
                try a.run("INSERT INTO \(table) VALUES (2)")
            }
        }
        #expect(error.sqlstate == .serializationFailure)
        #expect(error.isRetryable)
        #expect(try a.query("SELECT count(*) AS n FROM \(table)")[0].int("n") == 1)
    }
}
