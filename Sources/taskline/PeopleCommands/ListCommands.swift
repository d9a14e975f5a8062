import JSON
import PeopleLanguage
import TaskModel
import TasklineServer

#if canImport(Glibc)
import Glibc
#endif

/// What `list`, `search`, `next` and `overdue` show: a filter the store applies, what it
/// cannot apply (checked here), and an order.
struct Listing: Sendable {
    var database = Subcommands.defaultDatabasePath
    var filter = TaskFilter(done: false)
    var words: [String] = []
    var withoutTags: [String] = []
    var priority: Int?
    var overdueOnly = false
    var sort: [ListSort] = []
    var limit: Int?
    var json = false
    /// Tab-separated rows for scripts: no padding, no header, no colour.
    var tsv = false
    /// The urgency formula's numbers, from the settings.
    var coefficients = Urgency.Coefficients()
    /// The context whose filter words the listing took first (`taskline context`).
    var context: String?

    /// A listing as the settings start it: their urgency coefficients, `preset`, then the
    /// filter words of the context in use, which the command line's words follow.
    static func configured(_ preset: (inout Listing) -> Void) throws(UsageError) -> Listing {
        let settings = try Settings.load(from: Settings.path { getenv($0).map { String(cString: $0) } })
        var listing = Listing()
        listing.coefficients = try Urgency.Coefficients(settings)
        preset(&listing)
        if let name = settings["context"] {
            guard let words = settings["context.\(name)"] else {
                throw UsageError("\(settings.path): the context in use, \(name), is not defined (taskline context none, or define it)")
            }
            var reader = ArgumentReader(words.split(separator: " ").map(String.init))
            do {
                try listing.parse(&reader)
            } catch {
                throw UsageError("context \(name) (\(settings.path)): \(error.message)")
            }
            listing.context = name
        }
        return listing
    }

    /// The filter words the commands take.
    static let attributes: [InlineAttribute<Listing>] = [
        InlineAttribute(name: "project", form: "project:NAME") { value, listing, _ in
            listing.filter.project = value.isEmpty ? nil : value
        },
        InlineAttribute(name: "status", form: "status:open|done|all") { value, listing, _ throws(UsageError) in
            switch value.lowercased() {
            case "open", "pending": listing.filter.done = false
            case "done", "completed": listing.filter.done = true
            case "all", "any": listing.filter.done = nil
            default: throw UsageError("status: takes open, done or all, not \(value)")
            }
        },
        InlineAttribute(name: "due.before", form: "due.before:DATE") { value, listing, dates throws(UsageError) in
            listing.filter.dueBefore = try dates.date(value, for: "due.before:")
        },
        InlineAttribute(name: "due.after", form: "due.after:DATE") { value, listing, dates throws(UsageError) in
            listing.filter.dueAfter = try dates.date(value, for: "due.after:")
        },
        InlineAttribute(name: "priority", form: "pri:H|M|L|none") { value, listing, _ throws(UsageError) in
            listing.priority = try PriorityName.parse(value, for: "pri:")
        },
        InlineAttribute(name: "blocked", form: "blocked:yes|no") { value, listing, _ throws(UsageError) in
            listing.filter.blocked = try yesNo(value, for: "blocked:")
        },
        InlineAttribute(name: "waiting", form: "waiting:yes|no") { value, listing, _ throws(UsageError) in
            listing.filter.waiting = try yesNo(value, for: "waiting:")
        },
    ]

    /// The filter words and options every listing command takes; `options`: its own.
    static func help(options: String = "") -> String {
        """
        Filter words (all must hold):
          +TAG, -TAG            with, without the tag
          project:NAME          in the project or under it (project:Home takes Home.Garage)
          status:open|done|all  open tasks unless this says otherwise
          due.before:DATE, due.after:DATE
          pri:H|M|L|none        the priority
          blocked:yes|no        waits for a task that is not done
          waiting:yes|no        its wait: date has not come
          WORD                  in the title or the notes (any case); -- makes every word
                                after it such a word
        \(wrapped("DATE is as for add: " + PeopleDates.accepted + "."))

        Options:
          --db PATH          the database (default: the server's)
          --sort KEYS        comma-separated: due, priority, created, updated, title,
                             project, urgency; a - before one reverses it (-priority:
                             high first)
          --limit N          at most N tasks
          --json             a JSON array of the tasks in the wire format instead
          --format FORMAT    table (the default), tsv (a row a task, tab-separated: short id,
                             open or done, priority letter, due as stored, project, title,
                             comma-separated tags) or json (as --json)
        \(options)
        \(wrapped(
            "Rows: short id, [ ] or [x], flags (\(TaskTable.flagsHelp)), priority (H, M, L), due date "
            + "(relative when near: tomorrow, in 3 days, 2 days overdue; else the date, local time), "
            + "project, title, +tags; columns no row fills are left out. On a terminal, with a header "
            + "and the count, in colour (overdue red, due today bold; NO_COLOR turns it off, "
            + "CLICOLOR_FORCE on), the title and the tags wrapped within its width (COLUMNS overrides "
            + "it; wide characters and emoji take two cells). An empty result is said on stderr; "
            + "stdout stays empty. So is a database that does not exist yet, which is not made."))

        A short id is the shortest start of the task's id that no other task's id shares, at
        least 7 characters (for the time-ordered ids the server makes, a start of their last,
        random group). Every command that takes an ID takes it, or a unique start of it of 4
        characters or more. Short ids stay the same as long as no new id shares their start,
        unlike row numbers, which would change whenever another client adds or completes a task.
        """
    }

    static func yesNo(_ value: String, for name: String) throws(UsageError) -> Bool {
        switch value.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw UsageError("\(name) takes yes or no, not \(value)")
        }
    }

    mutating func parse(_ reader: inout ArgumentReader) throws(UsageError) {
        let dates = DateContext.current()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): database = try reader.value()
            case .option("--json"): json = true
            case .option("--format"):
                switch try reader.value() {
                case "table": (json, tsv) = (false, false)
                case "tsv": (json, tsv) = (false, true)
                case "json": (json, tsv) = (true, false)
                case let other: throw UsageError("--format takes table, tsv or json, not \(other)")
                }
            case .option("--limit"): limit = try reader.integer(in: 1...Int.max)
            case .option("--sort"): sort = try ListSort.parse(try reader.value())
            case .option("--done"): filter.done = true
            case .option("--all"):
                filter.done = nil
                filter.waiting = nil
            case .option("--tag"): filter.tags.append(try TagWord.checked(try reader.value()))
            case .option(let word) where !word.hasPrefix("--") && word.count > 1:
                withoutTags.append(String(word.dropFirst()))
            case .operand(let word) where reader.optionsEnded:
                words.append(word)
            case .operand(let word) where word.count > 1 && word.hasPrefix("+"):
                filter.tags.append(try TagWord.checked(String(word.dropFirst())))
            case .operand(let word):
                if let (name, value) = InlineAttributes.split(word) {
                    guard let attribute = InlineAttribute.named(name, in: Self.attributes) else {
                        throw InlineAttributes.unknown(name, word: word, table: Self.attributes)
                    }
                    try attribute.apply(value, &self, dates)
                } else {
                    words.append(word)
                }
            default: throw item.unexpected
            }
        }
        // The store looks for one literal text; the longest word narrows the most.
        filter.text = words.max { $0.count < $1.count }
    }

    /// Calls `body` with every matching task, in order, as the pages come: only an order
    /// the store cannot give (urgency) makes it hold them all first. Returns the urgency it
    /// ordered by, knowing which tasks block and are blocked when the order is by urgency.
    @discardableResult
    func forEachTask(
        from store: isolated any CommandLineStoring, dates: DateContext, dependencies needed: Bool = false, _ body: (TaskItem) throws -> Void
    ) throws
        -> Urgency
    {
        let keys = sort.compactMap(\.storeKey)
        let ordersHere = keys.count < sort.count
        let limit = limit ?? Int.max
        /// The store's complaint about the filter, in the command line's words.
        func worded<T>(_ body: () throws -> T) throws -> T {
            do {
                return try body()
            } catch TaskStoreError.invalid(let field, let reason) {
                throw UsageError("\(field == "filter.tags" ? "+TAG" : field) \(reason)")
            }
        }
        func fetch(_ query: TaskQuery) throws -> TaskPage {
            try worded { try store.fetch(query) }
        }
        func fetchAll(_ filter: TaskFilter) throws -> [TaskItem] {
            var tasks: [TaskItem] = []
            try worded { try store.forEachPage(filter) { tasks += $0 } }
            return tasks
        }
        /// The open tasks among `ids` that `filter` also takes, a thousand ids a query.
        func fetchOpen(_ ids: [String], _ filter: TaskFilter) throws -> [TaskItem] {
            var chosen = filter
            chosen.done = false
            return try stride(from: 0, to: ids.count, by: TaskFilter.maxIDs).flatMap { start in
                chosen.ids = Array(ids[start..<min(start + TaskFilter.maxIDs, ids.count)])
                return try fetchAll(chosen)
            }
        }
        // Urgency raises what open tasks wait for and lowers what waits.
        var urgency = Urgency(coefficients: coefficients)
        if needed || sort.contains(where: { $0.field == .urgency }) {
            let blocked = try fetchAll(TaskFilter(done: false, blocked: true))
            urgency.dependencies.blocked = Set(blocked.map(\.id))
            urgency.dependencies.blocking = Set(try fetchOpen(Array(Set(blocked.flatMap(\.dependsOn))), TaskFilter()).map(\.id))
        }
        let blocking = urgency.dependencies.blocking
        // The most urgent first, up to a limit: read in the order that lets the reading stop.
        let cutoff =
            limit < Int.max && sort.first == ListSort(field: .urgency, descending: false) && coefficients.rewardsInOrder
            ? try UrgencyCutoff(urgency: urgency, dates: dates) { try fetch(TaskQuery(filter: filter, sort: $0, limit: 1)) } : nil
        // Oldest first among equals.
        let tieBreak = keys.contains { $0.field == .createdAt } ? [] : [SortKey(field: .createdAt)]
        var query = TaskQuery(filter: filter, sort: cutoff == nil ? keys + tieBreak : UrgencyCutoff.order, limit: TaskQuery.maxLimit)
        var held: [TaskItem] = []
        // The cutoff bounds the tasks that block nothing: those that block are held from the start.
        if cutoff != nil {
            held = try fetchOpen(blocking.sorted(), filter).filter { matches($0, dates: dates) }
        }
        var count = 0
        repeat {
            let page = try fetch(query)
            for task in page.tasks where matches(task, dates: dates) && (cutoff == nil || !blocking.contains(task.id)) {
                if ordersHere {
                    held.append(task)
                } else if count < limit {
                    try body(task)
                    count += 1
                }
            }
            // With a limit, only the best so far need be held.
            if let cutoff, let last = page.tasks.last {
                if held.count > limit { held = Array(ListSort.ordered(held, by: sort, dates: dates, urgency: urgency).prefix(limit)) }
                if held.count == limit, urgency.of(held[limit - 1], dates: dates) > cutoff.bound(after: last) { break }
            } else if limit < Int.max, held.count > limit + TaskQuery.maxLimit {
                held = Array(ListSort.ordered(held, by: sort, dates: dates, urgency: urgency).prefix(limit))
            }
            query.cursor = page.nextCursor
        } while query.cursor != nil && count < limit
        for task in ListSort.ordered(held, by: sort, dates: dates, urgency: urgency).prefix(limit) { try body(task) }
        return urgency
    }

    private func matches(_ task: TaskItem, dates: DateContext) -> Bool {
        if let priority, task.priority != priority { return false }
        if withoutTags.contains(where: task.tags.contains) { return false }
        if overdueOnly {
            guard let due = task.due, PeopleDates.show(due, now: dates.now, calendar: dates.calendar)?.urgency == .overdue else { return false }
        }
        guard !words.isEmpty else { return true }
        let haystack = (task.title + "\n" + task.notes).lowercased()
        return words.allSatisfy { haystack.contains($0.lowercased()) }
    }

    /// A row of `--format tsv`; a tab or a line break in a field becomes a space.
    static func tsvRow(_ task: TaskItem, shortID: String) -> String {
        let fields = [
            shortID, task.done ? "done" : "open", task.priority > 0 ? PriorityName.letters[task.priority] : "", task.due ?? "",
            task.project ?? "", task.title, task.tags.joined(separator: ","),
        ]
        return fields.map { String($0.map { $0 == "\t" || $0.isNewline ? " " : $0 }) }.joined(separator: "\t")
    }

    /// Prints the tasks, or says on stderr that there are none (`nothing`).
    func run(nothing: String) async throws -> Int32 {
        let shown: Void? = try await StoreAccess.reading(database) { try await show(from: $0, nothing: nothing) }
        if shown == nil {
            if json {
                let output = OutputWriter()
                try output.line("[]")
                try output.flush()
            } else {
                note(StoreAccess.noTasksYet(database))
            }
        }
        return 0
    }

    private func show(from store: isolated any CommandLineStoring, nothing: String) throws {
        let dates = DateContext.current()
        let output = OutputWriter()
        if json {
            var count = 0
            try output.write("[")
            try forEachTask(from: store, dates: dates) { task in
                try output.write(count == 0 ? "\n" : ",\n")
                try output.write(JSONWriter.bytes(TaskJSON.encode(task)))
                count += 1
            }
            try output.write(count == 0 ? "]\n" : "\n]\n")
        } else {
            // Aligned columns need every row's widths before the first row.
            var tasks: [TaskItem] = []
            // The table's flags show which tasks wait for others.
            let urgency = try forEachTask(from: store, dates: dates, dependencies: !tsv) { tasks.append($0) }
            if tasks.isEmpty {
                note(nothing + (context.map { " in context \($0) (taskline context none: every task)" } ?? ""))
            } else {
                let ids = try store.shortIDs(for: tasks.map(\.id))
                if tsv {
                    for task in tasks { try output.line(Self.tsvRow(task, shortID: ids.shortID(for: task.id))) }
                    try output.flush()
                    return
                }
                var table = TaskTable(terminal: Terminal.stdout(), dates: dates, header: isatty(STDOUT_FILENO) == 1)
                if sort.first?.field == .urgency { table.urgency = { urgency.of($0, dates: dates) } }
                table.blocked = urgency.dependencies.blocked
                for line in table.lines(tasks, shortID: ids.shortID(for:)) { try output.line(line) }
                // A person reads the count; a pipe gets the rows only.
                if table.header {
                    try output.line("\(tasks.count) task\(tasks.count == 1 ? "" : "s")" + (context.map { " (context \($0))" } ?? ""))
                }
            }
        }
        try output.flush()
    }
}

/// A command that lists tasks: `Listing` with its own presets, then the filter words.
protocol ListingCommand: Command where Options == Listing {
    /// What the command shows before the words on its line change it.
    static func preset(_ listing: inout Listing)
    /// What stderr says when no task is shown.
    static func nothing(_ listing: Listing) -> String
}

extension ListingCommand {
    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Listing {
        var listing = try Listing.configured(preset)
        try listing.parse(&reader)
        return listing
    }

    static func run(_ listing: Listing) async throws -> Int32 {
        try await listing.run(nothing: nothing(listing))
    }
}

/// `taskline list [FILTER…]`
enum ListCommand: ListingCommand {
    static let name = "list"
    static let summary = "list open tasks (filter words: +tag project:Home status:done …)"
    static let usage = """
        Usage: taskline list [--db PATH] [--sort KEYS] [--json] [--done | --all] [FILTER…]

        Lists the open tasks, the soonest due first (those with no due date last, oldest
        first; --sort created for the order they were added), one per row, but those waiting
        (waiting lists them); on a terminal, the count follows.

        \(Listing.help(options: """
              --done             as status:done
              --all              every task: open, done and waiting
              --tag TAG          as +TAG

            """))
        """

    static func preset(_ listing: inout Listing) {
        listing.filter.waiting = false
        // What is due soonest is what a person scans a list for; the store gives this
        // order as it reads, so a large list still streams.
        listing.sort = [ListSort(field: .due, descending: false)]
    }

    static func nothing(_ listing: Listing) -> String { "no tasks match" }
}

/// `taskline waiting`
enum WaitingCommand: ListingCommand {
    static let name = "waiting"
    static let summary = "the open tasks whose wait: date has not come"
    static let usage = """
        Usage: taskline waiting [--db PATH] [--sort KEYS] [--json] [FILTER…]

        Lists the open tasks that list leaves out because their wait: date is still to
        come, oldest first.

        \(Listing.help())
        """

    static func preset(_ listing: inout Listing) {
        listing.filter.waiting = true
    }

    static func nothing(_ listing: Listing) -> String { "no task is waiting" }
}

/// `taskline completed`
enum CompletedCommand: ListingCommand {
    static let name = "completed"
    static let summary = "the done tasks, the last done first"
    static let usage = """
        Usage: taskline completed [--db PATH] [--sort KEYS] [--json] [FILTER…]

        Lists the done tasks, the most recently changed (completed) first.

        \(Listing.help())
        """

    static func preset(_ listing: inout Listing) {
        listing.filter.done = true
        listing.sort = [ListSort(field: .updated, descending: true)]
    }

    static func nothing(_ listing: Listing) -> String { "nothing is done" }
}

/// `taskline all`
enum AllCommand: ListingCommand {
    static let name = "all"
    static let summary = "every task: open, done and waiting"
    static let usage = """
        Usage: taskline all [--db PATH] [--sort KEYS] [--json] [FILTER…]

        Lists every task, open, done and waiting, oldest first.

        \(Listing.help())
        """

    static func preset(_ listing: inout Listing) {
        listing.filter.done = nil
        listing.filter.waiting = nil
    }

    static func nothing(_ listing: Listing) -> String { "there are no tasks" }
}

/// `taskline search WORDS…`
enum SearchCommand: ListingCommand {
    static let name = "search"
    static let summary = "find tasks, open or done, whose title or notes hold all the words"
    static let usage = """
        Usage: taskline search [--db PATH] [--sort KEYS] [--json] WORDS… [FILTER…]

        Lists the tasks, open and done, whose title or notes contain every word (any case).
        Takes list's filter words too (status:open for the open ones).

        \(Listing.help())
        """

    static func preset(_ listing: inout Listing) {
        listing.filter.done = nil
    }

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Listing {
        var listing = try Listing.configured(preset)
        let contextWords = listing.words.count
        try listing.parse(&reader)
        guard listing.words.count > contextWords else { throw UsageError("search for what? Give words") }
        return listing
    }

    static func nothing(_ listing: Listing) -> String { "no task holds \(listing.words.joined(separator: " "))" }
}

/// `taskline next`
enum NextCommand: ListingCommand {
    static let name = "next"
    static let summary = "the most urgent open tasks that are not blocked or waiting"
    static let usage = """
        Usage: taskline next [--db PATH] [--limit N] [--json] [FILTER…]

        Lists the open tasks that wait for no open task and whose wait: date has come,
        most urgent first (10 unless --limit says otherwise).

        \(Urgency.help)

        \(Listing.help())
        """

    static func preset(_ listing: inout Listing) {
        listing.filter.blocked = false
        listing.filter.waiting = false
        listing.sort = [ListSort(field: .urgency, descending: false)]
        listing.limit = 10
    }

    static func nothing(_ listing: Listing) -> String { "nothing to do next" }
}

/// `taskline overdue`
enum OverdueCommand: ListingCommand {
    static let name = "overdue"
    static let summary = "the open tasks whose due date has passed"
    static let usage = """
        Usage: taskline overdue [--db PATH] [--json] [FILTER…]

        Lists the open tasks whose due date has passed, the longest overdue first. A task
        due on a date (no time) is overdue from the day after, in local time.

        \(Listing.help())
        """

    static func preset(_ listing: inout Listing) {
        listing.overdueOnly = true
        listing.sort = [ListSort(field: .due, descending: false)]
        // A date-only due is midnight UTC to the store: the date after tomorrow takes in
        // every task that can be overdue in any zone, and the local check does the rest.
        listing.filter.dueBefore = PeopleDates.dateText(LocalCalendar.system.day(ofMilliseconds: Timestamp.now()) + 2)
    }

    static func nothing(_ listing: Listing) -> String { "nothing is overdue" }
}
