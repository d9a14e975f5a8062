import Dispatch
import Logging
import PeopleLanguage
import PostgresStore
import StoreServing
import Synchronization
import TaskModel
import TaskStore

#if canImport(Glibc)
import Glibc
#endif

/// One subcommand of `taskline` (`taskline export`, `taskline add`, …).
protocol Command: Sendable {
    associatedtype Options: Sendable
    static var name: String { get }
    /// One line for the list in `taskline --help`.
    static var summary: String { get }
    /// What `taskline NAME --help` prints.
    static var usage: String { get }
    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Options
    /// The exit code. Errors: `UsageError` (exit 2), `CommandFailure` (its code),
    /// `StoreOpenError` (3); anything else exits 1.
    static func run(_ options: Options) async throws -> Int32
}

/// The table of subcommands, and the one place their outcome becomes an exit code.
enum Subcommands {
    /// In the order `taskline --help` lists them; one a line.
    static let all: [any Command.Type] = [
        AddCommand.self,
        LogCommand.self,
        ModifyCommand.self,
        AppendCommand.self,
        PrependCommand.self,
        DuplicateCommand.self,
        DoneCommand.self,
        RemoveCommand.self,
        StartCommand.self,
        StopCommand.self,
        AnnotateCommand.self,
        DenotateCommand.self,
        UndoCommand.self,
        RedoCommand.self,
        ListCommand.self,
        WaitingCommand.self,
        CompletedCommand.self,
        AllCommand.self,
        NextCommand.self,
        OverdueCommand.self,
        SearchCommand.self,
        ShowCommand.self,
        EditCommand.self,
        ProjectsCommand.self,
        TagsCommand.self,
        ContextCommand.self,
        SummaryCommand.self,
        StatsCommand.self,
        CalendarCommand.self,
        BurndownCommand.self,
        ExportCommand.self,
        ImportCommand.self,
        BackupCommand.self,
        CheckCommand.self,
        CompletionCommand.self,
        ManualCommand.self,
    ]

    /// The names Taskwarrior gives some of the commands.
    static let aliases = ["info": "show", "delete": "rm"]

    /// The commands that take task ids, which may come before the command's name, as in
    /// Taskwarrior (`taskline 3f2a done`).
    static let takingIDs = [
        ModifyCommand.name, AppendCommand.name, PrependCommand.name, DuplicateCommand.name, DoneCommand.name, RemoveCommand.name,
        StartCommand.name, StopCommand.name, AnnotateCommand.name, DenotateCommand.name, ShowCommand.name, EditCommand.name,
    ]

    /// The command `word` names: a name, an alias, or a start of at least 2 letters that
    /// starts one command's names only (`ad`, `li`, `mod`).
    static func named(_ word: String) -> (any Command.Type)? {
        var names: [String] = all.map { $0.name }
        names.append(contentsOf: aliases.keys)
        var chosen: Set<String> = []
        for name in names where name == word || (word.count >= 2 && name.hasPrefix(word)) {
            chosen.insert(aliases[name] ?? name)
        }
        if names.contains(word) { chosen = [aliases[word] ?? word] }
        guard chosen.count == 1, let name = chosen.first else { return nil }
        return all.first { $0.name == name }
    }

    /// "did you mean list?" for `lsit`, or nothing when no command is that close.
    static func suggestion(for word: String) -> String {
        var names: [String] = all.map { $0.name }
        names.append(contentsOf: aliases.keys)
        return Suggestion.closest(to: word, among: names).map { "; did you mean \($0)?" } ?? ""
    }

    /// The commands, one per line, for `taskline --help`.
    static var summaries: String {
        let width = all.map { $0.name.count }.max()! + 2
        let aliased = aliases.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
        return all.map { "  \(padded($0.name, to: width))\($0.summary)" }.joined(separator: "\n")
            + "\n\n"
            + wrapped(
                "Also \(aliased); a command's first letters (ad, li, mod) when no other starts so; the ids "
                    + "first for \(takingIDs.joined(separator: ", ")) (taskline 3f2a done).", width: 86
            ).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
    }

    /// The database a command uses without `--db`: the server's default.
    static var defaultDatabasePath: String {
        CommandLineOptions.defaultDatabasePath { getenv($0).map { String(cString: $0) } }
    }

    /// Runs the command the first argument names and returns its exit status, blocking the
    /// calling thread; nil when it names none (the server runs).
    ///
    /// The top level of `main.swift` stays synchronous this way: an `await` there would make
    /// the whole program start through the concurrency runtime's main queue, which costs
    /// the server a millisecond of its start-up.
    static func runWaiting(_ arguments: [String]) -> Int32? {
        guard let (command, commandArguments) = commandLine(arguments) else { return nil }
        let status = Mutex<Int32>(0)
        let finished = DispatchSemaphore(value: 0)
        Task {
            let code = await run(command, commandArguments)
            status.withLock { $0 = code }
            finished.signal()
        }
        finished.wait()
        return status.withLock { $0 }
    }

    /// The command the arguments name and its arguments. Options may come before the
    /// command's name, as with `git -C` (`taskline --db X list`): they are its options then,
    /// put first so that a `--` among its own arguments does not make them words.
    static func commandLine(_ arguments: [String]) -> (any Command.Type, [String])? {
        var index = 0
        while index < arguments.count, arguments[index].hasPrefix("-"), arguments[index] != "--", arguments[index] != "-" {
            // A flag alone; any other option with its value, unless written `--name=value`.
            let flag = ["--help", "-h", "--version"].contains(arguments[index]) || arguments[index].contains("=")
            index += flag ? 1 : 2
        }
        guard index < arguments.count else { return nil }
        if let command = named(arguments[index]) {
            return (command, Array(arguments[..<index]) + arguments[(index + 1)...])
        }
        // Ids first: `taskline 3f2a 7b1c done`.
        let ids = arguments[index...].prefix { !$0.hasPrefix("-") && named($0) == nil }
        let commandIndex = index + ids.count
        guard !ids.isEmpty, commandIndex < arguments.count, let command = named(arguments[commandIndex]), takingIDs.contains(command.name) else {
            return nil
        }
        return (command, Array(arguments[..<index]) + ids + arguments[(commandIndex + 1)...])
    }

    private static func run<C: Command>(_ command: C.Type, _ arguments: [String]) async -> Int32 {
        // --help anywhere before `--` wins over everything else on the line.
        if arguments.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
            print(C.usage)  // stdout-ok: the help asked for, not the protocol
            return 0
        }
        do {
            var reader = ArgumentReader(arguments)
            let options = try C.parse(&reader)
            return try await C.run(options)
        } catch let error as UsageError {
            Log.error("\(error.message) (see taskline \(C.name) --help)")
            return 2
        } catch let failure as CommandFailure {
            if let message = failure.message { Log.error(message) }
            return failure.exitCode
        } catch let error as StoreOpenError {
            Log.error("\(error)")
            return 3
        } catch let error as TaskStoreError {
            Log.error(CommandFailure.describe(error))
            return 1
        } catch {
            Log.error("\(error)")
            return 1
        }
    }
}

/// A command that did not succeed: its exit code, and what to say on stderr (nil: nothing,
/// as when the reader of stdout went away).
struct CommandFailure: Error {
    let exitCode: Int32
    let message: String?

    init(exitCode: Int32 = 1, _ message: String?) {
        self.exitCode = exitCode
        self.message = message
    }

    /// `name` says a task's id as people should read it (`PeopleOutput.describe`: its
    /// short id and title).
    static func describe(_ error: TaskStoreError, name: (String) -> String = { $0 }) -> String {
        switch error {
        case .notFound(let id): "no task has the id \(id)"
        case .versionConflict(let current): "task \(name(current.id)) changed meanwhile (now at version \(current.version))"
        case .alreadyExists(let id): "a task with the id \(id) exists already"
        case .invalid(let field, let reason): "\(field) \(reason)"
        case .storage(let failure): "storage failure: \(failure.message)"
        case .historyExpired(let since, _): "changes after \(since) are no longer kept"
        case .dependencyCycle(let ids): "the dependencies would close a cycle: \(TaskStoreError.describeCycle(ids.map(name)))"
        case .undoConflict(let tasks, let deleted): "tasks changed since: \((tasks.map { name($0.id) } + deleted).joined(separator: ", "))"
        case .operationFailed(let index, let error): "operation \(index): \(describe(error, name: name))"
        }
    }
}

extension TaskStoreError {
    /// The existing tasks the error is about, which messages name for people.
    var taskIDs: [String] {
        switch self {
        case .versionConflict(let current): [current.id]
        case .dependencyCycle(let ids): ids
        case .undoConflict(let tasks, _): tasks.map(\.id)
        case .operationFailed(_, let error): error.taskIDs
        default: []
        }
    }
}

extension ArgumentReader.Item {
    /// The usage error for an argument the command does not take.
    var unexpected: UsageError {
        switch self {
        case .option(let name): UsageError("unknown option \(name)")
        case .operand(let word): UsageError("unexpected argument \(word)")
        }
    }
}

/// Opening the database for a command: the SQLite file or the PostgreSQL database `--db` names.
enum StoreAccess {
    /// `create`: a missing database is created, as the server does (add, import). Otherwise
    /// a missing one is an error (exit 3) rather than a new empty database: exporting,
    /// listing or backing up a mistyped path should say so.
    static func open(_ location: String, create: Bool) throws -> any CommandLineStoring & ServedStore {
        switch StoreLocation(location) {
        case .sqlite(let path): try openSQLite(path, create: create)
        case .postgresql(let connectionString):
            try PostgresTaskStore(connectionString: connectionString, create: create, origin: WriteOrigin.commandLine)
        }
    }

    /// The SQLite file at `path`, for what only SQLite does (backup).
    static func openSQLite(_ path: String, create: Bool) throws -> TaskStore {
        if !create, isMissing(path) {
            throw CommandFailure(exitCode: 3, "there is no database at \(path)")
        }
        return try TaskStore(path: path, origin: WriteOrigin.commandLine)
    }

    /// Runs `body` with the store, as `using` does; when `location` is a SQLite file that
    /// does not exist yet, creates nothing and returns nil instead: the commands that only
    /// read (list, next, projects, …) show an empty list for it, since a first read on a
    /// fresh machine is no error. A PostgreSQL database is opened as ever.
    static func reading<T>(_ location: String, _ body: (any CommandLineStoring) async throws -> T) async throws -> T? {
        if case .sqlite(let path) = StoreLocation(location), isMissing(path) { return nil }
        return try await using(location, create: false, body)
    }

    /// What a reading command says when `reading` found no database: that there are no
    /// tasks, where the database would be, and how to add a task.
    static func noTasksYet(_ location: String) -> String {
        let add = location == Subcommands.defaultDatabasePath ? "taskline add TITLE" : "taskline add --db \(location) TITLE"
        return "no tasks yet (there is no database at \(location)); \(add) adds one"
    }

    private static func isMissing(_ path: String) -> Bool {
        path != ":memory:" && access(path, F_OK) != 0
    }

    /// Runs `body` with the store, then closes it (so that SQLite's WAL is checkpointed and
    /// removed, as the server does on its way out), whatever `body` did.
    static func using<T>(_ location: String, create: Bool, _ body: (any CommandLineStoring) async throws -> T) async throws -> T {
        let store = try open(location, create: create)
        return try await closing(store) { try await body(store) }
    }

    static func closing<T>(_ store: any ServedStore, _ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            await store.close()
            return value
        } catch {
            await store.close()
            throw error
        }
    }
}
