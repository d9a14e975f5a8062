import PeopleLanguage
import TaskModel

/// `taskline show ID`
enum ShowCommand: Command {
    static let name = "show"
    static let summary = "every field of a task, its notes and dependencies"
    static let usage = """
        Usage: taskline show [--db PATH] ID

        Prints every field of the task: id and short id, title, status, project, tags,
        priority, due and wait (local time, and relative), what it depends on (and whether
        that is done), the open tasks it blocks, when it was started (while active), its
        version and when it was created, last updated and completed, its meta data, its
        annotations with their dates, and its notes.

        Options:
          --db PATH    the database (default: the server's)
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> OneTaskOptions {
        try OneTaskOptions.parse(&reader)
    }

    static func run(_ options: OneTaskOptions) async throws -> Int32 {
        try await StoreAccess.using(options.database, create: false) { try await show(options.id, from: $0) }
        return 0
    }

    private static func show(_ text: String, from store: isolated any CommandLineStoring) throws {
        let task = try store.get(id: try PeopleOutput.resolve(text, in: store))
        let dates = DateContext.current()
        let terminal = Terminal.stdout()
        let dependencies =
            task.dependsOn.isEmpty ? [] : Array(try store.fetch(TaskQuery(filter: TaskFilter(ids: task.dependsOn), limit: TaskQuery.maxLimit)).tasks)
        let dependents = try dependents(of: task, in: store)
        let ids = try store.shortIDs(for: [task.id] + dependencies.map(\.id) + dependents.map(\.id) + [task.seriesId].compactMap { $0 })
        var rows: [(String, String)] = [
            ("ID", "\(task.id) (short \(ids.shortID(for: task.id)))"),
            ("Title", task.title),
            ("Status", task.done ? "done" : task.startedAt != nil ? "open, active" : "open"),
        ]
        if let project = task.project { rows.append(("Project", project)) }
        if !task.tags.isEmpty { rows.append(("Tags", task.tags.map { "+" + $0 }.joined(separator: " "))) }
        rows.append(("Priority", task.priority == 0 ? "none" : "\(PriorityName.letters[task.priority]) (\(PriorityName.names[task.priority]))"))
        for (name, value) in [("Due", task.due), ("Wait", task.wait), ("Remind", task.remindAt)] {
            guard let value else { continue }
            let shown = PeopleDates.show(value, now: dates.now, calendar: dates.calendar, open: !task.done && name == "Due")
            var text = shown.map { $0.relative == $0.absolute ? $0.absolute : "\($0.absolute) (\($0.relative))" } ?? value
            if shown?.urgency == .overdue { text = terminal.paint(text, .red) }
            rows.append((name, text))
        }
        for (index, dependency) in dependencies.enumerated() {
            rows.append((index == 0 ? "Depends on" : "", "\(ids.shortID(for: dependency.id)) \(dependency.done ? "[x]" : "[ ]") \(dependency.title)"))
        }
        for (index, dependent) in dependents.enumerated() {
            rows.append((index == 0 ? "Blocks" : "", "\(ids.shortID(for: dependent.id)) \(dependent.done ? "[x]" : "[ ]") \(dependent.title)"))
        }
        if let started = task.startedAt { rows.append(("Started", local(started, dates))) }
        if let rule = task.recurrence { rows.append(("Repeats", rule)) }
        if let series = task.seriesId, series != task.id { rows.append(("Series", ids.shortID(for: series))) }
        rows.append(("Version", String(task.version)))
        rows.append(("Created", local(task.createdAt, dates)))
        if task.updatedAt != task.createdAt { rows.append(("Updated", local(task.updatedAt, dates))) }
        if let completed = task.completedAt { rows.append(("Completed", local(completed, dates))) }
        if task.meta != TaskItem.emptyMeta { rows.append(("Meta", task.meta)) }
        for (index, entry) in try store.loggedChanges(of: task.id).enumerated() {
            rows.append((index == 0 ? "History" : "", "v\(entry.version)  \(entry.kind.rawValue)  \(Self.local(entry.at, dates))"))
        }
        let output = OutputWriter()
        for (name, value) in rows {
            try output.line(terminal.paint(padded(name, to: 11), name.isEmpty ? nil : .bold) + value)
        }
        if !task.annotations.isEmpty {
            try output.line(terminal.paint("Annotations", .bold))
            for annotation in task.annotations { try output.line("  \(local(annotation.at, dates))  \(annotation.text)") }
        }
        if !task.notes.isEmpty {
            try output.line(terminal.paint("Notes", .bold))
            for line in task.notes.split(separator: "\n", omittingEmptySubsequences: false) { try output.line("  " + line) }
        }
        try output.flush()
    }

    /// The tasks this open task blocks: those with a dependency that is not done (filter
    /// blocked: true) whose dependsOn holds `id`. The store has no reverse index to ask.
    private static func dependents(of task: TaskItem, in store: isolated any CommandLineStoring) throws -> [TaskItem] {
        guard !task.done else { return [] }
        var found: [TaskItem] = []
        var query = TaskQuery(filter: TaskFilter(blocked: true), limit: TaskQuery.maxLimit)
        repeat {
            let page = try store.fetch(query)
            found += page.tasks.filter { $0.dependsOn.contains(task.id) }
            query.cursor = page.nextCursor
        } while query.cursor != nil
        return found
    }

    /// `2026-12-02 09:14 (today 09:14)`: a time in milliseconds, in local time.
    static func local(_ milliseconds: Int64, _ dates: DateContext) -> String {
        let seconds = floorDiv(milliseconds, 1000)
        let local = seconds + dates.calendar.offsetAt(seconds)
        return "\(PeopleDates.dateText(floorDiv(local, 86_400))) \(PeopleDates.clock(local))"
    }
}

/// What `show` and `edit` take: one task's id.
struct OneTaskOptions: Sendable {
    var database = Subcommands.defaultDatabasePath
    var id = ""

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> OneTaskOptions {
        var options = OneTaskOptions()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .operand(let id) where options.id.isEmpty: options.id = id
            default: throw item.unexpected
            }
        }
        guard !options.id.isEmpty else { throw UsageError("which task? Give its id or short id") }
        return options
    }
}
