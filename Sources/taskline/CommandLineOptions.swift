import JSONRPC
import Logging
import TaskStore
#if canImport(Glibc)
import Glibc
#endif

/// The command line, parsed by hand: the toolchain's own packages are all we may use.
struct CommandLineOptions {
    var databasePath: String
    var store = StoreOptions()
    var framing: Framing?
    var maxMessageBytes = 16 * 1024 * 1024
    var logLevel = Log.Level.warning
    /// Changes older than this are removed from the change log.
    var historyDays = 30
    var action = Action.serve

    enum Action {
        case serve, help, version
    }

    struct UsageError: Error {
        let message: String
    }

    static let usage = """
        Usage: taskline [options]

        Serves the Taskline JSON-RPC 2.0 protocol on stdin/stdout (see protocol/README.md).

        Options:
          --db PATH                 database file (default: $XDG_DATA_HOME/taskline/tasks.sqlite,
                                    else ~/.local/share/taskline/tasks.sqlite); :memory: for none
          --template FILE           when the database does not exist yet, start from a copy of FILE
          --durability full|normal  full (default): acknowledged writes survive power loss;
                                    normal: they survive a crash of taskline
          --busy-timeout MS         how long a write waits for another process's lock (default 5000)
          --history-days N          keep the change log for tasks/changes this many days (default 30)
          --framing lsp|ndjson      input framing (default: detected from the first byte)
          --max-message-bytes N     largest accepted message (default 16777216)
          --log-level LEVEL         error, warning (default), info or debug; logs go to stderr
          --help                    print this help and exit
          --version                 print the version and exit

        Exit codes: 0 after shutdown and exit; 1 on exit without shutdown; 2 usage error;
        3 the database cannot be used.
        """

    static func parse(_ arguments: [String], environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) throws -> CommandLineOptions {
        var options = CommandLineOptions(databasePath: defaultDatabasePath(environment: environment))
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst() else { throw UsageError(message: "\(name) needs a value") }
                return next
            }
            switch name {
            case "--help", "-h": options.action = .help
            case "--version": options.action = .version
            case "--db": options.databasePath = try value()
            case "--template": options.store.templatePath = try value()
            case "--durability":
                let text = try value()
                guard let durability = Durability(rawValue: text) else {
                    throw UsageError(message: "--durability must be full or normal, not \(text)")
                }
                options.store.durability = durability
            case "--busy-timeout":
                options.store.busyTimeoutMilliseconds = try integer(name, try value(), in: 0...Int(Int32.max)).map(Int32.init)!
            case "--history-days":
                options.historyDays = try integer(name, try value(), in: 0...36_500)!
            case "--framing":
                let text = try value()
                guard let framing = Framing(rawValue: text) else { throw UsageError(message: "--framing must be lsp or ndjson, not \(text)") }
                options.framing = framing
            case "--max-message-bytes":
                options.maxMessageBytes = try integer(name, try value(), in: 1...(1 << 31))!
            case "--log-level":
                let text = try value()
                guard let level = Log.Level(name: text) else {
                    throw UsageError(message: "--log-level must be error, warning, info or debug, not \(text)")
                }
                options.logLevel = level
            default:
                throw UsageError(message: "unknown argument \(argument)")
            }
        }
        if options.databasePath.isEmpty { throw UsageError(message: "--db needs a path") }
        return options
    }

    private static func integer(_ name: String, _ text: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(message: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(text)")
        }
        return value
    }

    static func defaultDatabasePath(environment: (String) -> String?) -> String {
        if let data = environment("XDG_DATA_HOME"), data.hasPrefix("/") {
            return data + "/taskline/tasks.sqlite"
        }
        return (environment("HOME") ?? ".") + "/.local/share/taskline/tasks.sqlite"
    }
}
