import PostgreSQL
import TestSupport
import Testing

@Suite(Cluster.available) struct PreparedStatementTests {
    /// A statement prepared once runs by name with each run's values; a new session has it
    /// no longer, until it is prepared again.
    @Test func aPreparedStatementRunsByNameUntilTheSessionEnds() throws {
        let db = try Cluster.connect()
        try db.prepare("doubled", "SELECT $1 * 2 AS n, $2 AS label", parameterTypes: [.integer(0), .text("")])
        #expect(try db.query(prepared: "doubled", [.integer(21), .text("a")])[0].int("n") == 42)
        let row = try db.query(prepared: "doubled", [.integer(-4), .text("b")])[0]
        #expect(try row.int("n") == -8 && row.text("label") == "b")

        try Cluster.terminate(db)
        #expect(throws: PostgresError.self) { try db.query("SELECT 1") }
        try db.reset()
        let error = try #require(throws: PostgresError.self) { try db.query(prepared: "doubled", [.integer(1), .text("c")]) }
        #expect(error.sqlstate == SQLState(rawValue: "26000"))  // invalid_sql_statement_name
        try db.prepare("doubled", "SELECT $1 * 2 AS n, $2 AS label", parameterTypes: [.integer(0), .text("")])
        #expect(try db.query(prepared: "doubled", [.integer(5), .text("c")])[0].int("n") == 10)
    }
}
