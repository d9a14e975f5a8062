import PeopleLanguage
import TaskModel

#if canImport(Glibc)
import Glibc
#endif

/// `taskline edit ID`
enum EditCommand: Command {
    static let name = "edit"
    static let summary = "edit a task as text in $EDITOR"
    static let usage = """
        Usage: taskline edit [--db PATH] ID

        Opens the task as text in $VISUAL, else $EDITOR, else vi: one line for each of
        title, status (open or done), project, priority (H, M, L or none), due, wait,
        recur, remind (as add takes them), tags (separated by spaces) and depends (short
        ids), then notes: every line after it. Lines starting with # are ignored; an empty
        value clears the field. Saving applies the changes, but only to the version of the task
        that was opened: if another client changed it meanwhile, nothing is applied, and
        the text is kept in a file whose name is printed, to apply again. A text that
        cannot be read, and an editor that fails or is stopped by a signal (Ctrl-C), are
        refused in the same way; otherwise the file is removed.

        Options:
          --db PATH    the database (default: the server's)

        Exit codes: 0 applied (or nothing changed); 1 not applied; 2 usage error.
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> OneTaskOptions {
        try OneTaskOptions.parse(&reader)
    }

    static func run(_ options: OneTaskOptions) async throws -> Int32 {
        try await StoreAccess.using(options.database, create: false) { try await edit(options.id, in: $0) }
        return 0
    }

    private static func edit(_ text: String, in store: isolated any CommandLineStoring) throws {
        let task = try store.get(id: try PeopleOutput.resolve(text, in: store))
        let ids = try store.shortIDs(for: [task.id] + task.dependsOn)
        let file = try TemporaryText(write(task, shortID: ids.shortID(for:)))
        let updated: TaskItem
        // From here on, a failure keeps the text and says where it is.
        do {
            try openEditor(on: file.path)
            let changes = try read(try file.contents(), against: task, dates: .current(), store: store)
            guard changes != TaskChanges() else {
                file.remove()
                return note("nothing changed")
            }
            updated = try EditOptions.writing(store) { try store.update(id: task.id, changes: changes, ifVersion: task.version).value }
        } catch TaskStoreError.versionConflict(let current) {
            throw file.kept(because: "the task changed meanwhile (now at version \(current.version)); nothing was applied")
        } catch let error as UsageError {
            throw file.kept(because: error.message)
        } catch let failure as CommandFailure {
            throw file.kept(because: failure.message ?? "nothing was applied")
        } catch let error as TaskStoreError {
            throw file.kept(because: PeopleOutput.describe(error, store))
        }
        file.remove()
        try PeopleOutput.task(updated, prefix: "edited", store: store)
    }

    /// The task as the editor shows it.
    static func write(_ task: TaskItem, shortID: (String) -> String) -> String {
        """
        # Editing \(shortID(task.id)) (version \(task.version)). Lines starting with # are ignored;
        # an empty value clears the field. Dates: \(PeopleDates.accepted).
        title: \(task.title)
        status: \(task.done ? "done" : "open")
        project: \(task.project ?? "")
        priority: \(task.priority == 0 ? "none" : PriorityName.letters[task.priority])
        due: \(task.due ?? "")
        wait: \(task.wait ?? "")
        recur: \(task.recurrence.map { RecurrenceName.name(for: $0) ?? $0 } ?? "")
        remind: \(task.remindAt ?? "")
        tags: \(task.tags.joined(separator: " "))
        depends: \(task.dependsOn.map(shortID).joined(separator: " "))
        notes:
        \(task.notes)
        """
    }

    /// The changes the edited text makes to `task`: only the fields whose value differs.
    static func read(_ text: String, against task: TaskItem, dates: DateContext, store: isolated any CommandLineStoring) throws -> TaskChanges {
        var changes = TaskChanges()
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        var seen: Set<String> = []
        while let line = lines.popFirst() {
            if line.hasPrefix("#") || line.allSatisfy(\.isWhitespace) { continue }
            guard let colon = line.firstIndex(of: ":") else { throw UsageError("\(line): a line is NAME: VALUE") }
            let name = line[..<colon].trimmingSpaces.lowercased()
            let value = String(line[line.index(after: colon)...].trimmingSpaces)
            guard seen.insert(name).inserted else { throw UsageError("\(name): is there twice") }
            switch name {
            case "title": if value != task.title { changes.title = value }
            case "status":
                guard value == "open" || value == "done" else { throw UsageError("status: is open or done, not \(value)") }
                if (value == "done") != task.done { changes.done = value == "done" }
            case "project": if value != task.project ?? "" { changes.project = .some(value.isEmpty ? nil : value) }
            case "priority":
                let priority = try PriorityName.parse(value, for: "priority:")
                if priority != task.priority { changes.priority = priority }
            case "due": if value != task.due ?? "" { changes.due = .some(value.isEmpty ? nil : try dates.date(value, for: "due:")) }
            case "wait": if value != task.wait ?? "" { changes.wait = .some(value.isEmpty ? nil : try dates.time(value, for: "wait:")) }
            case "recur", "remind":
                // As add reads them; the text as written shows the field unchanged.
                let shown = name == "recur" ? task.recurrence.map { RecurrenceName.name(for: $0) ?? $0 } : task.remindAt
                guard value != shown ?? "" else { break }
                var edit = TaskEdit()
                try InlineAttribute.named(name, in: InlineAttributes.task)!.apply(value, &edit, dates)
                if name == "recur" { changes.recurrence = edit.recurrence } else { changes.remindAt = edit.remindAt }
            case "tags":
                let tags = value.split(separator: " ").map { String($0.drop { $0 == "+" }) }
                if Set(tags) != Set(task.tags) { changes.tags = tags }
            case "depends":
                let typed = value.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
                let ids = try store.resolveDependencies(typed) ?? []
                if Set(ids) != Set(task.dependsOn) { changes.dependsOn = ids }
            case "notes":
                var notes = ((value.isEmpty ? [] : [Substring(value)]) + lines).joined(separator: "\n")
                while notes.hasSuffix("\n") { notes.removeLast() }
                while notes.hasPrefix("\n") { notes.removeFirst() }
                if notes != task.notes { changes.notes = notes }
                lines = []
            default:
                throw UsageError(
                    "\(name): is not a field; the fields are title, status, project, priority, due, wait, recur, remind, tags, depends, notes")
            }
        }
        return changes
    }

    private static func openEditor(on path: String) throws {
        let environment = { (name: String) in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        let editor = environment("VISUAL") ?? environment("EDITOR") ?? "vi"
        // Through the shell, so that EDITOR may hold arguments (`code --wait`).
        let status = system("\(editor) '\(path)'")
        guard status != 0 else { return }
        throw CommandFailure("\(editor) \(describe(status: status)); nothing was applied")
    }

    /// What system(3)'s `status` says became of the editor: an exit status, or a signal (the
    /// shell reports one its command died of as 128 + its number).
    static func describe(status: Int32) -> String {
        func signal(_ number: Int32) -> String {
            let name = strsignal(number).map { String(cString: $0) } ?? "signal"
            return "signal \(number) (\(name))"
        }
        if status == -1 { return "could not be started: \(String(cString: strerror(errno)))" }
        let signalled = status & 0x7f
        if signalled != 0 { return "was stopped by \(signal(signalled))" }
        let code = (status >> 8) & 0xff
        if code > 128, code <= 128 + 64 { return "was stopped by \(signal(code - 128))" }
        return "exited with status \(code)"
    }
}

/// The file the editor opens: private, removed once applied, kept when not.
struct TemporaryText {
    let path: String

    init(_ text: String) throws {
        let directory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((directory + "/taskline-XXXXXX.txt").utf8CString)
        let fd = mkstemps(&template, 4)
        guard fd >= 0 else { throw CommandFailure("cannot make a file to edit in \(directory): \(String(cString: strerror(errno)))") }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let bytes = Array(text.utf8) + [UInt8(ascii: "\n")]
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) }
        close(fd)
        guard written == bytes.count else { throw CommandFailure("cannot write \(path)") }
    }

    func contents() throws -> String {
        guard let (bytes, _) = WholeFile.read(path) else { throw CommandFailure("cannot read \(path)") }
        return String(decoding: bytes, as: UTF8.self)
    }

    func remove() {
        unlink(path)
    }

    func kept(because reason: String) -> CommandFailure {
        CommandFailure("\(reason); the edited text is in \(path)")
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
