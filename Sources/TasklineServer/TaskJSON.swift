import JSONRPC
import TaskModel

/// The wire form of tasks and changes. Public for the command line, whose export and
/// import speak the same task object as the protocol.
public enum TaskJSON {
    /// The task object, written straight to JSON text: it is on nearly every response.
    public static func encode(_ task: TaskItem) -> JSON {
        .raw(text(of: task))
    }

    private static func text(of task: TaskItem) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(estimatedSize(task))
        append(task, to: &out)
        return out
    }

    /// An array of tasks, as one piece of JSON text: a page is written into one buffer, not
    /// into a buffer per task that is then copied.
    static func encode(_ tasks: [TaskItem]) -> JSON {
        var out: [UInt8] = []
        out.reserveCapacity(2 + tasks.reduce(0) { $0 + estimatedSize($1) })
        out.append(UInt8(ascii: "["))
        for (index, task) in tasks.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            append(task, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return .raw(out)
    }

    /// How deep a task's `meta` may nest (the object itself is level 1). The server sends
    /// meta as deep as level 8 of a message (a `1002` in a `tasks/apply` result), and every
    /// message stays within the 64 levels a reader of the protocol takes.
    public static let maxMetaDepth = 32

    /// How many levels of arrays and objects `value` nests: 0 for a scalar.
    public static func depth(of value: JSON) -> Int {
        switch value {
        case .array(let elements): 1 + (elements.map(depth(of:)).max() ?? 0)
        case .object(let object): 1 + (object.map { depth(of: $0.1) }.max() ?? 0)
        default: 0
        }
    }

    /// Room for a task's JSON: its long texts and the rest, which is rarely past 320 bytes.
    private static func estimatedSize(_ task: TaskItem) -> Int {
        320 + task.title.utf8.count + task.notes.utf8.count + task.meta.utf8.count
    }

    /// Appends the task object to `out`: a stream of tasks (an export) is written into one
    /// buffer, with no buffer of its own per task.
    public static func append(_ task: TaskItem, to out: inout [UInt8]) {
        func key(_ name: StaticString) {
            JSONWriter.append(name, to: &out)
        }
        func string(_ value: String?) {
            if let value { JSONWriter.write(value, to: &out) } else { key("null") }
        }
        func timestamp(_ milliseconds: Int64?) {
            guard let milliseconds else { return key("null") }
            out.append(UInt8(ascii: "\""))
            Timestamp.append(milliseconds: milliseconds, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        key(#"{"id":"#)
        string(task.id)
        key(#","title":"#)
        string(task.title)
        key(#","notes":"#)
        string(task.notes)
        key(task.done ? #","done":true,"priority":"# : #","done":false,"priority":"#)
        out.append(contentsOf: String(task.priority).utf8)
        /// The elements of an array of strings, between brackets the caller writes.
        func strings(_ values: [String]) {
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                string(value)
            }
        }
        key(#","tags":["#)
        strings(task.tags)
        key(#"],"due":"#)
        string(task.due)
        key(#","project":"#)
        string(task.project)
        key(#","dependsOn":["#)
        strings(task.dependsOn)
        key(#"],"wait":"#)
        string(task.wait)
        key(#","meta":"#)
        out.append(contentsOf: task.meta.utf8)
        if let rule = task.recurrence {
            key(#","recurrence":{"rule":"#)
            string(rule)
            key(#"},"seriesId":"#)
        } else {
            key(#","recurrence":null,"seriesId":"#)
        }
        string(task.seriesId)
        key(#","remindAt":"#)
        string(task.remindAt)
        key(#","createdAt":"#)
        timestamp(task.createdAt)
        key(#","updatedAt":"#)
        timestamp(task.updatedAt)
        key(#","completedAt":"#)
        timestamp(task.completedAt)
        key(#","version":"#)
        out.append(contentsOf: String(task.version).utf8)
        out.append(UInt8(ascii: "}"))
    }

    /// What a write answers: the task, or for a deletion `{"id": …, "deleted": true}`; and
    /// the change it made as `tasks/didChange` lists it. The task is written once for both.
    /// A deletion's changes include those to the tasks that depended on it, before its own.
    static func encode(_ outcome: OperationOutcome) -> (answer: JSON, changes: [ChangeText]) {
        let others = outcome.otherChanges.map { text(of: $0) }
        switch outcome.result {
        case .task(let task):
            let taskText = text(of: task)
            // The change's task is the task the write left (OperationOutcome).
            return (.raw(taskText), others + (outcome.change.map { [text(of: $0, taskText: taskText)] } ?? []))
        case .deleted(let id):
            return (["id": .string(id), "deleted": true], others + (outcome.change.map { [text(of: $0)] } ?? []))
        }
    }

    /// A committed change as JSON text, with its seq.
    struct ChangeText: Sendable {
        let seq: Int64
        let text: [UInt8]
    }

    static func encode(_ change: TaskChange) -> JSON {
        .raw(text(of: change).text)
    }

    /// `change` as JSON text; `taskText` is its task's, when the caller has written it already.
    static func text(of change: TaskChange, taskText: [UInt8]? = nil) -> ChangeText {
        var out: [UInt8] = []
        out.reserveCapacity(96 + (taskText?.count ?? change.task.map(estimatedSize) ?? 0))
        JSONWriter.append(#"{"seq":"#, to: &out)
        out.append(contentsOf: String(change.seq).utf8)
        JSONWriter.append(#","kind":"#, to: &out)
        JSONWriter.write(change.kind.rawValue, to: &out)
        JSONWriter.append(#","id":"#, to: &out)
        JSONWriter.write(change.id, to: &out)
        JSONWriter.append(#","version":"#, to: &out)
        out.append(contentsOf: String(change.version).utf8)
        if let task = change.task {
            JSONWriter.append(#","task":"#, to: &out)
            if let taskText { out += taskText } else { append(task, to: &out) }
        }
        out.append(UInt8(ascii: "}"))
        return ChangeText(seq: change.seq, text: out)
    }

    /// `tasks/didChange` for changes committed together, its params written straight to
    /// JSON text: one goes out after every write.
    static func didChange(_ changes: [ChangeText]) -> Notification {
        var out: [UInt8] = []
        out.reserveCapacity(32 + changes.reduce(0) { $0 + 1 + $1.text.count })
        JSONWriter.append(#"{"seq":"#, to: &out)
        out.append(contentsOf: String(changes.last?.seq ?? 0).utf8)
        JSONWriter.append(#","changes":["#, to: &out)
        for (index, change) in changes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += change.text
        }
        JSONWriter.append("]}", to: &out)
        return Notification(method: "tasks/didChange", params: .raw(out))
    }
}
