import JSON
import JSONRPC
import PeopleLanguage
import TaskModel

/// `taskline summary`
enum SummaryCommand: Command {
    static let name = "summary"
    static let summary = "per project: open and done tasks and the share done, with a total"
    static let usage = """
        Usage: taskline summary [--db PATH] [--json]

        Prints each project, and each project above it, with how many of its tasks are
        open, how many are done, and the share done (rounded down: 100% only when none is
        open). A project counts the tasks under it too, and its sub-projects follow it,
        indented (Garage under Home for Home.Garage). Tasks without a project follow as
        (none), then the total of every task. Open tasks include those waiting and
        blocked; deleted tasks are gone, and not counted. The counts are the store's own:
        no task is read, however many there are.

        Options:
          --db PATH    the database (default: the server's)
          --json       one JSON object instead: {"projects": [{"project", "open", "done",
                       "percentComplete"}, …], "noProject": {…}, "total": {…}};
                       percentComplete is null when there is no task

        On a terminal, the header is underlined and the total bold, and the project names
        are cut to its width (COLUMNS overrides it). No task at all is said on stderr;
        stdout stays empty (--json: the zeros). So is a database that does not exist yet,
        which is not made.
        """

    /// One line of the summary: open and done tasks.
    struct Counts {
        var open = 0
        var done = 0

        /// The counts as a JSON object, after the project's name when there is one.
        func json(project: String? = nil) -> JSON {
            var object = JSONObject()
            if let project { object["project"] = .string(project) }
            object["open"] = .integer(Int64(open))
            object["done"] = .integer(Int64(done))
            object["percentComplete"] = ReportText.percent(done, of: open + done).map { JSON.integer(Int64($0)) } ?? .null
            return .object(object)
        }
    }

    struct Summary {
        /// By name, each project's parts in order of name (Home, Home.Garage, Home-Office).
        var projects: [(name: String, counts: Counts)] = []
        var noProject = Counts()
        var total = Counts()
    }

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> ReportOptions {
        try ReportOptions.parse(&reader)
    }

    static func run(_ options: ReportOptions) async throws -> Int32 {
        let summary = try await StoreAccess.reading(options.database) { try await read($0) }
        if summary == nil, !options.json { note(StoreAccess.noTasksYet(options.database)) }
        let output = OutputWriter()
        if options.json {
            try output.line(JSONWriter.string(json(summary ?? Summary())))
        } else if let summary {
            if summary.total.open + summary.total.done == 0 {
                note("there are no tasks")
            } else {
                for line in lines(summary, terminal: Terminal.stdout()) { try output.line(line) }
            }
        }
        try output.flush()
        return 0
    }

    private static func read(_ store: isolated any CommandLineStoring) throws -> Summary {
        let open = try CountedNames.projects.counts(in: store, all: false)
        let all = try CountedNames.projects.counts(in: store, all: true)
        var summary = Summary()
        summary.total = Counts(open: try store.countTasks(TaskFilter(done: false)), done: try store.countTasks(TaskFilter(done: true)))
        // Another writer may change the tasks between two counts: none goes below 0.
        summary.projects = all.keys.map { $0.split(separator: ".", omittingEmptySubsequences: false) }
            .sorted { $0.lexicographicallyPrecedes($1) }
            .map { segments in
                let name = segments.joined(separator: ".")
                let openCount = open[name] ?? 0
                return (name, Counts(open: openCount, done: max(0, all[name]! - openCount)))
            }
        let inProjects = summary.projects.filter { !$0.name.contains(".") }.map(\.counts)
        summary.noProject = Counts(
            open: max(0, summary.total.open - inProjects.map(\.open).reduce(0, +)),
            done: max(0, summary.total.done - inProjects.map(\.done).reduce(0, +)))
        return summary
    }

    static func json(_ summary: Summary) -> JSON {
        let projects = summary.projects.map { $0.counts.json(project: $0.name) }
        return ["projects": .array(projects), "noProject": summary.noProject.json(), "total": summary.total.json()]
    }

    /// The table: a header, a row a project (its last part, indented by its depth), the tasks
    /// without a project, the total.
    static func lines(_ summary: Summary, terminal: Terminal) -> [String] {
        var rows = summary.projects.map { project -> (String, Counts) in
            let segments = project.name.split(separator: ".", omittingEmptySubsequences: false)
            return (String(repeating: "  ", count: segments.count - 1) + segments.last!, project.counts)
        }
        if summary.noProject.open + summary.noProject.done > 0 { rows.append(("(none)", summary.noProject)) }
        rows.append(("Total", summary.total))
        let headings = ["Project", "Open", "Done", "Complete"]
        let numbers = rows.map { row in
            [String(row.1.open), String(row.1.done), ReportText.percent(row.1.done, of: row.1.open + row.1.done).map { "\($0)%" } ?? "-"]
        }
        let widths = (0..<3).map { column in max(headings[column + 1].count, numbers.map { $0[column].count }.max() ?? 0) }
        var nameWidth = max(headings[0].count, rows.map(\.0.count).max() ?? 0)
        if let width = terminal.width {
            nameWidth = min(nameWidth, max(headings[0].count, width - widths.reduce(0) { $0 + $1 + 2 }))
        }
        func line(_ name: String, _ cells: [String], _ style: Terminal.Style?) -> String {
            let shown = name.count > nameWidth ? String(name.prefix(nameWidth - 1)) + "…" : name
            let text = padded(shown, to: nameWidth) + zip(cells, widths).map { "  " + ReportText.right($0, $1) }.joined()
            return terminal.paint(text, style)
        }
        var output = [line(headings[0], Array(headings.dropFirst()), .underline)]
        for (index, row) in rows.enumerated() {
            output.append(line(row.0, numbers[index], index == rows.count - 1 ? .bold : nil))
        }
        return output
    }
}
