import Foundation
import SQLite
import Synchronization
import TestSupport
import Testing

@Suite struct DatabaseTests {
    let directory = TemporaryDirectory()

    func open() throws -> Database {
        try Database(path: directory.file("test.sqlite"))
    }

    @Test func bindsAndReadsEveryStorageClass() throws {
        let db = try open()
        try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n)")
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [.integer(-42), .real(2.5), .text("héllo ✓"), .blob([0, 1, 255]), .null])
        let row = try db.cachedStatement("SELECT i, r, s, b, n FROM t").firstRow { row in
            (row.int64(0), row.value(1), row.text(2), row.value(3), row.isNull(4), row.optionalText(4))
        }
        let (i, r, s, b, isNull, optional) = try #require(row)
        #expect(i == -42)
        #expect(r == .real(2.5))
        #expect(s == "héllo ✓")
        #expect(b == .blob([0, 1, 255]))
        #expect(isNull)
        #expect(optional == nil)
    }

    @Test func aCommitToTheWALTellsItsFramesAndCheckpointsOnlyWhenTold() throws {
        let path = directory.file("test.sqlite")
        let db = try open()
        try db.execute("PRAGMA journal_mode = WAL")
        try db.execute("CREATE TABLE t (s TEXT)")
        var frames: [Int] = []
        var written: [Int] = []
        var checkpointNow = false
        db.onCommitToWAL { count, pages in
            frames.append(count)
            written.append(pages)
            return checkpointNow
        }
        func size() throws -> Int { try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) }
        let before = try size()
        // Four or five pages a row: past SQLite's automatic checkpoint (1,000 frames), which
        // the hook replaces.
        let row = String(repeating: "x", count: 12_000)
        for _ in 0..<300 { try db.run("INSERT INTO t VALUES (?)", [.text(row)]) }
        #expect(frames.count == 300 && frames == frames.sorted() && frames.last! > 1000)
        // Each commit's pages are the frames it added.
        #expect(zip(frames.dropFirst(), frames).map { $0 - $1 } == Array(written.dropFirst()))
        #expect(try size() == before)
        checkpointNow = true
        try db.run("INSERT INTO t VALUES (?)", [.text(row)])
        #expect(try size() > before + 300 * row.utf8.count)
        #expect(try db.integer("SELECT count(*) FROM t") == 301)
        // The checkpoint copied every frame, so the next commit starts the WAL over: it holds
        // what that commit wrote, and no more.
        checkpointNow = false
        try db.run("INSERT INTO t VALUES (?)", [.text(row)])
        #expect(frames.last! < 10 && frames.last! <= written.last!)
    }

    @Test func textWithQuotesAndNULsIsBoundNotSpliced() throws {
        let db = try open()
        try db.execute("CREATE TABLE t (s TEXT)")
        let hostile = "'); DROP TABLE t; --"
        try db.run("INSERT INTO t VALUES (?)", [.text(hostile)])
        #expect(try db.cachedStatement("SELECT s FROM t").firstRow { $0.text(0) } == hostile)
        #expect(try db.integer("SELECT count(*) FROM t") == 1)

        // All of the text is bound, NULs included: it is not a C string that ends at the first.
        let withNUL = "before\u{0}after"
        try db.run("INSERT INTO t VALUES (?)", [.text(withNUL)])
        #expect(try db.cachedStatement("SELECT s FROM t WHERE s = ?").firstRow([.text(withNUL)]) { $0.text(0) } == withNUL)
        #expect(try db.integer("SELECT count(*) FROM t WHERE s = ?", [.text("before")]) == 0)
        #expect(try db.integer("SELECT length(CAST(? AS BLOB))", [.text(withNUL)]) == 12)
        #expect(try db.cachedStatement("SELECT typeof(?)").firstRow([.text("")]) { $0.text(0) } == "text")
    }

    /// A primary code matches every extended code built on it; an extended code only itself.
    @Test func resultCodesMatchAsPatterns() {
        func kind(_ code: ResultCode) -> String {
            switch code {
            case .constraintCheck: "check"
            case .constraint: "constraint"
            case .busy: "busy"
            default: "other"
            }
        }
        #expect(kind(.busySnapshot) == "busy")
        #expect(kind(.busy) == "busy")
        #expect(kind(.constraintUnique) == "constraint")
        #expect(kind(.constraintCheck) == "check")
        #expect(kind(.full) == "other")
        #expect(!(ResultCode.busySnapshot ~= .busy))
        #expect(ResultCode.busySnapshot.primary == .busy)
    }

    @Test func errorsCarryCodesMessageAndSQL() throws {
        let db = try open()
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
        try db.run("INSERT INTO t (name) VALUES (?)", ["a"])
        let error = try #require(throws: SQLiteError.self) {
            try db.run("INSERT INTO t (name) VALUES (?)", ["a"])
        }
        #expect(error.code == 19)  // SQLITE_CONSTRAINT
        #expect(error.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(error.resultCode == .constraintUnique)
        #expect(error.message.contains("UNIQUE"))
        #expect(error.sql == "INSERT INTO t (name) VALUES (?)")

        let syntax = try #require(throws: SQLiteError.self) { try db.cachedStatement("SELEC 1") }
        #expect(syntax.code == 1)
        #expect(syntax.sql == "SELEC 1")
    }

    @Test func cachedStatementsAreReused() throws {
        let db = try open()
        let first = try db.cachedStatement("SELECT 1")
        let second = try db.cachedStatement("SELECT 1")
        #expect(first === second)
    }

    /// The cache hashes only a statement's length and ends: texts alike in those are still
    /// different statements, and one built at run time finds the literal's statement.
    @Test func cachedStatementsDifferingOnlyInTheMiddleAreApart() throws {
        let db = try open()
        let one = "SELECT middle FROM (SELECT 'the same start', 1 AS middle, 'and the same end')"
        let two = "SELECT middle FROM (SELECT 'the same start', 2 AS middle, 'and the same end')"
        #expect(try db.integer(one) == 1)
        #expect(try db.integer(two) == 2)
        #expect(try db.integer(one) == 1)
        let built = "SELECT middle FROM (SELECT 'the same start', \(2) AS middle, 'and the same end')"
        #expect(try db.cachedStatement(built) === db.cachedStatement(two))
    }

    @Test func writeTransactionRollsBackOnError() throws {
        let db = try open()
        try db.execute("CREATE TABLE t (x INTEGER)")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.writeTransaction {
                try db.run("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try db.integer("SELECT count(*) FROM t") == 0)
        #expect(db.isAutocommit)
        try db.writeTransaction { try db.run("INSERT INTO t VALUES (2)") }
        #expect(try db.integer("SELECT count(*) FROM t") == 1)
    }

    /// A statement past its budget stops with SQLITE_INTERRUPT; the read transaction around
    /// it keeps its snapshot, and statements after the budget's end run to completion.
    @Test func aTimeBudgetStopsAStatementAndLeavesTheReadTransaction() throws {
        let db = try open()
        try db.execute("PRAGMA journal_mode = WAL")
        try db.execute("CREATE TABLE t (i INTEGER)")
        try db.run("INSERT INTO t VALUES (1)")
        let other = try open()
        let counting = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000) SELECT count(*) FROM n"
        try db.readTransaction {
            #expect(try db.integer("SELECT count(*) FROM t") == 1)
            try other.run("INSERT INTO t VALUES (2)")
            #expect(try db.withTimeBudget(.seconds(60)) { try db.integer("SELECT count(*) FROM t") } == 1)
            // A million rows cannot be counted in a millisecond.
            let error = #expect(throws: SQLiteError.self) { try db.withTimeBudget(.milliseconds(1)) { try db.integer(counting) } }
            #expect(error?.resultCode.primary == .interrupt)
            // The same snapshot: the other connection's row is not seen.
            #expect(try db.integer("SELECT count(*) FROM t") == 1)
            #expect(try db.integer(counting) == 1_000_000)
        }
        #expect(try db.integer("SELECT count(*) FROM t") == 2)
    }

    @Test func savepointUndoesOnlyItsOwnWork() throws {
        let db = try open()
        try db.execute("CREATE TABLE t (x INTEGER)")
        struct Boom: Error {}
        try db.writeTransaction {
            try db.run("INSERT INTO t VALUES (1)")
            try? db.savepoint {
                try db.run("INSERT INTO t VALUES (2)")
                throw Boom()
            }
            try db.savepoint { try db.run("INSERT INTO t VALUES (3)") }
        }
        var values: [Int64] = []
        try db.cachedStatement("SELECT x FROM t ORDER BY x").forEachRow { values.append($0.int64(0)) }
        #expect(values == [1, 3])
    }

    @Test func migratorRunsEachStepOnceAndRecordsTheVersion() throws {
        let path = directory.file("migrate.sqlite")
        let steps = Migrator([
            .init(version: 1) { try $0.execute("CREATE TABLE a (x)") },
            .init(version: 2) { try $0.execute("CREATE TABLE b (x)") },
        ])
        let db = try Database(path: path)
        try steps.migrate(db)
        #expect(try db.userVersion() == 2)
        try steps.migrate(db)  // a second run must not fail on existing tables
        #expect(try db.integer("SELECT count(*) FROM sqlite_schema WHERE type = 'table'") == 2)
    }

    @Test func failedMigrationLeavesThePreviousVersion() throws {
        let db = try open()
        struct Boom: Error {}
        let steps = Migrator([
            .init(version: 1) { try $0.execute("CREATE TABLE a (x)") },
            .init(version: 2) { db in
                try db.execute("CREATE TABLE b (x)")
                throw Boom()
            },
        ])
        #expect(throws: Boom.self) { try steps.migrate(db) }
        #expect(try db.userVersion() == 1)
        #expect(try db.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'b'") == 0)
    }

    @Test func backupCopiesEverything() throws {
        let source = try open()
        try source.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1), (2), (3); PRAGMA user_version = 7")
        let destination = try Database(path: ":memory:")
        try source.backup(into: destination)
        #expect(try destination.integer("SELECT sum(x) FROM t") == 6)
        #expect(try destination.userVersion() == 7)
    }

    /// A lock another connection keeps is waited for as long as the source's busy timeout
    /// says, and is then an error, not waited for again and again.
    @Test func aBackupGivesUpOnALockHeldPastTheBusyTimeout() throws {
        final class Holder: @unchecked Sendable {  // @unchecked: its connection is used under `released`'s lock
            let database: Database
            let released = Mutex(false)
            init(_ database: Database) { self.database = database }
            func release() {
                released.withLock { released in
                    if !released { try? database.execute("COMMIT") }
                    released = true
                }
            }
        }
        let source = try open()
        try source.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        let holder = Holder(try open())
        try holder.database.execute("BEGIN EXCLUSIVE")  // rollback journal: no reader gets in
        // Ends a backup that would otherwise wait for ever, so that the test fails, not hangs.
        Thread {
            sleep(5)
            holder.release()
        }.start()
        source.setBusyTimeout(milliseconds: 50)
        let error = #expect(throws: SQLiteError.self) { try source.backup(into: try Database(path: ":memory:")) }
        holder.release()
        #expect(error?.resultCode.primary == .busy)
    }

    @Test func openingAMissingFileWithoutCreateFails() throws {
        let error = try #require(throws: SQLiteError.self) {
            try Database(path: directory.file("missing.sqlite"), mode: .readWrite)
        }
        #expect(error.resultCode.primary == .cantOpen)
    }
}

@Suite struct ClosedDatabaseTests {
    @Test func aClosedDatabaseRefusesWorkInsteadOfCrashing() throws {
        let db = try Database(path: ":memory:")
        _ = try db.cachedStatement("SELECT 1")
        db.close()
        db.close()
        let error = try #require(throws: SQLiteError.self) { try db.integer("SELECT 1") }
        #expect(error.code == 21)  // SQLITE_MISUSE
        #expect(throws: SQLiteError.self) { try db.execute("SELECT 1") }
    }
}
