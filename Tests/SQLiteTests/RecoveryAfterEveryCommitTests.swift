import SQLite
import TestSupport
import Testing

/// After every COMMIT, and every ROLLBACK of a transaction that spilled to the log, the
/// database and its log as the kernel holds them, copied and opened without the wal-index
/// (what a crash of every process would leave), hold every committed row, whole, and pass
/// `PRAGMA integrity_check`; and so does another connection reading the live files.
///
/// The writer goes through `Database`, with a small page cache, so its transactions come in every shape SQLite writes a log in:
/// one-row commits, commits that spilled frames first, commits that rewrote frames they had
/// spilled (so SQLite rewrites the frame checksums at commit), and rolled-back spills. A
/// reader pins the log in some rounds, on a checkpointed log (the log then starts over
/// under it) or in the middle of one (it grows past the checkpoint), as a slow export does.
///
/// 3 rounds of 8 transactions per setting by default; `TASKLINE_LONG_TESTS=1` makes it 30.
@Suite struct RecoveryAfterEveryCommitTests {

    struct Setting: Sendable, CustomTestStringConvertible {
        let synchronous: String
        /// False: the file is opened with `psow=0`, and with FULL SQLite pads every commit to
        /// the sector boundary, writing the last part after its sync.
        let powerSafeOverwrite: Bool

        var testDescription: String { "synchronous=\(synchronous)\(powerSafeOverwrite ? "" : ", psow=0")" }
    }

    static let settings = ["NORMAL", "FULL"].flatMap { synchronous in
        [true, false].map { Setting(synchronous: synchronous, powerSafeOverwrite: $0) }
    }
    static let rounds = longTestsEnabled ? 30 : 3
    /// Rows in a spilling transaction: about 250 KiB, five times the writer's page cache.
    static let spill = 300

    @Test(arguments: settings)
    func everyCommitRecoversFromTheFilesAlone(_ setting: Setting) throws {
        let directory = TemporaryDirectory()
        let copies = TemporaryDirectory()
        let path = directory.file("recovery.sqlite")
        let writer = try Database(path: setting.powerSafeOverwrite ? path : "file:\(path)?psow=0")
        try writer.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = \(setting.synchronous); PRAGMA cache_size = 50; \(CommittedRows.schema)")
        let other = try Database(path: path)
        var rows = CommittedRows()
        var commits = 0
        var rollbacks = 0
        var nextRow = 1

        func check(_ step: String) throws {
            let copy = try recoveredCopy(of: path, into: copies)
            defer { copy.close() }
            let fromFiles = rows.problems(in: copy)
            try #require(fromFiles == [], "\(setting.testDescription), \(step): the files alone")
            let fromOther = rows.problems(in: other)
            try #require(fromOther == [], "\(setting.testDescription), \(step): another connection")
        }
        /// Inserts `count` new rows into `next`, inside the writer's transaction.
        func insert(_ count: Int, into next: inout CommittedRows) throws -> ClosedRange<Int> {
            let range = nextRow...(nextRow + count - 1)
            for n in range { try next.put(n, in: writer) }
            nextRow += count
            return range
        }

        for round in 0..<Self.rounds {
            var pinned: Database?
            if round % 3 != 0 {
                if round % 3 == 1 { try writer.execute("PRAGMA wal_checkpoint") }
                pinned = try Database(path: path)
                try pinned?.execute("BEGIN; SELECT count(*) FROM t")
            }

            for _ in 0..<5 {
                var next = rows
                _ = try insert(1, into: &next)
                rows = next
                commits += 1
                try check("one-row commit \(commits)")
            }

            var next = rows
            try writer.writeTransaction { _ = try insert(Self.spill, into: &next) }
            rows = next
            commits += 1
            try check("commit \(commits), which spilled")

            next = rows
            try writer.writeTransaction {
                let inserted = try insert(Self.spill, into: &next)
                try next.rewrite(inserted.lowerBound...(inserted.lowerBound + Self.spill / 2), in: writer)
                if let first = rows.versions.keys.min() { try next.rewrite(first...(first + 20), in: writer) }
            }
            rows = next
            commits += 1
            try check("commit \(commits), which rewrote frames it had spilled")

            next = rows
            try writer.execute("BEGIN")
            let discarded = try insert(Self.spill, into: &next)
            try next.rewrite(discarded.lowerBound...(discarded.lowerBound + Self.spill / 2), in: writer)
            try writer.execute("ROLLBACK")
            rollbacks += 1
            try check("rollback \(rollbacks), which had spilled")

            try pinned?.execute("COMMIT")
        }
        print(
            "recovery after every commit (\(setting.testDescription)): \(commits) commits and \(rollbacks) rolled-back spills, "
                + "each checked from a copy of the files and from another connection; \(rows.versions.count) rows at the end")
    }
}
