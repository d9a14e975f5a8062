import SQLite
import TestSupport
import Testing

/// Every connection's write-ahead log goes through the WAL buffer (Sources/CWALBuffer), which
/// holds writes until a commit frame: what a commit wrote must be in the file before any other
/// connection can see the commit, and nothing held may be lost or reordered.
@Suite struct WALBufferTests {
    let directory = TemporaryDirectory()

    private func open(_ setup: String = "") throws -> Database {
        let database = try Database(path: directory.file("wal.sqlite"))
        // synchronous = NORMAL: no sync at commit, which would pass the buffer on by itself.
        try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE IF NOT EXISTS t (n INTEGER PRIMARY KEY, s TEXT NOT NULL)" + setup)
        return database
    }

    private static func text(_ n: Int) -> String {
        String(repeating: String(UnicodeScalar(UInt8(65 + n % 26))), count: n * 37 % 5000)
    }

    private func expectIntact(_ database: Database, count: Int, _ comment: Comment? = nil) throws {
        #expect(try database.integer("SELECT count(*) FROM t") == Int64(count), comment)
        for n in [1, count / 2, count] where n > 0 {
            #expect(try database.cachedStatement("SELECT s FROM t WHERE n = ?").firstRow([.integer(Int64(n))]) { $0.text(0) } == Self.text(n), comment)
        }
        #expect(try database.cachedStatement("PRAGMA integrity_check").firstRow { $0.text(0) } == "ok", comment)
    }

    @Test func everyCommitIsReadableByAnotherConnectionAtOnce() throws {
        let writer = try open()
        let reader = try open()
        for n in 1...300 {
            try writer.run("INSERT INTO t (n, s) VALUES (?, ?)", [.integer(Int64(n)), .text(Self.text(n))])
            #expect(try reader.cachedStatement("SELECT s FROM t WHERE n = ?").firstRow([.integer(Int64(n))]) { $0.text(0) } == Self.text(n))
        }
        try expectIntact(reader, count: 300)
    }

    /// A transaction larger than the buffer, and than the page cache, so that SQLite spills
    /// frames of it to the log before the commit and reads some of them back.
    @Test func aLargeTransactionArrivesWhole() throws {
        let writer = try open("; PRAGMA cache_size = 20")
        let reader = try open()
        try writer.writeTransaction {
            for n in 1...2000 { try writer.run("INSERT INTO t (n, s) VALUES (?, ?)", [.integer(Int64(n)), .text(Self.text(n))]) }
            try writer.run("UPDATE t SET s = s WHERE n % 7 = 0")
        }
        try expectIntact(reader, count: 2000)
        // A new connection rebuilds its view of the log from the file alone.
        try expectIntact(try open(), count: 2000, "read back from the file")
    }

    @Test func aRolledBackSpillLeavesNoTrace() throws {
        let writer = try open("; PRAGMA cache_size = 20")
        let reader = try open()
        try writer.run("INSERT INTO t (n, s) VALUES (1, ?)", [.text(Self.text(1))])
        try writer.execute("BEGIN")
        for n in 2...2000 { try writer.run("INSERT INTO t (n, s) VALUES (?, ?)", [.integer(Int64(n)), .text(Self.text(n))]) }
        try writer.execute("ROLLBACK")
        try writer.run("INSERT INTO t (n, s) VALUES (2, ?)", [.text(Self.text(2))])
        try expectIntact(reader, count: 2)
        try expectIntact(try open(), count: 2, "read back from the file")
    }
}
