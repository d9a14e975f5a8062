import JSONRPC
import Logging
import PeopleLanguage
import TaskStore

#if canImport(Glibc)
import Glibc
#endif

/// The command line, parsed by hand: the toolchain's own packages are all we may use.
struct CommandLineOptions {
    var databasePath: String
    var store = StoreOptions()
    /// The last option given that only a SQLite file takes (`--template`, …).
    var sqliteOnlyOption: String?
    var framing: Framing?
    var maxMessageBytes = 16 * 1024 * 1024
    var logLevel = Log.Level.warning
    /// See `IdleWait`.
    var idleSpinMicroseconds = 50
    /// Changes older than this are removed from the change log.
    var historyDays = 30
    var action = Action.serve

    enum Action {
        case serve, help, version
    }

    static let usage = """
        Usage: taskline [options]
               taskline COMMAND [options]

        Serves the Taskline JSON-RPC 2.0 protocol on stdin/stdout (see protocol/README.md).
        With a COMMAND, does that instead (taskline COMMAND --help tells more):

        \(Subcommands.summaries)

        Options:
          --db PATH                 database file (default:
                                    $XDG_DATA_HOME/taskline/tasks.sqlite, else
                                    ~/.local/share/taskline/tasks.sqlite); :memory: for none;
                                    or a PostgreSQL database: postgresql://…, postgres://… or
                                    libpq's key=value string (see docs/postgresql.md)
          --template FILE           when the database does not exist yet, start from a copy
                                    of FILE
          --durability full|normal  full (default): acknowledged writes survive power loss;
                                    normal: they survive a crash of taskline
          --busy-timeout MS         how long a write waits for another process's lock
                                    (default 5000; PostgreSQL's lock_timeout)
          --history-days N          keep the change log for tasks/changes this many days
                                    (default 30)
          --framing lsp|ndjson      input framing (default: detected from the first byte)
          --max-message-bytes N     largest accepted message (default 16777216)
          --idle-spin US            after answering a client that sent its last message within
                                    US microseconds, poll that long before sleeping (default 50;
                                    0 never spins)
          --log-level LEVEL         error, warning (default), info or debug; logs go to stderr
          --help                    print this help and exit
          --version                 print the version and exit

        Exit codes: 0 after shutdown and exit; 1 on exit without shutdown; 2 usage error;
        3 the database cannot be used.
        """

    static func parse(_ arguments: [String], environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) throws(UsageError)
        -> CommandLineOptions
    {
        var options = CommandLineOptions(databasePath: defaultDatabasePath(environment: environment))
        var reader = ArgumentReader(arguments)
        while let item = try reader.next() {
            let name: String
            switch item {
            case .option(let option): name = option
            case .operand(let word) where Subcommands.named(word) != nil:
                throw UsageError("a command comes first: taskline \(word) [options]")
            case .operand(let word): throw UsageError("unknown command or argument \(word)\(Subcommands.suggestion(for: word))")
            }
            switch name {
            case "--help", "-h": options.action = .help
            case "--version": options.action = .version
            case "--db": options.databasePath = try reader.value()
            case "--template":
                options.store.templatePath = try reader.value()
                options.sqliteOnlyOption = name
            case "--durability":
                options.store.durability = try reader.choice(Durability.self)
                options.sqliteOnlyOption = name
            case "--busy-timeout": options.store.busyTimeoutMilliseconds = Int32(try reader.integer(in: 0...Int(Int32.max)))
            case "--history-days": options.historyDays = try reader.integer(in: 0...36_500)
            case "--framing": options.framing = try reader.choice(Framing.self)
            case "--max-message-bytes": options.maxMessageBytes = try reader.integer(in: 1...(1 << 31))
            case "--idle-spin": options.idleSpinMicroseconds = try reader.integer(in: 0...10_000)
            case "--log-level":
                let text = try reader.value()
                guard let level = Log.Level(name: text) else {
                    throw UsageError("--log-level must be error, warning, info or debug, not \(text)")
                }
                options.logLevel = level
            default:
                throw UsageError("unknown argument \(name)")
            }
        }
        if options.databasePath.isEmpty { throw UsageError("--db needs a path") }
        if let option = options.sqliteOnlyOption, case .postgresql = StoreLocation(options.databasePath) {
            throw UsageError("\(option) applies to SQLite files, not to a PostgreSQL database")
        }
        return options
    }

    static func defaultDatabasePath(environment: (String) -> String?) -> String {
        if let data = environment("XDG_DATA_HOME"), data.hasPrefix("/") {
            return data + "/taskline/tasks.sqlite"
        }
        return (environment("HOME") ?? ".") + "/.local/share/taskline/tasks.sqlite"
    }
}
