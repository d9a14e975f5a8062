import PostgreSQL
import TestSupport
import Testing

@Suite(Cluster.available) struct ConnectionTests {
    @Test func connectsWithTheKeyValueFormAndTheURI() throws {
        let keyValue = try Cluster.connect()
        #expect(keyValue.status == .ok)
        #expect(try keyValue.query("SELECT current_user AS name")[0].text("name") == "taskline")

        let folder = Cluster.socketFolder.replacing("/", with: "%2F")
        let uri = try PostgresConnection("postgresql:///taskline_test?host=\(folder)&user=taskline&application_name=uri")
        #expect(try uri.query("SELECT current_setting('application_name') AS name")[0].text("name") == "uri")
        #expect(uri.backendPID != keyValue.backendPID)
    }

    @Test func bindsAndReadsEveryKindOfParameter() throws {
        let db = try Cluster.connect()
        let text = "héllo ✓ 'quoted' \\ back\"slash 🐢"
        let bytes: [UInt8] = [0, 1, 0x27, 0x5C, 0x7F, 0x80, 255]
        let rows = try db.query(
            """
            SELECT $1 AS min, $2 AS max, pg_typeof($1)::text AS integer_type,
                   $3 AS tenth, $4 AS tiny, $5 AS infinite, $6 AS negative_infinite, $7 AS nan, pg_typeof($3)::text AS double_type,
                   $8 AS yes, $9 AS no, pg_typeof($8)::text AS boolean_type,
                   $10 AS bytes, $11 AS empty_bytes, pg_typeof($10)::text AS bytes_type,
                   $12::text AS text, $13::text AS empty_text, $14::text AS null_text, $14::int8 AS null_integer
            """,
            [
                .integer(.min), .integer(.max), .double(0.1), .double(.leastNonzeroMagnitude), .double(.infinity), .double(-.infinity), .double(.nan),
                true, false, .bytes(bytes), .bytes([]), .text(text), "", nil,
            ])
        let row = rows[0]
        #expect(try row.int64("min") == .min)
        #expect(try row.int64("max") == .max)
        #expect(try row.text("integer_type") == "bigint")
        #expect(try row.double("tenth") == 0.1)
        #expect(try row.double("tiny") == .leastNonzeroMagnitude)
        #expect(try row.double("infinite") == .infinity)
        #expect(try row.double("negative_infinite") == -.infinity)
        #expect(try row.double("nan").isNaN)
        #expect(try row.text("double_type") == "double precision")
        #expect(try row.bool("yes") == true)
        #expect(try row.bool("no") == false)
        #expect(try row.text("boolean_type") == "boolean")
        #expect(try row.bytes("bytes") == bytes)
        #expect(try row.bytes("empty_bytes") == [])
        #expect(try row.text("bytes_type") == "bytea")
        #expect(try row.text("text") == text)
        #expect(try row.text("empty_text") == "")
        #expect(!row.isNull("empty_text"))
        #expect(row.isNull("null_text"))
        #expect(row.optionalText("null_text") == nil)
        #expect(try row.optionalInt64("null_integer") == nil)
        #expect(throws: PostgresError.self) { try row.text("null_text") }
        #expect(throws: PostgresError.self) { try row.int64("text") }
    }

    @Test func byteaReadsInBothOutputFormats() throws {
        let db = try Cluster.connect()
        let bytes: [UInt8] = [0, 0x27, 0x5C, 0x41, 255]
        for format in ["hex", "escape"] {
            try db.execute("SET bytea_output = \(format)")
            #expect(try db.query("SELECT $1 AS b", [.bytes(bytes)])[0].bytes("b") == bytes, "\(format)")
        }
    }

    @Test func parametersAreBoundNotSpliced() throws {
        let db = try Cluster.connect()
        try db.execute("CREATE TEMP TABLE t (s text)")
        let hostile = "'); DROP TABLE t; --"
        #expect(try db.run("INSERT INTO t VALUES ($1), ($2)", [.text(hostile), "x"]) == 2)
        #expect(try db.query("SELECT s FROM t WHERE s = $1", [.text(hostile)]).map { try $0.text("s") } == [hostile])
    }

    /// libpq would cut a text parameter at its first NUL and store the rest silently.
    @Test func textWithANULIsRefusedNotCut() throws {
        let db = try Cluster.connect()
        let error = try #require(throws: PostgresError.self) { try db.query("SELECT $1::text AS s", [.text("before\u{0}after")]) }
        #expect(error.sqlstate == nil)
        #expect(error.message.contains("NUL"))
    }

    @Test func errorsCarryTheSQLSTATEMessageAndSQL() throws {
        let db = try Cluster.connect()
        try db.execute("CREATE TEMP TABLE u (id int8 PRIMARY KEY)")
        let insert = "INSERT INTO u (id) VALUES ($1)"
        try db.run(insert, [1])
        let error = try #require(throws: PostgresError.self) { try db.run(insert, [1]) }
        #expect(error.sqlstate == .uniqueViolation)
        #expect(error.sqlstate?.errorClass == "23")
        #expect(error.message.contains("duplicate key value violates unique constraint"))
        #expect(error.detail == "Key (id)=(1) already exists.")
        #expect(error.sql == insert)
        #expect(!error.connectionLost)
        #expect(!error.isRetryable)
        #expect(error.description.hasPrefix("PostgreSQL error 23505: "))

        let syntax = try #require(throws: PostgresError.self) { try db.query("SELEKT 1") }
        #expect(syntax.sqlstate == SQLState(rawValue: "42601"))
        let missing = try #require(throws: PostgresError.self) { try db.query("SELECT * FROM nowhere") }
        #expect(missing.sqlstate == .undefinedTable)
        // The connection is still usable after each.
        #expect(try db.query("SELECT count(*) AS n FROM u")[0].int("n") == 1)
    }

    @Test func rowsAreReadByExactColumnName() throws {
        let db = try Cluster.connect()
        let rows = try db.query("SELECT n, n * 10 AS \"Tens\" FROM generate_series(1, 3) AS n")
        #expect(rows.columnNames == ["n", "Tens"])
        #expect(rows.count == 3)
        #expect(try rows.map { try $0.int("Tens") } == [10, 20, 30])
        #expect(rows.commandTag == "SELECT 3")
        #expect(rows.affectedRows == 3)
    }
}
