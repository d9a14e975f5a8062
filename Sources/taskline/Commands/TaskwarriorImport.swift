import Glibc
import JSON
import PeopleLanguage
import TaskModel
import TasklineServer

/// Turns the tasks of Taskwarrior's `task export` into Taskline tasks, so that its users
/// can move over. The mapping (docs/operations.md documents it):
///
/// | Taskwarrior | Taskline |
/// | --- | --- |
/// | `uuid` | `id` (lowercased) |
/// | `description` | `title` |
/// | `status` `pending`, `waiting` | `done: false` |
/// | `status` `completed` | `done: true`, `completedAt` = `end` (else `modified`) |
/// | `status` `deleted`, `recurring` | not imported (counted in the summary) |
/// | `entry` | `createdAt` |
/// | `modified` | `updatedAt` (else `entry`) |
/// | `due` | `due`, as an RFC 3339 date-time in UTC; a date alone (`2026-12-05`) when it is midnight in the time zone the import runs in (`TZ`), which is how Taskwarrior stores `due:2026-12-05` |
/// | `priority` `H`, `M`, `L` | `priority` 3, 2, 1 (absent: 0) |
/// | `tags` | `tags` |
/// | `project` | `project` (white space in it becomes `_`) |
/// | `depends` | `dependsOn` (lowercased; a comma-separated string or an array) |
/// | `wait` | `wait`, as an RFC 3339 date-time in UTC |
/// | `annotations` | `annotations`: each `entry` (else the task's `entry`) as `at`, its `description` as `text` |
/// | `start` | `startedAt` of a task that is not done; dropped from a completed one (completion stops a task) |
/// | `recur` of a pending instance with a `due` | `recurrence`, by the table below; the series' pending instance with the earliest `due` (then the earliest `entry`, then the first in the file) becomes the task, its other pending instances are dropped (counted in the summary): Taskline makes each next occurrence when one is done |
/// | `until` of such an instance | the rule's `UNTIL` |
/// | any other field | a member of `meta.taskwarrior`, its value as Taskwarrior wrote it |
///
/// | `recur` | rule |
/// | --- | --- |
/// | `daily`, `day` | `FREQ=DAILY` |
/// | `weekdays` | `FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR` |
/// | `weekly`, `week` | `FREQ=WEEKLY` |
/// | `biweekly`, `fortnight` | `FREQ=WEEKLY;INTERVAL=2` |
/// | `monthly`, `month` | `FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD` (the 31st, or the month's last day) |
/// | `quarterly` | `FREQ=MONTHLY;INTERVAL=3;RSCALE=GREGORIAN;SKIP=BACKWARD` |
/// | `semiannual` | `FREQ=MONTHLY;INTERVAL=6;RSCALE=GREGORIAN;SKIP=BACKWARD` |
/// | `yearly`, `year`, `annual` | `FREQ=YEARLY` |
/// | `Nd`, `Nw`, `Nmo`, `Ny` (`3d`, `2w`, `6mo`, `2y`) | `FREQ=DAILY`, `WEEKLY`, `MONTHLY`, `YEARLY` with `INTERVAL=N` (monthly ones with `RSCALE=GREGORIAN;SKIP=BACKWARD`) |
///
/// Any other `recur` (`2h`, `P1M`, `biannual`) has no rule: the task is imported without
/// one, each pending instance on its own, with `recur` in `meta.taskwarrior`, and the summary
/// names it. So are completed instances, which are imported as done tasks.
///
/// `id`, `urgency`, `mask`, `imask` and `parent` are Taskwarrior's own bookkeeping and are
/// dropped silently. The others (`scheduled`, `until` of a task that does not recur,
/// user-defined attributes) have no field of their own in Taskline yet; the summary says
/// which were kept in `meta.taskwarrior`, on how many tasks.
///
/// A series' instances are held back until the whole input is read, since any of them may
/// have the earliest due; the one chosen is imported last, with its own line.
///
/// Left out: a template (`status: recurring`) is not imported, so a series with no pending
/// instance is not either; a timed due keeps its UTC offset on every occurrence, where
/// Taskwarrior keeps the local time of day across a change of daylight saving time.
///
/// An instance serves one pass over the input (each pass of `--skip-invalid` makes its own),
/// so that its counts and the instances it holds are that pass's.
final class TaskwarriorImport {
    private let now: Int64
    /// Tasks not imported, by status.
    private var notImported: [String: Int] = [:]
    /// Fields kept in `meta.taskwarrior`, with how many tasks had them.
    private var keptInMeta: [String: Int] = [:]
    /// Each recurring series' instance to import so far, by its template's uuid (an
    /// instance's `parent`), with what orders its instances: due, then entry.
    private var series: [String: (task: TaskItem, line: Int, rank: (due: Int64, entry: Int64))] = [:]
    /// Pending instances of recurring series with a rule, the imported ones among them.
    private var instances = 0
    /// `recur` values with no rule, with how many tasks had them.
    private var unmappedRecur: [String: Int] = [:]

    static let mappedFields: Set = [
        "uuid", "description", "status", "entry", "modified", "end", "due", "priority",
        "tags", "project", "depends", "wait", "annotations", "start",
    ]
    static let bookkeepingFields: Set = ["id", "urgency", "mask", "imask", "parent"]

    init(now: Int64) {
        self.now = now
        tzset()
    }

    /// The task, or nil for one that is not imported (deleted, or a recurrence template) or
    /// not yet (an instance of a recurring series: see `heldBack`).
    func task(from json: JSON, line: Int) throws(TaskStoreError) -> TaskItem? {
        guard case .object(let object) = json else {
            throw .invalid(field: "", reason: "must be an object, not \(json.typeName)")
        }
        let status = try string(object, "status") ?? "pending"
        let done: Bool
        switch status {
        case "pending", "waiting": done = false
        case "completed": done = true
        case "deleted", "recurring":
            notImported[status, default: 0] += 1
            return nil
        default:
            throw .invalid(field: "status", reason: "must be pending, waiting, completed, deleted or recurring, not \(status)")
        }
        guard let uuid = try string(object, "uuid") else { throw .invalid(field: "uuid", reason: "is required") }
        guard let description = try string(object, "description") else {
            throw .invalid(field: "description", reason: "is required")
        }
        let entry = try date(object, "entry")?.milliseconds ?? now
        let modified = try date(object, "modified")?.milliseconds ?? entry
        let end = try date(object, "end")?.milliseconds

        let dueDate = try date(object, "due")
        let due = dueDate.map { Self.localDue($0.text, $0.milliseconds) }
        var rule: String?
        var seriesID: String?
        if !done, let recur = try string(object, "recur") {
            if let mapped = RecurrenceName.rule(for: recur), due != nil {
                seriesID = (try string(object, "parent") ?? uuid).lowercased()
                rule = try date(object, "until").map { mapped + ";UNTIL=" + Self.basicForm($0.milliseconds) } ?? mapped
            } else {
                unmappedRecur[recur, default: 0] += 1
            }
        }
        let inRule: Set = rule == nil ? [] : ["recur", "until"]

        let project = try string(object, "project").map { project in
            // White space as the protocol counts it, which a project may not hold.
            String(String.UnicodeScalarView(project.unicodeScalars.map { TaskRules.isWhiteSpace($0) ? "_" : $0 }))
        }
        var others = JSONObject()
        for (key, value) in object where !Self.mappedFields.contains(key) && !Self.bookkeepingFields.contains(key) && !inRule.contains(key) {
            keptInMeta[key, default: 0] += 1
            others[key] = value
        }
        let meta: JSON = ["taskwarrior": .object(others)]
        guard TaskJSON.depth(of: meta) <= TaskJSON.maxMetaDepth else {
            throw .invalid(field: "meta", reason: "must be at most \(TaskJSON.maxMetaDepth) levels deep (its fields kept in meta.taskwarrior)")
        }
        let task = TaskItem(
            id: uuid.lowercased(), title: description, done: done,
            priority: try priority(object), tags: try strings(object, "tags"), due: due,
            project: project, dependsOn: try strings(object, "depends").map { $0.lowercased() }, wait: try date(object, "wait")?.text,
            meta: others.isEmpty ? TaskItem.emptyMeta : JSONWriter.string(meta), recurrence: rule,
            createdAt: entry, updatedAt: modified, completedAt: done ? end ?? modified : nil, version: 1,
            annotations: try annotations(object, entry: entry), startedAt: done ? nil : try date(object, "start")?.milliseconds)
        guard let seriesID, let dueDate else { return task }
        instances += 1
        let rank = (due: dueDate.milliseconds, entry: entry)
        if let held = series[seriesID], !(rank < held.rank) { return nil }
        series[seriesID] = (task, line, rank)
        return nil
    }

    /// The instance each recurring series is imported from, once the input is read: the
    /// one with the earliest due, then the earliest entry, then the first in the file.
    func heldBack() -> [ImportRecord] {
        series.values.sorted { $0.line < $1.line }.map { .task($0.task, line: $0.line) }
    }

    /// The summary's notes on what was not imported.
    func report() {
        if !notImported.isEmpty {
            let counts = notImported.sorted { $0.key < $1.key }.map { "\(grouped($0.value)) \($0.key)" }
            note("not imported from Taskwarrior: \(counts.joined(separator: ", ")) (deleted tasks, recurrence templates)")
        }
        let otherInstances = instances - series.count
        if otherInstances > 0 {
            note(
                "not imported from Taskwarrior: \(grouped(otherInstances)) later pending instance\(otherInstances == 1 ? "" : "s") of recurring tasks (Taskline makes the next occurrence when one is done)"
            )
        }
        if !unmappedRecur.isEmpty {
            let counts = unmappedRecur.sorted { $0.key < $1.key }.map { "\($0.key) (\(grouped($0.value)))" }
            note(
                "Taskwarrior recur values imported without recurrence, for want of a rule or of a due date (tasks): \(counts.joined(separator: ", "))"
            )
        }
        if !keptInMeta.isEmpty {
            let counts = keptInMeta.sorted { $0.key < $1.key }.map { "\($0.key) (\(grouped($0.value)))" }
            note("Taskwarrior fields with no field of their own, kept in meta.taskwarrior (tasks): \(counts.joined(separator: ", "))")
        }
    }

    // MARK: - Fields

    /// `due`; a date alone when it is midnight where the import runs (`TZ`): Taskwarrior keeps
    /// `due:2026-12-05` as that local midnight in UTC (`20261204T230000Z` in Berlin).
    private static func localDue(_ text: String, _ milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds.quotientAndRemainder(dividingBy: 1000).quotient)
        var local = tm()
        guard milliseconds % 1000 == 0, localtime_r(&seconds, &local) != nil,
            local.tm_hour == 0, local.tm_min == 0, local.tm_sec == 0
        else { return text }
        return Self.padded(Int(local.tm_year) + 1900, 4) + "-" + Self.padded(Int(local.tm_mon) + 1, 2) + "-" + Self.padded(Int(local.tm_mday), 2)
    }

    /// `YYYYMMDDTHHMMSSZ`, as RFC 5545's UNTIL takes a UTC time.
    private static func basicForm(_ milliseconds: Int64) -> String {
        var text: [UInt8] = []
        Timestamp.append(milliseconds: milliseconds, to: &text)
        return String(decoding: text.prefix(19).filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: ":") }, as: UTF8.self) + "Z"
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// `path`: where `object` sits in the task, for error messages (`annotations[2]`).
    private func string(_ object: JSONObject, _ key: String, in path: String = "") throws(TaskStoreError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?:
            throw .invalid(field: path.isEmpty ? key : "\(path).\(key)", reason: "must be a string, not \(other.typeName)")
        }
    }

    /// Tags and dependencies come as an array; older versions wrote one comma-separated string.
    private func strings(_ object: JSONObject, _ key: String) throws(TaskStoreError) -> [String] {
        switch object[key] {
        case nil, .null?: return []
        case .string(let text)?: return text.split(separator: ",").map(String.init)
        case .array(let elements)?:
            var strings: [String] = []
            for (index, element) in elements.enumerated() {
                guard case .string(let text) = element else {
                    throw .invalid(field: "\(key)[\(index)]", reason: "must be a string, not \(element.typeName)")
                }
                strings.append(text)
            }
            return strings
        case let other?:
            throw .invalid(field: key, reason: "must be an array of strings, not \(other.typeName)")
        }
    }

    private func priority(_ object: JSONObject) throws(TaskStoreError) -> Int {
        switch try string(object, "priority") {
        case nil, "": 0
        case "L": 1
        case "M": 2
        case "H": 3
        case let other?: throw .invalid(field: "priority", reason: "must be H, M or L, not \(other)")
        }
    }

    /// The annotations, in order of time: one without its own `entry` takes the task's.
    private func annotations(_ object: JSONObject, entry: Int64) throws(TaskStoreError) -> [Annotation] {
        guard let value = object["annotations"], value != .null else { return [] }
        guard case .array(let annotations) = value else {
            throw .invalid(field: "annotations", reason: "must be an array, not \(value.typeName)")
        }
        var made: [Annotation] = []
        for (index, annotation) in annotations.enumerated() {
            let field = "annotations[\(index)]"
            guard case .object(let fields) = annotation else {
                throw .invalid(field: field, reason: "must be an object, not \(annotation.typeName)")
            }
            guard let text = try string(fields, "description", in: field) else {
                throw .invalid(field: "\(field).description", reason: "is required")
            }
            made.append(Annotation(at: try date(fields, "entry", in: field)?.milliseconds ?? entry, text: text))
        }
        return made
    }

    /// Taskwarrior writes dates in ISO 8601's basic form, in UTC: `20240115T093000Z`. It is
    /// turned into RFC 3339 (`2024-01-15T09:30:00Z`); RFC 3339 itself is taken as it is.
    private func date(_ object: JSONObject, _ key: String, in path: String = "") throws(TaskStoreError)
        -> (text: String, milliseconds: Int64)?
    {
        guard let raw = try string(object, key, in: path) else { return nil }
        let text = Self.extendedForm(raw) ?? raw
        guard let milliseconds = Timestamp.parse(text) else {
            throw .invalid(field: path.isEmpty ? key : "\(path).\(key)", reason: "must be a Taskwarrior date such as 20240115T093000Z, not \(raw)")
        }
        return (text, milliseconds)
    }

    /// `YYYYMMDDTHHMMSSZ` as `YYYY-MM-DDTHH:MM:SSZ`; nil for any other text.
    static func extendedForm(_ basic: String) -> String? {
        let characters = Array(basic)
        guard characters.count == 16, characters[8] == "T", characters[15] == "Z",
            characters[0..<8].allSatisfy(\.isASCIIDigit), characters[9..<15].allSatisfy(\.isASCIIDigit)
        else { return nil }
        let digits = String(characters)
        func part(_ range: Range<Int>) -> Substring { digits.dropFirst(range.lowerBound).prefix(range.count) }
        return "\(part(0..<4))-\(part(4..<6))-\(part(6..<8))T\(part(9..<11)):\(part(11..<13)):\(part(13..<15))Z"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
