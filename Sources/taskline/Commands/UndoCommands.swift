import TaskStore

// `taskline undo` and `taskline redo`: the command line's own changes (add, done, rm), which
// it writes as one origin whatever the run, undone and redone newest first.

/// `taskline undo`
enum UndoCommand: Command {
    static let name = "undo"
    static let summary = "undo the command line's newest change"
    static let usage = ReversalCommand.usage(name: name, action: "Undoes the newest change that add, done or rm made and that is not undone yet (redo redoes it)")

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> ReversalCommand.Options {
        try ReversalCommand.parse(&reader)
    }

    static func run(_ options: ReversalCommand.Options) async throws -> Int32 {
        try await ReversalCommand.run(options, verb: "undid", nothing: "nothing to undo") { try $0.undo(force: $1) }
    }
}

/// `taskline redo`
enum RedoCommand: Command {
    static let name = "redo"
    static let summary = "redo what undo undid"
    static let usage = ReversalCommand.usage(name: name, action: "Redoes the newest change that undo undid, unless add, done or rm changed something since")

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> ReversalCommand.Options {
        try ReversalCommand.parse(&reader)
    }

    static func run(_ options: ReversalCommand.Options) async throws -> Int32 {
        try await ReversalCommand.run(options, verb: "redid", nothing: "nothing to redo") { try $0.redo(force: $1) }
    }
}

/// What `undo` and `redo` share.
enum ReversalCommand {
    struct Options: Sendable {
        var database = Subcommands.defaultDatabasePath
        var force = false
    }

    static func usage(name: String, action: String) -> String {
        """
        Usage: taskline \(name) [--db PATH] [--force]

        \(action), and prints the tasks as it left them. Running servers tell their clients
        at once. A task that something else changed since is not touched: the command lists
        such tasks and fails, unless --force.

        Options:
          --db PATH    the database (default: the server's)
          --force      revert even the tasks that changed since

        Exit codes: 0 done; 1 nothing to \(name), or tasks changed since.
        """
    }

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Options {
        var options = Options()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .option("--force"): options.force = true
            default: throw item.unexpected
            }
        }
        return options
    }

    static func run(_ options: Options, verb: String, nothing: String,
                    _ revert: @escaping @Sendable (isolated TaskStore, Bool) throws -> Reversal?) async throws -> Int32 {
        try await StoreAccess.using(options.database, create: false) { store in
            try await report(store, force: options.force, verb: verb, nothing: nothing, revert)
        }
    }

    private static func report(_ store: isolated TaskStore, force: Bool, verb: String, nothing: String,
                               _ revert: (isolated TaskStore, Bool) throws -> Reversal?) throws -> Int32 {
        let reversal: Reversal
        do {
            guard let reverted = try revert(store, force) else { throw CommandFailure(nothing) }
            reversal = reverted
        } catch TaskStoreError.undoConflict(let tasks, let deleted) {
            let changed = tasks.map { TaskLine.format($0, shortID: (try? store.shortID(for: $0.id)) ?? $0.id) } + deleted.map { "\($0) (deleted)" }
            throw CommandFailure("changed since, so nothing was reverted (--force reverts anyway):\n  " + changed.joined(separator: "\n  "))
        }
        let output = OutputWriter()
        let count = reversal.changes.count
        try output.line("\(verb) \(count) change\(count == 1 ? "" : "s")")
        for task in reversal.tasks { try output.line("  " + TaskLine.format(task, shortID: try store.shortID(for: task.id))) }
        for id in reversal.deleted { try output.line("  removed \(id)") }
        try output.flush()
        return 0
    }
}
