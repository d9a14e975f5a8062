import JSON
import PeopleLanguage
import TaskModel
import TasklineServer

/// `taskline export`: every task on stdout, in the wire format.
enum ExportCommand: Command {
    enum Format: String, CaseIterable, Sendable {
        case jsonl, json
    }

    struct Options: Sendable {
        var database = Subcommands.defaultDatabasePath
        var format = Format.jsonl
    }

    static let name = "export"
    static let summary = "write every task to stdout, in the wire format"
    static let usage = """
        Usage: taskline export [--db PATH] [--format jsonl|json]

        Writes every task to stdout in the wire format (the task object of
        protocol/task.md), oldest first: one object per line (jsonl, the default), or one
        JSON array (json). The tasks come from one snapshot of the database, taken at the
        start, while servers go on writing; they are streamed, so memory stays flat
        whatever their number. `taskline import` reads the output back, every field intact.

        Options:
          --db PATH              the database (default: the server's), a file or a PostgreSQL
                                 address (postgresql://…)
          --format jsonl|json    one task per line (default), or one JSON array
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Options {
        var options = Options()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .option("--format"): options.format = try reader.choice(Format.self)
            default: throw item.unexpected
            }
        }
        return options
    }

    static func run(_ options: Options) async throws -> Int32 {
        try await StoreAccess.using(options.database, create: false) { try await export(options.format, from: $0) }
        return 0
    }

    private static func export(_ format: Format, from store: isolated any TaskStoring) throws {
        let output = OutputWriter()
        var count = 0
        if format == .json { try output.write("[") }
        try store.exportTasks { tasks in
            try output.write { out in
                JSONWriter.write(to: &out) { json in
                    for position in tasks.indices {
                        if format == .json { json.put(count == 0 ? "\n" : ",\n") }
                        TaskJSON.write(tasks, position, to: &json)
                        if format == .jsonl { json.put(0x0A) }
                        count += 1
                    }
                }
            }
        }
        if format == .json { try output.write(count == 0 ? "]\n" : "\n]\n") }
        try output.flush()
    }
}
