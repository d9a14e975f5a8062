import JSONRPC
import Logging
import TaskStore
import TasklineServer

// A small command line for people: add, list, done, rm. They go through the same store code
// as the server, so running servers see their changes, and they show ids shortened the way
// git shortens hashes.

/// `taskline add TITLE…`
enum AddCommand: Command {
    struct Options: Sendable {
        var database = Subcommands.defaultDatabasePath
        var words: [String] = []
        var draft = TaskDraft(title: "")
    }

    static let name = "add"
    static let summary = "add a task"
    static let usage = """
        Usage: taskline add [--db PATH] [--tag TAG]… [--due DATE] [--priority P] [--notes TEXT] TITLE…

        Adds a task whose title is the words of TITLE joined by spaces, and prints its short
        id and title. Running servers tell their clients at once. Use -- before a title that
        starts with -.

        Options:
          --db PATH       the database (default: the server's; created if missing)
          --tag TAG       a tag (repeat for more)
          --due DATE      the due date: 2026-12-01, or 2026-12-01T17:00:00+01:00 (RFC 3339)
          --priority P    none, low, medium, high (or 0 to 3)
          --notes TEXT    notes
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Options {
        var options = Options()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .option("--tag"): options.draft.tags.append(try reader.value())
            case .option("--due"): options.draft.due = try reader.value()
            case .option("--notes"): options.draft.notes = try reader.value()
            case .option("--priority"):
                let text = try reader.value()
                guard let priority = PriorityName.value(text) else {
                    throw UsageError("--priority must be none, low, medium, high or 0 to 3, not \(text)")
                }
                options.draft.priority = priority
            case .operand(let word): options.words.append(word)
            default: throw item.unexpected
            }
        }
        guard !options.words.isEmpty else { throw UsageError("what task? Give its title") }
        options.draft.title = options.words.joined(separator: " ")
        return options
    }

    static func run(_ options: Options) async throws -> Int32 {
        try await StoreAccess.using(options.database, create: true) { try await add(options.draft, to: $0) }
        return 0
    }

    private static func add(_ draft: TaskDraft, to store: isolated TaskStore) throws {
        let task: TaskItem
        do {
            task = try store.create(draft).value
        } catch TaskStoreError.invalid(let field, let reason) {
            // The values came from the command line: name the option they came from.
            let option = field == "title" ? "the title" : "--" + field.prefix { $0 != "[" }
            throw UsageError("\(option) \(reason)")
        }
        let output = OutputWriter()
        try output.line("added " + TaskLine.format(task, shortID: try store.shortID(for: task.id)))
        try output.flush()
    }
}

/// `taskline list`
enum ListCommand: Command {
    enum Show: Sendable {
        case open, done, all
    }

    struct Options: Sendable {
        var database = Subcommands.defaultDatabasePath
        var show = Show.open
        var tags: [String] = []
        var json = false
    }

    static let name = "list"
    static let summary = "list open tasks (or done ones, or all), oldest first"
    static let usage = """
        Usage: taskline list [--db PATH] [--done | --all] [--tag TAG]… [--json]

        Lists the open tasks, oldest first, one per line: short id, [ ] or [x], title, then
        #tags, the due date and the priority when there are any. A short id is the shortest
        start of the task's id that no other task's id shares, at least 7 characters; for
        the ids the server makes (time-ordered UUIDs), a start of their last, random group
        instead. done and rm take it, or any start of it of 4 characters or more that is
        unique.

        Options:
          --db PATH     the database (default: the server's)
          --done        list the done tasks instead
          --all         list every task
          --tag TAG     only tasks with this tag (repeat: with all of them)
          --json        print a JSON array of the tasks in the wire format instead
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Options {
        var options = Options()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .option("--done"): options.show = .done
            case .option("--all"): options.show = .all
            case .option("--tag"): options.tags.append(try reader.value())
            case .option("--json"): options.json = true
            default: throw item.unexpected
            }
        }
        return options
    }

    static func run(_ options: Options) async throws -> Int32 {
        try await StoreAccess.using(options.database, create: false) { try await list(options, from: $0) }
        return 0
    }

    private static func list(_ options: Options, from store: isolated TaskStore) throws {
        let done: Bool? = switch options.show {
        case .open: false
        case .done: true
        case .all: nil
        }
        var query = TaskQuery(filter: TaskFilter(done: done, tags: options.tags), limit: TaskQuery.maxLimit)
        let output = OutputWriter()
        // Found with the first task to print: a list that prints none needs no pass over the ids.
        var shortIDs: ShortIDs?
        var count = 0
        if options.json { try output.write("[") }
        repeat {
            let page: TaskPage
            do {
                page = try store.fetch(query)
            } catch TaskStoreError.invalid(_, let reason) {
                throw UsageError("--tag \(reason)")
            }
            for task in page.tasks {
                if options.json {
                    try output.write(count == 0 ? "\n" : ",\n")
                    try output.write(JSONWriter.bytes(TaskJSON.encode(task)))
                } else {
                    let ids = try shortIDs ?? store.shortIDs()
                    shortIDs = ids
                    try output.line(TaskLine.format(task, shortID: ids.shortID(for: task.id)))
                }
                count += 1
            }
            query.cursor = page.nextCursor
        } while query.cursor != nil
        if options.json { try output.write(count == 0 ? "]\n" : "\n]\n") }
        try output.flush()
    }
}

/// `taskline done ID…`
enum DoneCommand: Command {
    static let name = "done"
    static let summary = "mark tasks done, by id or short id"
    static let usage = """
        Usage: taskline done [--db PATH] ID…

        Marks each task done. ID is a task's id or short id (as list shows it), or a
        start of a short id, at least 4 characters, that no other task's shares; an
        ambiguous one is refused.

        Options:
          --db PATH    the database (default: the server's)

        Exit codes: 0 all done; 1 some ID matched no task, or more than one.
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> TaskIDsOptions {
        try TaskIDsOptions.parse(&reader)
    }

    static func run(_ options: TaskIDsOptions) async throws -> Int32 {
        try await options.forEachTask { id, store throws in
            let before = try store.get(id: id)
            let after = try store.update(id: id, changes: TaskChanges(done: true))
            return (before.done ? "already done " : "done ") + TaskLine.format(after.value, shortID: try store.shortID(for: id))
        }
    }
}

/// `taskline rm ID…`
enum RemoveCommand: Command {
    static let name = "rm"
    static let summary = "delete tasks, by id or short id"
    static let usage = """
        Usage: taskline rm [--db PATH] ID…

        Deletes each task. ID is a task's id or short id (as list shows it), or a start
        of a short id, at least 4 characters, that no other task's shares; an ambiguous
        one is refused.

        Options:
          --db PATH    the database (default: the server's)

        Exit codes: 0 all deleted; 1 some ID matched no task, or more than one.
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> TaskIDsOptions {
        try TaskIDsOptions.parse(&reader)
    }

    static func run(_ options: TaskIDsOptions) async throws -> Int32 {
        try await options.forEachTask { id, store throws in
            let task = try store.get(id: id)
            let line = TaskLine.format(task, shortID: try store.shortID(for: id))
            _ = try store.delete(id: id)
            return "removed " + line
        }
    }
}

/// What `done` and `rm` take: ids, short ids or their starts.
struct TaskIDsOptions: Sendable {
    var database = Subcommands.defaultDatabasePath
    var ids: [String] = []

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> TaskIDsOptions {
        var options = TaskIDsOptions()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .operand(let id): options.ids.append(id)
            default: throw item.unexpected
            }
        }
        guard !options.ids.isEmpty else { throw UsageError("which task? Give its id or short id") }
        return options
    }

    /// Resolves each id and runs `body` on it, printing what it returns. An id that matches
    /// no task, or several, is reported and the others still go ahead; the exit code is 1
    /// if any failed.
    func forEachTask(_ body: @Sendable (String, isolated TaskStore) throws -> String) async throws -> Int32 {
        try await StoreAccess.using(database, create: false) { try await Self.forEachTask(ids, store: $0, body) }
    }

    private static func forEachTask(_ ids: [String], store: isolated TaskStore,
                                    _ body: (String, isolated TaskStore) throws -> String) throws -> Int32 {
        let output = OutputWriter()
        var failed = false
        for text in ids {
            do {
                try output.line(try body(try store.resolveID(text), store))
            } catch let error as ShortID.LookupError {
                Log.error("\(error)")
                failed = true
            } catch let error as TaskStoreError {
                Log.error(CommandFailure.describe(error))
                failed = true
            }
        }
        try output.flush()
        return failed ? 1 : 0
    }
}

/// One task on one line, for people.
enum TaskLine {
    /// `3f2a9c1  [ ]  Buy milk  #errand  due 2026-12-01  !high`
    static func format(_ task: TaskItem, shortID: String) -> String {
        var line = "\(shortID)  \(task.done ? "[x]" : "[ ]")  \(task.title)"
        if !task.tags.isEmpty { line += "  " + task.tags.map { "#" + $0 }.joined(separator: " ") }
        if let due = task.due { line += "  due \(due)" }
        if task.priority > 0 { line += "  !" + PriorityName.names[task.priority] }
        return line
    }
}

enum PriorityName {
    static let names = ["none", "low", "medium", "high"]

    static func value(_ text: String) -> Int? {
        if let index = names.firstIndex(of: text.lowercased()) { return index }
        guard let number = Int(text), names.indices.contains(number) else { return nil }
        return number
    }
}
