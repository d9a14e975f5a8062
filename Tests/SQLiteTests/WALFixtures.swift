import CSQLite
import Foundation
import SQLite
import TestSupport
import Testing

/// The rows a test has seen committed to a table `t`, each with its version: a row's text is a
/// function of both, so a reader tells a row that is there whole, at the version committed,
/// from one that is missing, stale or damaged.
struct CommittedRows {
    static let schema = "CREATE TABLE IF NOT EXISTS t (n INTEGER PRIMARY KEY, v INTEGER NOT NULL, s TEXT NOT NULL)"

    private(set) var versions: [Int: Int] = [:]

    /// 100 to 1,599 bytes: about four rows to a 4 KiB page, so a few hundred rows outgrow a
    /// small page cache and SQLite spills them to the log.
    static func text(_ n: Int, version: Int) -> String {
        let letter = String(UnicodeScalar(UInt8(65 + (n + version) % 26)))
        return "\(n).\(version):" + String(repeating: letter, count: (n * 37 + version * 101) % 1500 + 100)
    }

    /// Writes row `n` at `version` (inserting or replacing it) and records it: call it on a
    /// copy of the committed rows inside a transaction, and keep the copy once it commits.
    mutating func put(_ n: Int, version: Int = 1, in database: Database) throws {
        try database.run(
            "INSERT INTO t (n, v, s) VALUES (?1, ?2, ?3) ON CONFLICT (n) DO UPDATE SET v = ?2, s = ?3",
            [.integer(Int64(n)), .integer(Int64(version)), .text(Self.text(n, version: version))])
        versions[n] = version
    }

    /// Rewrites rows `range` (which must be there) at their next version.
    mutating func rewrite(_ range: ClosedRange<Int>, in database: Database) throws {
        for n in range { try put(n, version: (versions[n] ?? 0) + 1, in: database) }
    }

    /// How `database` differs from these rows (none when it holds exactly them, whole; the
    /// first few rows that differ, then how many), then whether `PRAGMA integrity_check`
    /// finds it sound; or the error reading it failed with.
    func problems(in database: Database) -> [String] {
        do {
            return try differences(from: database)
        } catch {
            return ["reading failed: \(error)"]
        }
    }

    private func differences(from database: Database) throws -> [String] {
        var rows: [String] = []
        var differing = 0
        var seen = 0
        try database.cachedStatement("SELECT n, v, s FROM t ORDER BY n").forEachRow { row in
            let n = row.int(0)
            let version = row.int(1)
            seen += 1
            let problem =
                versions[n] != version
                ? "row \(n) at version \(version), committed: \(versions[n].map(String.init) ?? "none")"
                : row.text(2) != Self.text(n, version: version) ? "row \(n)'s text damaged" : nil
            guard let problem else { return }
            differing += 1
            if rows.count < 3 { rows.append(problem) }
        }
        if differing > rows.count { rows.append("\(differing - rows.count) more rows differ") }
        if seen - differing < versions.count {
            rows.append("\(versions.count - seen + differing) of \(versions.count) committed rows missing or wrong")
        }
        let integrity = try database.cachedStatement("PRAGMA integrity_check").firstRow { $0.text(0) }
        if integrity != "ok" { rows.append("integrity_check: " + (integrity?.prefix(300) ?? "no answer")) }
        return rows
    }

    func expectHeld(by database: Database, _ comment: Comment) {
        let problems = problems(in: database)
        #expect(problems == [], comment)
    }
}

/// What a crash of every process would leave: the database and its log as the kernel holds
/// them now, copied into `directory` (a plain file copy) and opened there without the
/// wal-index, so SQLite rebuilds its view of the log from the log file alone.
func recoveredCopy(of path: String, into directory: TemporaryDirectory) throws -> Database {
    let copy = directory.file("copy.sqlite")
    let files = FileManager.default
    for suffix in ["", "-wal", "-shm", "-journal"] { try? files.removeItem(atPath: copy + suffix) }
    try files.copyItem(atPath: path, toPath: copy)
    if files.fileExists(atPath: path + "-wal") { try files.copyItem(atPath: path + "-wal", toPath: copy + "-wal") }
    return try Database(path: copy)
}
