import SQLite
import TestSupport
import Testing

/// Every connection's write-ahead log goes through the WAL buffer (Sources/CWALBuffer), which
/// gathers writes to pass a commit's frames on in one write: what a commit wrote must be in
/// the file before any other connection can see the commit, nothing held may be lost or
/// reordered, and nothing held may land in the file once another connection can write there.
@Suite struct WALBufferTests {
    init() { walBufferRegistered }

    let directory = TemporaryDirectory()
    let copies = TemporaryDirectory()
    var path: String { directory.file("wal.sqlite") }

    /// `parameters`: URI query parameters for the file (`psow=0`), which SQLite takes as the
    /// path `file:PATH?…`.
    private func open(_ setup: String = "", parameters: String? = nil) throws -> Database {
        let database = try Database(path: parameters.map { "file:\(path)?\($0)" } ?? path)
        // synchronous = NORMAL: no sync at commit, which would pass the buffer on by itself.
        try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \(CommittedRows.schema)" + setup)
        return database
    }

    /// A connection holding a read transaction, as a slow export does: the log can be neither
    /// checkpointed past it nor, while it reads from the log, started over.
    private func pinnedReader() throws -> Database {
        let reader = try open()
        try reader.execute("BEGIN")
        _ = try reader.integer("SELECT count(*) FROM t")
        return reader
    }

    @Test func everyCommitIsReadableByAnotherConnectionAtOnce() throws {
        let writer = try open()
        let reader = try open()
        var rows = CommittedRows()
        for n in 1...300 {
            try rows.put(n, in: writer)
            #expect(try reader.integer("SELECT v FROM t WHERE n = ?", [.integer(Int64(n))]) == 1)
        }
        rows.expectHeld(by: reader, "another connection")
    }

    /// A transaction larger than the buffer, and than the page cache, so that SQLite spills
    /// frames of it to the log before the commit and reads some of them back.
    @Test func aLargeTransactionArrivesWhole() throws {
        let writer = try open("; PRAGMA cache_size = 20")
        let reader = try open()
        var rows = CommittedRows()
        try writer.writeTransaction {
            for n in 1...2000 { try rows.put(n, in: writer) }
            try rows.rewrite(1...2000, in: writer)
        }
        rows.expectHeld(by: reader, "another connection")
        rows.expectHeld(by: try open(), "a new connection, which rebuilds its view of the log from the file")
    }

    @Test func aRolledBackSpillLeavesNoTrace() throws {
        let writer = try open("; PRAGMA cache_size = 20")
        let reader = try open()
        var rows = CommittedRows()
        try rows.put(1, in: writer)
        var discarded = rows
        try writer.execute("BEGIN")
        for n in 2...2000 { try discarded.put(n, in: writer) }
        try writer.execute("ROLLBACK")
        try rows.put(2, in: writer)
        rows.expectHeld(by: reader, "another connection")
        rows.expectHeld(by: try open(), "a new connection")
    }

    /// A rolled-back transaction makes no call on the log, so frames it spilled and the buffer
    /// still held must not outlive the write lock: written on the connection's next call, they
    /// would land on frames another connection has committed since at the same offsets. The
    /// log is checkpointed first, so that the rollback reads nothing back from it (which would
    /// pass the buffer on while A still held the lock), and the pinned reader keeps it from
    /// being checkpointed again in between.
    @Test func aRolledBackSpillNeverLandsOnAnotherConnectionsCommit() throws {
        let a = try open("; PRAGMA cache_size = 20")
        let b = try open()
        var rows = CommittedRows()
        try rows.put(1, in: b)
        try b.execute("PRAGMA wal_checkpoint")
        let reader = try pinnedReader()

        var discarded = rows
        try a.execute("BEGIN")
        for n in 1001...1400 { try discarded.put(n, in: a) }
        try a.execute("ROLLBACK")

        try b.writeTransaction { for n in 2...1000 { try rows.put(n, in: b) } }
        _ = try? a.integer("SELECT count(*) FROM t")  // A's next call on the log
        try reader.execute("COMMIT")

        rows.expectHeld(by: b, "the connection that committed")
        rows.expectHeld(by: try open(), "a new connection")
        rows.expectHeld(by: try recoveredCopy(of: path, into: copies), "the files alone")
    }

    /// A transaction that rewrites pages it has already spilled makes SQLite rewrite the
    /// checksums of its frames at commit, and the last write of that is the commit frame's
    /// 24-byte header: with `synchronous = NORMAL` nothing follows it, so it must be in the
    /// file when COMMIT returns, or a crash loses the commit and every later one. The reader,
    /// begun on a checkpointed log, keeps the checkpoint after the commit (which syncs the
    /// log) from running.
    @Test func aCommitThatRewritesChecksumsIsInTheFileWhenCommitReturns() throws {
        let writer = try Database(path: path)
        try writer.execute("PRAGMA page_size = 2048; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -8192; \(CommittedRows.schema)")
        var rows = CommittedRows()
        try rows.put(1, in: writer)
        try writer.execute("PRAGMA wal_checkpoint")
        let reader = try pinnedReader()
        try writer.writeTransaction {
            for n in 2...12_001 { try rows.put(n, in: writer) }
            try rows.rewrite(2...2001, in: writer)
        }
        rows.expectHeld(by: try recoveredCopy(of: path, into: copies), "the files as COMMIT left them")
        try reader.execute("COMMIT")
    }

    /// With `synchronous = FULL` on a device without power-safe overwrite (`psow=0`), SQLite
    /// pads a commit to the sector boundary and writes the part of the last frame past it
    /// after the sync: another connection reading the log must find that frame whole.
    @Test func thePaddingPastTheSyncedSectorIsInTheFileWhenCommitReturns() throws {
        let writer = try open("; PRAGMA synchronous = FULL", parameters: "psow=0")
        let reader = try open()
        var rows = CommittedRows()
        var failures: [String] = []
        for n in 1...200 {
            try rows.put(n, in: writer)
            do {
                if try reader.integer("SELECT v FROM t WHERE n = ?", [.integer(Int64(n))]) != 1 { failures.append("row \(n) missing") }
            } catch {
                failures.append("row \(n): \(error)")
            }
        }
        #expect(failures.count == 0, "\(failures.count) of 200 commits unreadable; first: \(failures.first ?? "")")
        rows.expectHeld(by: try recoveredCopy(of: path, into: copies), "the files alone")
    }
}
