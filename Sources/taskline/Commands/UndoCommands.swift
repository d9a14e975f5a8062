import PeopleLanguage
import TaskModel

// `taskline undo` and `taskline redo`: the command line's own changes (add, done, rm), which
// it writes as one origin whatever the run, undone and redone newest first; with --any,
// every writer's (an editor's mistaken completion, say).

/// `taskline undo`
enum UndoCommand: ReversalCommand {
    static let name = "undo"
    static let summary = "undo the command line's newest change"
    static let action = "Undoes the newest change that add, done or rm made and that is not undone yet (redo redoes it)"
    static let verb = "undid"

    static func revert(_ store: isolated any CommandLineStoring, scope: UndoScope, force: Bool) throws -> Reversal? {
        try store.undo(scope: scope, force: force)
    }
}

/// `taskline redo`
enum RedoCommand: ReversalCommand {
    static let name = "redo"
    static let summary = "redo what undo undid"
    static let action = "Redoes the newest change that undo undid, unless add, done or rm changed something since"
    static let verb = "redid"

    static func revert(_ store: isolated any CommandLineStoring, scope: UndoScope, force: Bool) throws -> Reversal? {
        try store.redo(scope: scope, force: force)
    }
}

struct ReversalOptions: Sendable {
    var database = Subcommands.defaultDatabasePath
    var force = false
    /// The command line's own changes (`.connection`), or every writer's (`--any`).
    var scope = UndoScope.connection
}

/// What `undo` and `redo` share: their options, their usage and their report.
protocol ReversalCommand: Command where Options == ReversalOptions {
    /// The first sentence of the usage.
    static var action: String { get }
    /// The past tense the report starts with.
    static var verb: String { get }
    static func revert(_ store: isolated any CommandLineStoring, scope: UndoScope, force: Bool) throws -> Reversal?
}

extension ReversalCommand {
    static var usage: String {
        """
        Usage: taskline \(name) [--db PATH] [--any] [--force]

        \(wrapped(action + ", and prints the tasks as it left them. Running servers tell their clients at once. "
            + "A task that something else changed since is not touched: the command lists such tasks and fails, "
            + "unless --force."))

        Options:
          --db PATH    the database (default: the server's)
          --any        any writer's newest change, an editor's too, not only the command line's
          --force      revert even the tasks that changed since

        Exit codes: 0 done; 1 nothing to \(name), or tasks changed since.
        """
    }

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> ReversalOptions {
        var options = ReversalOptions()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .option("--force"): options.force = true
            case .option("--any"): options.scope = .database
            default: throw item.unexpected
            }
        }
        return options
    }

    static func run(_ options: ReversalOptions) async throws -> Int32 {
        try await StoreAccess.using(options.database, create: false) { try await report($0, options) }
    }

    private static func report(_ store: isolated any CommandLineStoring, _ options: ReversalOptions) throws -> Int32 {
        let reversal: Reversal
        do {
            guard let reverted = try revert(store, scope: options.scope, force: options.force) else {
                // The change people mean may be an editor's, which only --any reaches.
                throw CommandFailure(
                    options.scope == .connection ? "nothing to \(name) (the command line's own changes; --any: every writer's)" : "nothing to \(name)"
                )
            }
            reversal = reverted
        } catch TaskStoreError.undoConflict(let tasks, let deleted) {
            let changed = tasks.map { PeopleOutput.row($0, shortID: (try? store.shortID(for: $0.id)) ?? $0.id) } + deleted.map { "\($0) (deleted)" }
            throw CommandFailure("changed since, so nothing was reverted (--force reverts anyway):\n  " + changed.joined(separator: "\n  "))
        }
        let output = OutputWriter()
        let count = reversal.changes.count
        let whose = reversal.group.own ? "" : " made by another program"
        try output.line("\(verb) \(count) change\(count == 1 ? "" : "s")\(whose)")
        for task in reversal.tasks { try output.line("  " + PeopleOutput.row(task, shortID: try store.shortID(for: task.id))) }
        for id in reversal.deleted { try output.line("  removed \(id)") }
        try output.flush()
        return 0
    }
}
