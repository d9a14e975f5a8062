#if canImport(Glibc)
import Glibc
#endif
import JSONRPC
import TaskStore
import TasklineServer

/// `taskline import`: tasks from a file or stdin, in one transaction.
enum ImportCommand: Command {
    enum Source: String, CaseIterable, Sendable {
        case taskline, taskwarrior
    }

    struct Options: Sendable {
        var database = Subcommands.defaultDatabasePath
        var file: String?
        var source = Source.taskline
        var onConflict = ConflictPolicy.fail
    }

    static let name = "import"
    static let summary = "add tasks from a file (taskline export's, or Taskwarrior's)"
    static let usage = """
        Usage: taskline import FILE|- [--db PATH] [--on-conflict fail|skip|replace]
                                      [--from taskline|taskwarrior]

        Adds the tasks in FILE (- for stdin) to the database, all in one transaction: if any
        record is bad, nothing is imported, and every bad record is reported by its line.

        --from taskline (default): JSON Lines, or one JSON array, of task objects in the wire
        format (what taskline export writes). Each is checked with the rules of tasks/create;
        only title is required. createdAt, updatedAt, completedAt and version are kept as
        given (defaults: now, createdAt, updatedAt when done, 1), so export then import
        reproduces every field.

        --from taskwarrior: the output of Taskwarrior's `task export` (README.md, "Operating
        Taskline", has the mapping).

        Running servers on the same database tell their clients about the new tasks. A
        progress bar is drawn on stderr when it is a terminal; a summary follows there.

        Options:
          --db PATH                          the database (default: the server's; created if missing)
          --on-conflict fail|skip|replace    when a task with the same id exists: fail the
                                             import (default), keep the existing task, or
                                             replace it with the record, every field
          --from taskline|taskwarrior        the input's format (default taskline)

        Exit codes: 0 imported; 1 nothing imported (bad records, unreadable input); 2 usage
        error; 3 the database cannot be used.
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Options {
        var options = Options()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .option("--on-conflict"): options.onConflict = try reader.choice(ConflictPolicy.self)
            case .option("--from"): options.source = try reader.choice(Source.self)
            case .operand(let file) where options.file == nil: options.file = file
            default: throw item.unexpected
            }
        }
        guard options.file != nil else { throw UsageError("which file? Give a FILE, or - for stdin") }
        return options
    }

    static func run(_ options: Options) async throws -> Int32 {
        let input = try InputFile(options.file!)
        defer { input.close() }
        try await StoreAccess.using(options.database, create: true) { try await importTasks(options, from: input, into: $0) }
        return 0
    }

    private static func importTasks(_ options: Options, from input: InputFile, into store: isolated TaskStore) throws {
        let progress = ProgressBar(label: "importing")
        defer { progress.finish() }
        let now = Timestamp.now()
        let taskwarrior = TaskwarriorImport(now: now)
        let decode: (JSON) throws(TaskStoreError) -> TaskItem? = switch options.source {
        case .taskline: { json throws(TaskStoreError) in try TaskJSON.decodeTask(json, now: now) }
        case .taskwarrior: taskwarrior.task(from:)
        }
        let records = ImportRecords(reader: JSONRecordReader(fileDescriptor: input.fd), decode: decode,
                                    progress: progress, totalBytes: input.size)
        let summary: ImportSummary
        do {
            summary = try store.importTasks(records, onConflict: options.onConflict)
        } catch let failure as ImportFailure {
            progress.finish()
            for problem in failure.problems { note("\(input.name): \(problem)") }
            if failure.count > failure.problems.count {
                note("… and \(grouped(failure.count - failure.problems.count)) more bad records")
            }
            if failure.problems.contains(where: { $0.field == "id" && $0.reason.hasSuffix("existing task") }) {
                note("--on-conflict skip keeps existing tasks, --on-conflict replace overwrites them")
            }
            throw CommandFailure("nothing was imported: \(grouped(failure.count)) bad record\(failure.count == 1 ? "" : "s")")
        }
        progress.finish()
        var parts = ["imported \(grouped(summary.inserted)) new task\(summary.inserted == 1 ? "" : "s")"]
        if summary.replaced > 0 { parts.append("replaced \(grouped(summary.replaced))") }
        if summary.unchanged > 0 { parts.append("\(grouped(summary.unchanged)) already identical") }
        if summary.skipped > 0 { parts.append("skipped \(grouped(summary.skipped)) whose id exists") }
        note(parts.joined(separator: ", "))
        if options.source == .taskwarrior { taskwarrior.report() }
    }
}

/// The records of an import, read and decoded one at a time as the store asks for them.
struct ImportRecords: Sequence, IteratorProtocol {
    let reader: JSONRecordReader
    /// Nil: a record that is fine but not to be imported (a deleted Taskwarrior task).
    let decode: (JSON) throws(TaskStoreError) -> TaskItem?
    let progress: ProgressBar
    let totalBytes: Int?
    private var count = 0

    init(reader: JSONRecordReader, decode: @escaping (JSON) throws(TaskStoreError) -> TaskItem?,
         progress: ProgressBar, totalBytes: Int?) {
        self.reader = reader
        self.decode = decode
        self.progress = progress
        self.totalBytes = totalBytes
    }

    mutating func next() -> ImportRecord? {
        while let record = reader.next() {
            count += 1
            progress.update(fraction: totalBytes.map { Double(reader.bytesRead) / Double(Swift.max($0, 1)) },
                            detail: "\(grouped(count)) records")
            switch record.value {
            case .failure(let failure):
                return .invalid(ImportProblem(line: record.line, field: nil, reason: failure.reason))
            case .success(let json):
                do {
                    guard let task = try decode(json) else { continue }
                    return .task(task, line: record.line)
                } catch {
                    guard case .invalid(let field, let reason) = error else {
                        return .invalid(ImportProblem(line: record.line, field: nil, reason: CommandFailure.describe(error)))
                    }
                    // A problem with the record as a whole names no field.
                    return .invalid(ImportProblem(line: record.line, field: field, reason: field.isEmpty ? "the record \(reason)" : reason))
                }
            }
        }
        progress.update(fraction: totalBytes.map { _ in 1 }, detail: "\(grouped(count)) records", final: true)
        return nil
    }
}

/// The file an import reads: a path, or `-` for stdin.
struct InputFile: Sendable {
    let name: String
    let fd: Int32
    /// The size of a regular file, for progress; nil for a pipe.
    let size: Int?

    init(_ path: String) throws {
        if path == "-" {
            name = "stdin"
            fd = STDIN_FILENO
        } else {
            name = path
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw CommandFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
        }
        var info = stat()
        size = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
    }

    func close() {
        if fd != STDIN_FILENO { _ = Glibc.close(fd) }
    }
}
