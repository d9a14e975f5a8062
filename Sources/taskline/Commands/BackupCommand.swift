import PeopleLanguage
import TaskStore

/// `taskline backup DEST`: a consistent copy while servers keep writing.
enum BackupCommand: Command {
    struct Options: Sendable {
        var database = Subcommands.defaultDatabasePath
        var destination: String?
        var pagesPerStep = 1024
    }

    static let name = "backup"
    static let summary = "copy the database to a new file, while servers keep writing"
    static let usage = """
        Usage: taskline backup DEST [--db PATH] [--pages-per-step N]

        Copies the database to DEST, a new file, with SQLite's online backup API. The copy is
        one consistent snapshot taken when the command starts: it holds every write
        acknowledged before then, whatever servers write meanwhile (they are not held up).
        It is written under a temporary name beside DEST and named DEST only once complete
        and synced; DEST must not exist. The copy is a Taskline database like any other:
        check it with `taskline check --db DEST`, serve it with `taskline --db DEST`.
        A PostgreSQL database is backed up with pg_dump instead (see docs/postgresql.md).

        A progress bar is drawn on stderr when it is a terminal.

        Options:
          --db PATH              the database to copy (default: the server's)
          --pages-per-step N     pages copied per step of the backup API (default 1024)
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Options {
        var options = Options()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .option("--pages-per-step"): options.pagesPerStep = try reader.integer(in: 1...1_000_000)
            case .operand(let destination) where options.destination == nil: options.destination = destination
            default: throw item.unexpected
            }
        }
        guard options.destination != nil else { throw UsageError("where to? Give the backup's path, DEST") }
        return options
    }

    static func run(_ options: Options) async throws -> Int32 {
        guard case .sqlite(let path) = StoreLocation(options.database) else {
            throw CommandFailure(
                exitCode: 3, "taskline backup copies a SQLite file; back up a PostgreSQL database with pg_dump (see docs/postgresql.md)")
        }
        let store = try StoreAccess.openSQLite(path, create: false)
        try await StoreAccess.closing(store) { try await backup(options, store: store) }
        return 0
    }

    private static func backup(_ options: Options, store: isolated TaskStore) throws {
        let destination = options.destination!
        let progress = ProgressBar(label: "backing up")
        var pages = 0
        do {
            try store.backup(to: destination, pagesPerStep: Int32(options.pagesPerStep)) { copied, total in
                pages = total
                progress.update(
                    fraction: Double(copied) / Double(max(total, 1)), detail: "\(grouped(copied)) of \(grouped(total)) pages",
                    final: copied == total)
            }
        } catch let error as BackupError {
            progress.finish()
            throw CommandFailure("\(error)")
        }
        progress.finish()
        note("backed up \(grouped(pages)) pages of \(options.database) to \(destination)")
    }
}
