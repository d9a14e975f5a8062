import TaskModel

/// What `projects` and `tags` read: the database, and whether done tasks count too.
struct SummaryOptions: Sendable {
    var database = Subcommands.defaultDatabasePath
    var all = false

    static let options = """
        Options:
          --db PATH    the database (default: the server's)
          --all        count done tasks too
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> SummaryOptions {
        var options = SummaryOptions()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .option("--all"): options.all = true
            default: throw item.unexpected
            }
        }
        return options
    }

    /// Prints each name `names` gives the tasks, with how many tasks have it, by name;
    /// or says on stderr that there is none (`nothing`).
    func run(nothing: String, names: @escaping @Sendable (TaskItem) -> [String]) async throws -> Int32 {
        try await StoreAccess.using(database, create: false) { try await count(in: $0, nothing: nothing, names: names) }
        return 0
    }

    private func count(in store: isolated any CommandLineStoring, nothing: String, names: (TaskItem) -> [String]) throws {
        let counts = try Self.counts(in: store, all: all, names: names)
        guard !counts.isEmpty else { return note(nothing) }
        let width = counts.keys.map(\.count).max() ?? 0
        let output = OutputWriter()
        for name in counts.keys.sorted() {
            try output.line(padded(name, to: width) + "  " + String(counts[name]!))
        }
        try output.flush()
    }

    /// How many open (`all`: all) tasks have each name `names` gives them.
    static func counts(in store: isolated any CommandLineStoring, all: Bool, names: (TaskItem) -> [String]) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        var query = TaskQuery(filter: TaskFilter(done: all ? nil : false), limit: TaskQuery.maxLimit)
        repeat {
            let page = try store.fetch(query)
            for task in page.tasks {
                for name in names(task) { counts[name, default: 0] += 1 }
            }
            query.cursor = page.nextCursor
        } while query.cursor != nil
        return counts
    }
}

/// `taskline projects`
enum ProjectsCommand: Command {
    static let name = "projects"
    static let summary = "the projects of open tasks, with how many each has"
    static let usage = """
        Usage: taskline projects [--db PATH] [--all]

        Prints each project and each project above it (Home for Home.Garage) with the
        number of open tasks in it or under it, by name.

        \(SummaryOptions.options)
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> SummaryOptions {
        try SummaryOptions.parse(&reader)
    }

    static func run(_ options: SummaryOptions) async throws -> Int32 {
        try await options.run(nothing: "no task has a project", names: projects)
    }

    /// The task's project and every project above it.
    static func projects(of task: TaskItem) -> [String] {
        guard let project = task.project else { return [] }
        let segments = project.split(separator: ".", omittingEmptySubsequences: false)
        return (1...segments.count).map { segments.prefix($0).joined(separator: ".") }
    }
}

/// `taskline tags`
enum TagsCommand: Command {
    static let name = "tags"
    static let summary = "the tags of open tasks, with how many have each"
    static let usage = """
        Usage: taskline tags [--db PATH] [--all]

        Prints each tag of the open tasks with the number of open tasks that have it, by name.

        \(SummaryOptions.options)
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> SummaryOptions {
        try SummaryOptions.parse(&reader)
    }

    static func run(_ options: SummaryOptions) async throws -> Int32 {
        try await options.run(nothing: "no task has a tag", names: \.tags)
    }
}
