import PeopleLanguage
import TaskModel

/// What `projects` and `tags` read: the database, and whether done tasks count too.
struct SummaryOptions: Sendable {
    var database = Subcommands.defaultDatabasePath
    var all = false

    static let options = """
        Options:
          --db PATH    the database (default: the server's)
          --all        count done tasks too

        None found is said on stderr; stdout stays empty. So is a database that does not
        exist yet, which is not made.
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

    /// Prints each name of `names`, with how many tasks have it, by name; or says on stderr
    /// that there is none (`nothing`).
    func run(nothing: String, names: CountedNames) async throws -> Int32 {
        let counted: Void? = try await StoreAccess.reading(database) { try await count(in: $0, nothing: nothing, names: names) }
        if counted == nil { note(StoreAccess.noTasksYet(database)) }
        return 0
    }

    private func count(in store: isolated any CommandLineStoring, nothing: String, names: CountedNames) throws {
        let counts = try names.counts(in: store, all: all)
        guard !counts.isEmpty else { return note(nothing) }
        let width = counts.keys.map(\.count).max() ?? 0
        let output = OutputWriter()
        for name in counts.keys.sorted() {
            try output.line(padded(name, to: width) + "  " + String(counts[name]!))
        }
        try output.flush()
    }
}

/// The names `tags` and `projects` count tasks by.
enum CountedNames: Sendable {
    case tags
    /// A task's project and each project above it (Home for Home.Garage).
    case projects

    /// How many open (`all`: all) tasks have each name.
    func counts(in store: isolated any CommandLineStoring, all: Bool) throws -> [String: Int] {
        switch self {
        case .tags:
            return try store.tagCounts(all: all)
        case .projects:
            var counts: [String: Int] = [:]
            for (project, count) in try store.projectCounts(all: all) {
                let segments = project.split(separator: ".", omittingEmptySubsequences: false)
                for depth in 1...segments.count { counts[segments.prefix(depth).joined(separator: "."), default: 0] += count }
            }
            return counts
        }
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
        try await options.run(nothing: "no task has a project", names: .projects)
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
        try await options.run(nothing: "no task has a tag", names: .tags)
    }
}
