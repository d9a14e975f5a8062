import PeopleLanguage
import TaskModel

// Taskwarrior's start, stop, annotate and denotate: each one change, applied to the task as
// the write finds it (no ifVersion), so that another client's change meanwhile is kept.

/// `taskline start ID…`
enum StartCommand: TaskIDsCommand {
    static let name = "start"
    static let summary = "mark tasks active (being worked on), by id or short id"
    static let usage = """
        Usage: taskline start [--db PATH] ID…

        Marks each task active from now: show gives the start time, list flags it A, and
        urgency rises by urgency.active.coefficient (4). Completing a task stops it; a done
        task is not started. ID as for taskline done.

        Options:
          --db PATH    the database (default: the server's)

        Exit codes: 0 all started; 1 some ID matched no task, or more than one, or a task
        is done.
        """

    static func run(_ options: TaskIDsOptions) async throws -> Int32 {
        let now = Timestamp.now()
        return try await options.applyToEach { task, store in
            guard !task.done else { throw CommandFailure("\(try PeopleOutput.name(task, store)) is done: reopen it to start it") }
            return .update(id: task.id, changes: TaskChanges(startedAt: task.startedAt == nil ? .some(now) : nil), ifVersion: nil)
        } report: { before, shortID, outcome, _ in
            PeopleOutput.line(outcome.task!, prefix: before.startedAt == nil ? "started" : "already started", shortID: shortID)
        }
    }
}

/// `taskline stop ID…`
enum StopCommand: TaskIDsCommand {
    static let name = "stop"
    static let summary = "mark active tasks no longer active"
    static let usage = """
        Usage: taskline stop [--db PATH] ID…

        Takes each task's start time away: it is no longer active. ID as for taskline done.

        Options:
          --db PATH    the database (default: the server's)

        Exit codes: 0 all stopped; 1 some ID matched no task, or more than one.
        """

    static func run(_ options: TaskIDsOptions) async throws -> Int32 {
        try await options.applyToEach { task, _ in
            .update(id: task.id, changes: TaskChanges(startedAt: .some(nil)), ifVersion: nil)
        } report: { before, shortID, outcome, _ in
            PeopleOutput.line(outcome.task!, prefix: before.startedAt == nil ? "not started" : "stopped", shortID: shortID)
        }
    }
}

/// `taskline annotate ID TEXT…`
enum AnnotateCommand: Command {
    static let name = "annotate"
    static let summary = "add a dated note to a task: taskline annotate 3f2a called, no answer"
    static let usage = """
        Usage: taskline annotate [--db PATH] ID TEXT…

        Adds the words, joined by spaces, as an annotation of the task, dated now: show
        lists a task's annotations with their dates, list flags it N. Another client's
        annotation added meanwhile is kept. At most 100 a task, each 1 to 4,096
        characters on one line.

        Options:
          --db PATH    the database (default: the server's)
        """

    struct Options: Sendable {
        var database = Subcommands.defaultDatabasePath
        var id = ""
        var words: [String] = []
    }

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Options {
        try parseWords(&reader, wordsRequired: true)
    }

    /// The id, then the words: every operand after the id, dashes included after `--`.
    static func parseWords(_ reader: inout ArgumentReader, wordsRequired: Bool) throws(UsageError) -> Options {
        var options = Options()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .operand(let word) where options.id.isEmpty: options.id = word
            case .operand(let word): options.words.append(word)
            case .option(let word) where !word.hasPrefix("--") && !options.id.isEmpty: options.words.append(word)
            default: throw item.unexpected
            }
        }
        guard !options.id.isEmpty else { throw UsageError("which task? Give its id or short id") }
        guard !wordsRequired || !options.words.isEmpty else { throw UsageError("what note? Give its words after the id") }
        return options
    }

    static func run(_ options: Options) async throws -> Int32 {
        try await StoreAccess.using(options.database, create: false) { try await annotate(options, in: $0) }
        return 0
    }

    private static func annotate(_ options: Options, in store: isolated any CommandLineStoring) throws {
        let id = try PeopleOutput.resolve(options.id, in: store)
        let changes = TaskChanges(addAnnotations: [NewAnnotation(text: options.words.joined(separator: " "))])
        let task = try EditOptions.writing(store) { try store.update(id: id, changes: changes).value }
        try PeopleOutput.task(task, prefix: "annotated", store: store)
    }
}

/// `taskline denotate ID [TEXT…]`
enum DenotateCommand: Command {
    static let name = "denotate"
    static let summary = "remove an annotation of a task, by its text or the newest"
    static let usage = """
        Usage: taskline denotate [--db PATH] ID [TEXT…]

        Removes the annotation whose text is the words joined by spaces, or else the one
        whose text holds them (case ignored); several that match are refused, listed. With
        no words, the newest annotation goes.

        Options:
          --db PATH    the database (default: the server's)

        Exit codes: 0 removed; 1 no annotation matches, or more than one.
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> AnnotateCommand.Options {
        try AnnotateCommand.parseWords(&reader, wordsRequired: false)
    }

    static func run(_ options: AnnotateCommand.Options) async throws -> Int32 {
        try await StoreAccess.using(options.database, create: false) { try await denotate(options, in: $0) }
        return 0
    }

    private static func denotate(_ options: AnnotateCommand.Options, in store: isolated any CommandLineStoring) throws {
        let current = try store.get(id: try PeopleOutput.resolve(options.id, in: store))
        let removed = try annotation(of: current, matching: options.words.joined(separator: " "), store: store)
        let changes = TaskChanges(removeAnnotations: [removed])
        let task = try EditOptions.writing(store) { try store.update(id: current.id, changes: changes).value }
        try PeopleOutput.task(task, prefix: "denotated", store: store)
    }

    /// The annotation `text` names: the one of that text, else the one whose text holds it
    /// (lowercased), or the newest when `text` is empty. Copies of one (the same time and
    /// text) count once.
    static func annotation(of task: TaskItem, matching text: String, store: isolated any CommandLineStoring) throws -> Annotation {
        let named = try PeopleOutput.name(task, store)
        guard let newest = task.annotations.last else { throw CommandFailure("\(named) has no annotations") }
        guard !text.isEmpty else { return newest }
        var matches = task.annotations.filter { $0.text.utf8.elementsEqual(text.utf8) }
        if matches.isEmpty { matches = task.annotations.filter { TaskRules.folded($0.text).contains(TaskRules.folded(text)) } }
        var distinct: [Annotation] = []
        for match in matches where !distinct.contains(where: { $0.isIdentical(to: match) }) { distinct.append(match) }
        guard let only = distinct.first else { throw CommandFailure("no annotation of \(named) holds \"\(text)\"") }
        guard distinct.count == 1 else {
            let dates = DateContext.current()
            let listed = distinct.map { "  \(ShowCommand.local($0.at, dates))  \($0.text)" }.joined(separator: "\n")
            throw CommandFailure("\(distinct.count) annotations of \(named) hold \"\(text)\"; give more of the text:\n\(listed)")
        }
        return only
    }
}
