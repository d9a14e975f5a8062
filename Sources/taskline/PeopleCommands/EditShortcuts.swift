import PeopleLanguage
import TaskModel

// Taskwarrior's shortcuts for add and modify: append, prepend, log, duplicate. Each reads
// the same words as add and modify, and is one change.

/// `taskline append ID WORDS…` and `taskline prepend ID WORDS…`
enum AppendCommand: Command {
    static let name = "append"
    static let summary = "add words to the end of a task's title: taskline append 3f2a by friday"
    static let usage = usageText(name: name, where: "after")

    static func usageText(name: String, where place: String) -> String {
        """
        Usage: taskline \(name) [--db PATH] ID WORDS… [+TAG|-TAG]… [NAME:VALUE]…

        Puts the words \(place) the task's title; +TAG, -TAG and attributes change the task
        as modify's do. Applied only to the version of the task it read.

        Options: as for taskline add.
        """
    }

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> EditOptions {
        try parseWords(&reader)
    }

    static func parseWords(_ reader: inout ArgumentReader) throws(UsageError) -> EditOptions {
        let options = try EditOptions.parse(&reader, modify: true)
        guard options.id != nil else { throw UsageError("which task? Give its id or short id") }
        guard !options.edit.titleWords.isEmpty else { throw UsageError("what words? Give them after the id") }
        return options
    }

    static func run(_ options: EditOptions) async throws -> Int32 {
        try await extendTitle(options, prefix: "appended") { $0 + $1 }
    }

    /// Modifies the task with its title made of `joined(title, words)`.
    static func extendTitle(_ options: EditOptions, prefix: String, _ joined: @Sendable @escaping ([String], [String]) -> [String]) async throws
        -> Int32
    {
        try await StoreAccess.using(options.database, create: false) { try await extendTitle(options, in: $0, prefix: prefix, joined) }
        return 0
    }

    private static func extendTitle(
        _ options: EditOptions, in store: isolated any CommandLineStoring, prefix: String, _ joined: ([String], [String]) -> [String]
    ) throws {
        let current = try store.get(id: try PeopleOutput.resolve(options.id!, in: store))
        var edit = options.edit
        edit.titleWords = joined([current.title], edit.titleWords)
        let changes = edit.changes(to: current, dependsOn: try store.resolveDependencies(edit.dependsOn))
        let task = try EditOptions.writing(store) { try store.update(id: current.id, changes: changes, ifVersion: current.version).value }
        try PeopleOutput.task(task, prefix: prefix, store: store)
    }
}

/// `taskline prepend ID WORDS…`
enum PrependCommand: Command {
    static let name = "prepend"
    static let summary = "add words to the start of a task's title"
    static let usage = AppendCommand.usageText(name: name, where: "before")

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> EditOptions {
        try AppendCommand.parseWords(&reader)
    }

    static func run(_ options: EditOptions) async throws -> Int32 {
        try await AppendCommand.extendTitle(options, prefix: "prepended") { $1 + $0 }
    }
}

/// `taskline log WORDS…`
enum LogCommand: Command {
    static let name = "log"
    static let summary = "record a task already done: taskline log Called the bank +money"
    static let usage = """
        Usage: taskline log [--db PATH] [--notes TEXT] WORDS… [+TAG]… [NAME:VALUE]…

        Adds a task that is done already, to keep a record of it: the words are as for add.

        Options: as for taskline add.
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> EditOptions {
        var options = try AddCommand.parse(&reader)
        guard options.edit.done != false else { throw UsageError("log records a done task: status:open is add's") }
        options.edit.done = true
        return options
    }

    static func run(_ options: EditOptions) async throws -> Int32 {
        try await StoreAccess.using(options.database, create: true) { try await AddCommand.add(options.edit, to: $0, saying: "logged") }
        return 0
    }
}

/// `taskline duplicate ID [WORDS…]`
enum DuplicateCommand: Command {
    static let name = "duplicate"
    static let summary = "add a copy of a task, changed by the words given"
    static let usage = """
        Usage: taskline duplicate [--db PATH] ID [WORDS…] [+TAG|-TAG]… [NAME:VALUE]…

        Adds a new, open task with the fields of the task ID (title, notes, priority, tags,
        project, due date, wait, dependencies, recurrence as a series of its own, reminder,
        annotations; not its start), changed by the words as modify changes a task: words
        replace the title.

        Options: as for taskline add.
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> EditOptions {
        let options = try EditOptions.parse(&reader, modify: true)
        guard options.id != nil else { throw UsageError("which task? Give its id or short id") }
        return options
    }

    static func run(_ options: EditOptions) async throws -> Int32 {
        try await StoreAccess.using(options.database, create: false) { try await duplicate(options, in: $0) }
        return 0
    }

    private static func duplicate(_ options: EditOptions, in store: isolated any CommandLineStoring) throws {
        let original = try store.get(id: try PeopleOutput.resolve(options.id!, in: store))
        let changes = options.edit.changes(to: original, dependsOn: try store.resolveDependencies(options.edit.dependsOn))
        let copy = try original.changed(by: changes, tags: changes.tags, dependsOn: changes.dependsOn, now: Timestamp.now())
        let draft = TaskDraft(
            title: copy.title, notes: copy.notes, done: options.edit.done ?? false, priority: copy.priority, tags: copy.tags,
            due: copy.due, project: copy.project, dependsOn: copy.dependsOn, wait: copy.wait, recurrence: copy.recurrence,
            remindAt: copy.remindAt, annotations: copy.annotations.map { NewAnnotation(at: $0.at, text: $0.text) })
        let task = try EditOptions.writing(store) { try store.create(draft).value }
        try PeopleOutput.task(task, prefix: "added", store: store)
    }
}
