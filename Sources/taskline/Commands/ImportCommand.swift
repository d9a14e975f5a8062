import JSON
import PeopleLanguage
import TaskModel
import TasklineServer

#if canImport(Glibc)
import Glibc
#endif

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
        var skipInvalid = false
    }

    static let name = "import"
    static let summary = "add tasks from a file (taskline export's, or Taskwarrior's)"
    static let usage = """
        Usage: taskline import FILE|- [--db PATH] [--on-conflict fail|skip|replace]
                                      [--from taskline|taskwarrior] [--skip-invalid]

        Adds the tasks in FILE (- for stdin) to the database, all in one transaction: if any
        record is bad, nothing is imported, and every bad record is reported by its line.
        With --skip-invalid, the good records are imported and each bad one is reported by
        its line as skipped (so is a record that depends on a skipped one).

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
          --db PATH                          the database (default: the server's; made if
                                             missing),
                                             a file or a PostgreSQL address (postgresql://…)
          --on-conflict fail|skip|replace    when a task with the same id exists: fail the
                                             import (default), keep the existing task, or
                                             replace it with the record, every field
          --from taskline|taskwarrior        the input's format (default taskline)
          --skip-invalid                     import the good records, skip the bad ones

        Exit codes: 0 imported (with --skip-invalid: the good records); 1 nothing imported
        (bad records, unreadable input); 2 usage error; 3 the database cannot be used.
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Options {
        var options = Options()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .option("--on-conflict"): options.onConflict = try reader.choice(ConflictPolicy.self)
            case .option("--from"): options.source = try reader.choice(Source.self)
            case .option("--skip-invalid"): options.skipInvalid = true
            case .operand(let file) where options.file == nil: options.file = file
            default: throw item.unexpected
            }
        }
        guard options.file != nil else { throw UsageError("which file? Give a FILE, or - for stdin") }
        return options
    }

    static func run(_ options: Options) async throws -> Int32 {
        let input = try InputFile(options.file!, rereadable: options.skipInvalid)
        defer { input.close() }
        try await StoreAccess.using(options.database, create: true) { try await importTasks(options, from: input, into: $0) }
        return 0
    }

    private static func importTasks(_ options: Options, from input: InputFile, into store: isolated any TaskStoring) throws {
        let progress = ProgressBar(label: "importing")
        defer { progress.finish() }
        let now = Timestamp.now()
        var taskwarrior = TaskwarriorImport(now: now)
        // With --skip-invalid, a record the store refuses (a rule it breaks, a dependency on a
        // skipped record) is known only once the transaction has failed: the import then runs
        // again from the start without it, until it goes through.
        let skipped = SkippedRecords()
        var summary: ImportSummary?
        while summary == nil {
            try input.rewind()
            taskwarrior = TaskwarriorImport(now: now)
            let decode: (JSON, Int) throws(TaskStoreError) -> TaskItem?
            var heldBack: () -> [ImportRecord] = { [] }
            switch options.source {
            case .taskline: decode = { json, _ throws(TaskStoreError) in try TaskJSON.decodeTask(json, now: now) }
            case .taskwarrior: (decode, heldBack) = (taskwarrior.task(from:line:), taskwarrior.heldBack)
            }
            let records = ImportRecords(
                reader: JSONRecordReader(fileDescriptor: input.fd), decode: decode, heldBack: heldBack,
                progress: progress, totalBytes: input.size, skipping: options.skipInvalid ? skipped : nil)
            do {
                summary = try store.importTasks(records, onConflict: options.onConflict, maxProblems: ImportFailure.detailedProblems)
            } catch let failure as ImportFailure {
                let newlySkipped = failure.problems.filter { skipped.lines[$0.line] == nil }
                guard options.skipInvalid, !newlySkipped.isEmpty else { throw refusal(failure, input: input, progress: progress) }
                for problem in newlySkipped { skipped.lines[problem.line] = problem }
            }
        }
        progress.finish()
        for problem in skipped.lines.values.sorted(by: { $0.line < $1.line }) {
            note("\(input.name): skipped \(explained(problem))")
        }
        var parts = ["imported \(grouped(summary!.inserted)) new task\(summary!.inserted == 1 ? "" : "s")"]
        if summary!.replaced > 0 { parts.append("replaced \(grouped(summary!.replaced))") }
        if summary!.unchanged > 0 { parts.append("\(grouped(summary!.unchanged)) already identical") }
        if summary!.skipped > 0 { parts.append("skipped \(grouped(summary!.skipped)) whose id exists") }
        if !skipped.lines.isEmpty { parts.append("skipped \(grouped(skipped.lines.count)) bad record\(skipped.lines.count == 1 ? "" : "s")") }
        note(parts.joined(separator: ", "))
        if options.source == .taskwarrior { taskwarrior.report() }
    }

    /// Reports every bad record, and says what would get the import through.
    private static func refusal(_ failure: ImportFailure, input: InputFile, progress: ProgressBar) -> CommandFailure {
        progress.finish()
        for problem in failure.problems.sorted(by: { $0.line < $1.line }) { note("\(input.name): \(explained(problem))") }
        if failure.count > failure.problems.count {
            note("… and \(grouped(failure.count - failure.problems.count)) more bad records")
        }
        if failure.problems.contains(where: { $0.field == "id" && $0.reason.hasSuffix("existing task") }) {
            note("--on-conflict skip keeps existing tasks, --on-conflict replace overwrites them")
        }
        return CommandFailure(
            "nothing was imported: \(grouped(failure.count)) bad record\(failure.count == 1 ? "" : "s")"
                + " (fix them, or import the others with --skip-invalid)")
    }
}

/// A bad record's problem, and how to put it right where the store's words do not say.
func explained(_ problem: ImportProblem) -> String {
    let field = problem.field?.prefix { $0 != "[" } ?? ""
    let fix: String? =
        if problem.field == nil && problem.reason.hasPrefix("not valid JSON") {
            "each record is one JSON object, on a line of its own or as an element of one array"
        } else if field == "tags" {
            "a tag is one word: join the words with -, as in two-words, or make each word a tag"
        } else if field == "dependsOn" && problem.reason.contains("no task has the id") {
            "import that task too, or take its id out of dependsOn"
        } else if field == "title" {
            "every task needs a title"
        } else {
            nil
        }
    return "\(problem)" + (fix.map { " (\($0))" } ?? "")
}

/// The records an import with --skip-invalid leaves out, by line.
final class SkippedRecords {
    var lines: [Int: ImportProblem] = [:]
}

/// The records of an import, read and decoded one at a time as the store asks for them.
struct ImportRecords: Sequence, IteratorProtocol {
    let reader: JSONRecordReader
    /// A record and its line; nil for a record that is fine but not to be imported (a
    /// deleted Taskwarrior task) or not yet (one `heldBack` may return).
    let decode: (JSON, Int) throws(TaskStoreError) -> TaskItem?
    /// Records to import once the input is read.
    let heldBack: () -> [ImportRecord]
    private var held: [ImportRecord]?
    let progress: ProgressBar
    let totalBytes: Int?
    /// Where a bad record goes instead of failing the import (--skip-invalid), and the
    /// records already found bad, which are passed over.
    let skipping: SkippedRecords?
    private var count = 0

    init(
        reader: JSONRecordReader, decode: @escaping (JSON, Int) throws(TaskStoreError) -> TaskItem?,
        heldBack: @escaping () -> [ImportRecord], progress: ProgressBar, totalBytes: Int?, skipping: SkippedRecords? = nil
    ) {
        self.reader = reader
        self.decode = decode
        self.heldBack = heldBack
        self.progress = progress
        self.totalBytes = totalBytes
        self.skipping = skipping
    }

    mutating func next() -> ImportRecord? {
        while let record = nextRecord() {
            guard case .invalid(let problem) = record, let skipping else { return record }
            skipping.lines[problem.line] = problem
        }
        return nil
    }

    private mutating func nextRecord() -> ImportRecord? {
        while let record = reader.next() {
            count += 1
            progress.update(
                fraction: totalBytes.map { Double(reader.bytesRead) / Double(Swift.max($0, 1)) },
                detail: "\(grouped(count)) records")
            if skipping?.lines[record.line] != nil { continue }
            switch record.value {
            case .failure(let failure):
                return .invalid(ImportProblem(line: record.line, field: nil, reason: failure.reason))
            case .success(let json):
                do {
                    guard let task = try decode(json, record.line) else { continue }
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
        if held == nil {
            progress.update(fraction: totalBytes.map { _ in 1 }, detail: "\(grouped(count)) records", final: true)
            held = heldBack().reversed()
        }
        return held!.popLast()
    }
}

/// The file an import reads: a path, or `-` for stdin.
struct InputFile: Sendable {
    let name: String
    let fd: Int32
    /// The size of a regular file, for progress; nil for a pipe.
    let size: Int?

    /// `rereadable`: stdin that is not a regular file is first copied to an unnamed
    /// temporary file, so that `rewind` can read it again.
    init(_ path: String, rereadable: Bool = false) throws {
        if path == "-" {
            name = "stdin"
            fd = rereadable ? try Self.spooled(STDIN_FILENO) : STDIN_FILENO
        } else {
            name = path
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw CommandFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
        }
        var info = stat()
        size = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
    }

    /// Starts reading again from the start; nothing to do before the first read.
    func rewind() throws {
        guard lseek(fd, 0, SEEK_CUR) > 0 else { return }
        guard lseek(fd, 0, SEEK_SET) == 0 else {
            throw CommandFailure("cannot read \(name) again: \(String(cString: strerror(errno)))")
        }
    }

    /// A copy of what `source` holds (when it is not a regular file) in an unlinked file.
    private static func spooled(_ source: Int32) throws -> Int32 {
        var info = stat()
        if fstat(source, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { return source }
        let directory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((directory + "/taskline-stdin-XXXXXX").utf8CString)
        let copy = mkstemp(&template)
        if copy >= 0 {
            unlink(template)
            _ = fcntl(copy, F_SETFD, FD_CLOEXEC)
        }
        guard copy >= 0 else { throw CommandFailure("cannot make a temporary copy of stdin in \(directory): \(String(cString: strerror(errno)))") }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(source, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw CommandFailure("cannot read stdin: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            guard buffer.withUnsafeBytes({ write(copy, $0.baseAddress!, count) }) == count else {
                throw CommandFailure("cannot copy stdin to \(directory): \(String(cString: strerror(errno)))")
            }
        }
        return copy
    }

    func close() {
        if fd != STDIN_FILENO { _ = Glibc.close(fd) }
    }
}
