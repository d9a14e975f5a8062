import PeopleLanguage
import PostgresStore
import TaskStore

/// `taskline check`: is the database sound?
enum CheckCommand: Command {
    struct Options: Sendable {
        var database = Subcommands.defaultDatabasePath
    }

    static let name = "check"
    static let summary = "check the database's integrity; exit 0 only when it is sound"
    static let usage = """
        Usage: taskline check [--db PATH]

        Checks the database without writing to it, and prints what it found on stdout:
        schema objects Taskline did not make (a trigger, view, index or table another
        program added, one of Taskline's changed or missing; listed under "objects" when
        there are any), SQLite's integrity check and foreign key check, the schema version,
        every task against the rules of the protocol (and its derived columns against its
        fields), the change log's numbering, and counts of tasks, tags and changes.
        On PostgreSQL: the same, but for SQLite's checks of its file (PostgreSQL keeps its
        own); a dependency on a missing task is listed under "foreign keys".

        Options:
          --db PATH    the database (default: the server's)

        Exit codes: 0 sound; 1 problems found (listed); 2 usage error; 3 the database cannot
        be used at all (missing, not SQLite, another application's, a newer schema; on
        PostgreSQL: unreachable, or without Taskline's tables).
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Options {
        var options = Options()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            default: throw item.unexpected
            }
        }
        return options
    }

    static func run(_ options: Options) async throws -> Int32 {
        let report =
            switch StoreLocation(options.database) {
            case .sqlite(let path): try TaskStore.check(path: path)
            case .postgresql(let connectionString): try PostgresTaskStore.check(connectionString: connectionString)
            }
        let output = OutputWriter()
        func section(_ name: String, _ problems: [String], total: Int? = nil) throws(CommandFailure) {
            let label = padded(name, to: 14)
            guard !problems.isEmpty else { return try output.line("\(label)ok") }
            let count = total ?? problems.count
            try output.line("\(label)\(grouped(count)) problem\(count == 1 ? "" : "s")")
            for problem in problems { try output.line("    \(problem)") }
            if count > problems.count { try output.line("    … and \(grouped(count - problems.count)) more") }
        }
        try output.line("database      \(report.path)")
        let version =
            switch report.schemaVersion {
            case 0: "none yet (a new, empty database)"
            case report.supportedSchemaVersion: "\(report.schemaVersion) (current)"
            default: "\(report.schemaVersion) (older than \(report.supportedSchemaVersion): taskline upgrades it when it opens it)"
            }
        try output.line("schema        \(version)")
        if !report.unexpectedObjects.isEmpty { try section("objects", report.unexpectedObjects) }
        if let reason = report.integrityNotChecked {
            try output.line("integrity     not checked: \(reason)")
        } else {
            try section("integrity", report.integrityProblems)
        }
        try section("foreign keys", report.foreignKeyProblems)
        try section("task rules", report.ruleProblems, total: report.ruleProblemCount)
        if let counts = report.counts {
            try output.line(
                "tasks         \(grouped(counts.tasks)) (\(grouped(counts.tasks - counts.doneTasks)) open, \(grouped(counts.doneTasks)) done)")
            try output.line("tags          \(grouped(counts.distinctTags)) distinct, on \(grouped(counts.taggings)) task-tag pairs")
            try output.line("change log    \(grouped(counts.changes)) changes kept, newest seq \(counts.newestSeq)")
        }
        try output.line(report.isSound ? "sound" : "NOT SOUND")
        try output.flush()
        return report.isSound ? 0 : 1
    }
}
