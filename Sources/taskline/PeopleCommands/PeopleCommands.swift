import Logging
import PeopleLanguage
import TaskModel
import TasklineServer

// The command line for people: add, modify, done, rm (and list, show, edit, … beside).
// They go through the same store code as the server, so running servers see their changes,
// and they show ids shortened the way git shortens hashes.

/// The text the help of `add` and `modify` share about the words after the command.
enum AttributeHelp {
    static let text = """
        Words after the command make the title, except:
          +TAG                  add a tag (modify: -TAG removes one)
          project:Home.Garage   the project, a dot-separated path (abbreviation: proj:)
          due:DATE              the due date (see DATES)
          wait:DATE             hide the task from next until then (a day: from its start)
          pri:H|M|L|none        the priority (also high, medium, low, or 0 to 3)
          depends:ID,ID         the tasks this one waits for (short ids work)
          recur:weekly          repeat: when done, the next one is made, due a step later
                                (daily, weekdays, weekly, biweekly, monthly, quarterly,
                                yearly, 3d, 2w, 6mo, or a rule: FREQ=MONTHLY;BYMONTHDAY=1);
                                needs a due date
          remind:DATE           when an editor or the TUI that asks for reminders shows it
                                (a day: 09:00 that day; remind:8am, remind:fri 9am)
        An attribute with nothing after the colon clears it (due:). A word with a colon
        whose name is not one of these (re:meeting) is refused rather than put in the title;
        words after -- are title words whatever they look like: taskline add -- re:meeting.
        Words with a colon that are not NAME:VALUE (10:30, https://…) are title words.

        \(wrapped("DATES: " + PeopleDates.accepted + "."))
        A day (today, fri, +3d, 2026-12-05) is stored as a date (for wait:, as the start of
        that day; for remind:, 09:00 that day); a time (now, 4h, 9am, fri 9am,
        2026-12-05T17:00) as a time with the local offset (TZ is honoured). A time of day
        after a date attribute is part of it: due:fri 17:00.

        Examples: due:fri  due:15th  due:eom  due:next-week  due:+3d  wait:someday
        remind:8am  remind:fri 9am  due:tomorrow noon  due:2026-12-24T18:00
        """
}

/// What `add` and `modify` read: the database, the task (modify), and the changes.
struct EditOptions: Sendable {
    var database = Subcommands.defaultDatabasePath
    var id: String?
    var edit = TaskEdit()

    static func parse(_ reader: inout ArgumentReader, modify: Bool) throws(UsageError) -> EditOptions {
        var options = EditOptions()
        let dates = DateContext.current()
        var words: [TaskWords.Word] = []
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .option("--tag"): options.edit.addTags.append(try TagWord.checked(try reader.value()))
            case .option("--notes"): options.edit.notes = try reader.value()
            case .option("--due"): options.edit.due = .some(try dates.date(try reader.value(), for: "--due"))
            case .option("--wait"): options.edit.wait = .some(try dates.time(try reader.value(), for: "--wait"))
            case .option("--project"): options.edit.project = .some(try reader.value())
            case .option("--priority"): options.edit.priority = try PriorityName.parse(try reader.value(), for: "--priority")
            case .option(let word) where !word.hasPrefix("--"):
                words.append(TaskWords.Word(word))
            case .operand(let word) where modify && options.id == nil && !reader.optionsEnded:
                options.id = word
            case .operand(let word):
                words.append(TaskWords.Word(word, literal: reader.optionsEnded))
            default: throw item.unexpected
            }
        }
        try TaskWords.read(words, into: &options.edit, dates: dates, modify: modify)
        return options
    }

    /// Runs a write from the command line, its complaints worded for the command line.
    static func writing<T>(_ store: isolated any CommandLineStoring, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as TaskStoreError {
            throw usageError(error, store)
        }
    }

    /// The store's complaint about a value, in the words of the command line.
    static func usageError(_ error: TaskStoreError, _ store: isolated any CommandLineStoring) -> Error {
        switch error {
        case .invalid(let field, let reason):
            let name =
                switch field.prefix(while: { $0 != "[" }) {
                case "title": "the title"
                case "tags": "+tag"
                case "project": "project:"
                case "due": "due:"
                case "wait": "wait:"
                case "dependsOn": "depends:"
                case "priority": "pri:"
                case "recurrence", "recurrence.rule": "recur:"
                case "remindAt": "remind:"
                default: "--" + field
                }
            return UsageError("\(name) \(reason)")
        case .dependencyCycle: return CommandFailure(PeopleOutput.describe(error, store))
        default: return error
        }
    }
}

/// `taskline add WORDS…`
enum AddCommand: Command {
    static let name = "add"
    static let summary = "add a task: taskline add Fix bike +home due:fri pri:H"
    static let usage = """
        Usage: taskline add [--db PATH] [--notes TEXT] WORDS… [+TAG]… [NAME:VALUE]…

        Adds a task and prints its short id and what it holds. Running servers tell their
        clients at once.

        \(AttributeHelp.text)

        Options:
          --db PATH          the database (default: the server's; created if missing)
          --notes TEXT       notes (modify: replaces them; taskline annotate adds a dated note)
          --tag TAG          a tag (repeat for more), as +TAG
          --due DATE         as due:DATE
          --wait DATE        as wait:DATE
          --project P        as project:P
          --priority P       as pri:P
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> EditOptions {
        let options = try EditOptions.parse(&reader, modify: false)
        guard !options.edit.titleWords.isEmpty else { throw UsageError("what task? Give its title") }
        return options
    }

    static func run(_ options: EditOptions) async throws -> Int32 {
        try await StoreAccess.using(options.database, create: true) { try await add(options.edit, to: $0) }
        return 0
    }

    static func add(_ edit: TaskEdit, to store: isolated any CommandLineStoring, saying prefix: String = "added") throws {
        let draft = edit.draft(dependsOn: try store.resolveDependencies(edit.dependsOn) ?? [])
        let task = try EditOptions.writing(store) { try store.create(draft).value }
        try PeopleOutput.task(task, prefix: prefix, store: store)
    }
}

/// `taskline modify ID WORDS…`
enum ModifyCommand: Command {
    static let name = "modify"
    static let summary = "change a task: taskline modify 3f2a due:tomorrow -home"
    static let usage = """
        Usage: taskline modify [--db PATH] [--notes TEXT] ID [WORDS…] [+TAG|-TAG]… [NAME:VALUE]…

        Changes the task ID (a short id, as list shows it): words replace its title, +TAG
        and -TAG add and remove tags, attributes replace their field. It is applied only to
        the version of the task it read, so a change another client made meanwhile is not
        overwritten (run it again).

        \(AttributeHelp.text)

        Options: as for taskline add.
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> EditOptions {
        let options = try EditOptions.parse(&reader, modify: true)
        guard options.id != nil else { throw UsageError("which task? Give its id or short id") }
        guard !options.edit.isEmpty else { throw UsageError("what to change? Give words, +TAG, -TAG or NAME:VALUE") }
        return options
    }

    static func run(_ options: EditOptions) async throws -> Int32 {
        try await StoreAccess.using(options.database, create: false) { try await modify(options, in: $0) }
        return 0
    }

    private static func modify(_ options: EditOptions, in store: isolated any CommandLineStoring) throws {
        let edit = options.edit
        let current = try store.get(id: try PeopleOutput.resolve(options.id!, in: store))
        let changes = edit.changes(to: current, dependsOn: try store.resolveDependencies(edit.dependsOn))
        let task = try EditOptions.writing(store) { try store.update(id: current.id, changes: changes, ifVersion: current.version).value }
        try PeopleOutput.task(task, prefix: "modified", store: store)
    }
}

/// `taskline done ID…`
enum DoneCommand: TaskIDsCommand {
    static let name = "done"
    static let summary = "mark tasks done, by id or short id"
    static let usage = """
        Usage: taskline done [--db PATH] ID…

        Marks each task done. ID is a task's id or short id (as list shows it), or a
        start of a short id, at least 4 characters, that no other task's shares; an
        ambiguous one is refused. A recurring task's next occurrence is shown after it
        (next …).

        Options:
          --db PATH    the database (default: the server's)

        Exit codes: 0 all done; 1 some ID matched no task, or more than one.
        """

    static func run(_ options: TaskIDsOptions) async throws -> Int32 {
        try await options.applyToEach { task, store in
            // Done anyway, as Taskwarrior does, but said: what it waited for is still open.
            let open = task.dependsOn.compactMap { try? store.get(id: $0) }.filter { !$0.done }
            if !task.done, !open.isEmpty {
                let waitedFor = try open.map { try PeopleOutput.name($0, store) }.joined(separator: ", ")
                let named = try PeopleOutput.name(task, store)
                Log.warning("\(named) waits for \(waitedFor), still open")
            }
            return .update(id: task.id, changes: TaskChanges(done: true), ifVersion: nil)
        } report: { before, shortID, outcome, store in
            var lines = [PeopleOutput.line(outcome.task!, prefix: before.done ? "already done" : "done", shortID: shortID)]
            // A recurring task's next occurrence, made in the same transaction.
            for case let next? in outcome.otherChanges.map(\.task) where next.seriesId != nil && next.seriesId == outcome.task!.seriesId {
                lines.append(PeopleOutput.line(next, prefix: "next", shortID: try store.shortID(for: next.id)))
            }
            return lines.joined(separator: "\n")
        }
    }
}

/// `taskline rm ID…`
enum RemoveCommand: TaskIDsCommand {
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

    static func run(_ options: TaskIDsOptions) async throws -> Int32 {
        try await options.applyToEach { task, _ in
            .delete(id: task.id, ifVersion: nil)
        } report: { before, shortID, _, _ in
            PeopleOutput.line(before, prefix: "removed", shortID: shortID)
        }
    }
}

/// A command that takes only task ids: done, rm, start, stop.
protocol TaskIDsCommand: Command where Options == TaskIDsOptions {}

extension TaskIDsCommand {
    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> TaskIDsOptions {
        try TaskIDsOptions.parse(&reader)
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

    /// Resolves every id, then writes an operation a task in one apply, so that `done A B`
    /// is one change group, which one `undo` reverts, and prints each outcome's report.
    /// An id that matches no task, or several, a task `operation` refuses (`CommandFailure`)
    /// and an operation that fails are reported and the others still go ahead; the exit
    /// code is 1 if any failed.
    func applyToEach(
        _ operation: @Sendable @escaping (TaskItem, isolated any CommandLineStoring) throws -> TaskOperation,
        report: @Sendable @escaping (_ before: TaskItem, _ shortID: String, OperationOutcome, isolated any CommandLineStoring) throws -> String
    ) async throws -> Int32 {
        try await StoreAccess.using(database, create: false) { try await Self.applyToEach(ids, store: $0, operation, report) }
    }

    private static func applyToEach(
        _ ids: [String], store: isolated any CommandLineStoring,
        _ operation: (TaskItem, isolated any CommandLineStoring) throws -> TaskOperation,
        _ report: (TaskItem, String, OperationOutcome, isolated any CommandLineStoring) throws -> String
    ) throws -> Int32 {
        var failed = false
        var targets: [(task: TaskItem, shortID: String)] = []
        for text in ids {
            do {
                let id = try store.resolveID(text)
                guard !targets.contains(where: { $0.task.id == id }) else { continue }
                targets.append((try store.get(id: id), try store.shortID(for: id)))
            } catch let error as ShortID.LookupError {
                Log.error("\(error)")
                failed = true
            } catch let error as TaskStoreError {
                Log.error(PeopleOutput.describe(error, store))
                failed = true
            }
        }
        var operations: [Result<TaskOperation, TaskStoreError>] = []
        targets = try targets.filter { target in
            do {
                operations.append(.success(try operation(target.task, store)))
                return true
            } catch let refusal as CommandFailure {
                Log.error(refusal.message ?? "")
                failed = true
                return false
            }
        }
        let results = operations.isEmpty ? [] : try store.apply(operations, atomic: false)
        let output = OutputWriter()
        for (target, result) in zip(targets, results) {
            switch result {
            case .success(let outcome): try output.line(try report(target.task, target.shortID, outcome, store))
            case .failure(let error):
                Log.error(PeopleOutput.describe(error, store))
                failed = true
            }
        }
        try output.flush()
        return failed ? 1 : 0
    }
}

/// How the people's commands print one task.
enum PeopleOutput {
    /// `added 3f2a9c1  [ ]  H  tomorrow  Home  Fix bike  +home`: a row of list, after a word.
    static func line(_ task: TaskItem, prefix: String, shortID: String) -> String {
        prefix + " " + row(task, shortID: shortID)
    }

    /// `3f2a9c1 "Pack for Porto"`: a task as messages name it.
    static func name(_ task: TaskItem, _ store: isolated any CommandLineStoring) throws -> String {
        "\(try store.shortID(for: task.id)) \"\(task.title)\""
    }

    /// The error's message with its tasks named as `name` names them, not by their ids.
    static func describe(_ error: TaskStoreError, _ store: isolated any CommandLineStoring) -> String {
        var names: [String: String] = [:]
        for id in error.taskIDs {
            if let task = try? store.get(id: id), let named = try? name(task, store) { names[id] = named }
        }
        return CommandFailure.describe(error) { names[$0] ?? $0 }
    }

    /// `3f2a9c1  [ ]  H  tomorrow  Home  Fix bike  +home`: a row of list, whole on one line
    /// (a confirmation shows all it set; the terminal wraps it).
    static func row(_ task: TaskItem, shortID: String) -> String {
        var terminal = Terminal.stdout()
        terminal.width = nil
        return TaskTable(terminal: terminal, dates: .current()).lines([task], shortID: { _ in shortID })[0]
    }

    /// The confirmation of add, modify and edit: the row, then what the row has no column
    /// for, as the words that set it (`recur:weekly  wait:tomorrow  remind:sat 09:00`).
    static func task(_ task: TaskItem, prefix: String, store: isolated any CommandLineStoring) throws {
        let ids = try store.shortIDs(for: [task.id] + task.dependsOn)
        let output = OutputWriter()
        try output.line(
            ([line(task, prefix: prefix, shortID: ids.shortID(for: task.id))] + details(task, shortID: ids.shortID(for:))).joined(separator: "  "))
        try output.flush()
    }

    /// `recur:monthly`, `wait:tomorrow`, `remind:in 3 days 09:00`, `depends:3f2a9c1,0b1c2d3`:
    /// the fields a row of list leaves out, those that are set.
    static func details(_ task: TaskItem, shortID: (String) -> String) -> [String] {
        let dates = DateContext.current()
        func shown(_ stored: String?) -> String? {
            stored.map { PeopleDates.show($0, now: dates.now, calendar: dates.calendar, open: false)?.relative ?? $0 }
        }
        var details: [String] = []
        if let rule = task.recurrence { details.append("recur:" + (RecurrenceName.name(for: rule) ?? rule)) }
        if let wait = shown(task.wait) { details.append("wait:" + wait) }
        if let remind = shown(task.remindAt) { details.append("remind:" + remind) }
        if !task.dependsOn.isEmpty { details.append("depends:" + task.dependsOn.map(shortID).joined(separator: ",")) }
        return details
    }

    /// A typed id, short id or start of one: the task's id, or a failure that says why not.
    static func resolve(_ text: String, in store: isolated any CommandLineStoring) throws -> String {
        do {
            return try store.resolveID(text)
        } catch let error as ShortID.LookupError {
            throw CommandFailure("\(error)")
        }
    }
}
