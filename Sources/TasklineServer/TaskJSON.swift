import JSON
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
    static func encode(_ tasks: TaskBuffer) -> JSON {
        var out: [UInt8] = []
        out.reserveCapacity(2 + tasks.count * fixedSize + 2 * tasks.textByteCount)
        JSONWriter.write(to: &out) { out in
            out.put(UInt8(ascii: "["))
            for position in tasks.indices {
                if position > 0 { out.put(UInt8(ascii: ",")) }
                write(tasks, position, to: &out)
            }
            out.put(UInt8(ascii: "]"))
        }
        return .raw(out)
    }

    static func encode(_ tasks: [TaskItem]) -> JSON {
        encode(TaskBuffer(tasks))
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

    /// Room for a task's JSON but its texts, which is rarely past 320 bytes.
    private static let fixedSize = 320

    private static func estimatedSize(_ task: TaskItem) -> Int {
        fixedSize + task.title.utf8.count + task.notes.utf8.count + task.meta.utf8.count
    }

    /// Appends the task object to `out`.
    static func append(_ task: TaskItem, to out: inout [UInt8]) {
        let tasks = TaskBuffer(CollectionOfOne(task))
        JSONWriter.write(to: &out) { write(tasks, 0, to: &$0) }
    }

    /// Writes the task at `position` of `tasks` as the task object, from the bytes the list
    /// holds: a page, or an export's stream of tasks, is written into one buffer.
    public static func write(_ tasks: TaskBuffer, _ position: Int, to out: inout JSONOutput) {
        /// A text the task always has ("" when a stored file holds NULL).
        func string(_ field: TaskBuffer.Text) {
            if tasks.withText(position, field, { out.put(utf8String: $0) }) == nil { out.put(#""""#) }
        }
        func optionalString(_ field: TaskBuffer.Text) {
            if tasks.withText(position, field, { out.put(utf8String: $0) }) == nil { out.put("null") }
        }
        /// The items of `tags` or `dependsOn`, between brackets the caller writes.
        func strings(_ field: TaskBuffer.Text) {
            var first = true
            tasks.forEachItem(position, field) { item in
                if !first { out.put(UInt8(ascii: ",")) }
                first = false
                out.put(utf8String: item)
            }
        }
        func time(_ milliseconds: Int64) {
            out.put(UInt8(ascii: "\""))
            out.put(atMost: Timestamp.maxTextCount) { Timestamp.write(milliseconds: milliseconds, into: $0) }
            out.put(UInt8(ascii: "\""))
        }
        func timestamp(_ field: TaskBuffer.Number) {
            guard let milliseconds = tasks.number(position, field) else { return out.put("null") }
            time(milliseconds)
        }
        out.put(#"{"id":"#)
        string(.id)
        out.put(#","title":"#)
        string(.title)
        out.put(#","notes":"#)
        string(.notes)
        out.put(tasks.number(position, .done) ?? 0 != 0 ? #","done":true,"priority":"# : #","done":false,"priority":"#)
        out.put(integer: tasks.number(position, .priority) ?? 0)
        out.put(#","tags":["#)
        strings(.tags)
        out.put(#"],"due":"#)
        optionalString(.due)
        out.put(#","project":"#)
        optionalString(.project)
        out.put(#","dependsOn":["#)
        strings(.dependsOn)
        out.put(#"],"wait":"#)
        optionalString(.wait)
        out.put(#","meta":"#)
        if tasks.withText(position, .meta, { out.put(utf8JSON: $0) }) == nil { out.put("{}") }
        if tasks.withText(position, .recurrence, { _ in }) != nil {
            out.put(#","recurrence":{"rule":"#)
            optionalString(.recurrence)
            out.put(#"},"seriesId":"#)
        } else {
            out.put(#","recurrence":null,"seriesId":"#)
        }
        optionalString(.seriesId)
        out.put(#","remindAt":"#)
        optionalString(.remindAt)
        out.put(#","startedAt":"#)
        timestamp(.startedAt)
        out.put(#","annotations":["#)
        var first = true
        tasks.forEachAnnotation(position) { at, text in
            out.put(first ? #"{"at":"# : #",{"at":"#)
            first = false
            time(at)
            out.put(#","text":"#)
            text.withUnsafeBufferPointer { out.put(utf8String: $0) }
            out.put(UInt8(ascii: "}"))
        }
        out.put(UInt8(ascii: "]"))
        out.put(#","createdAt":"#)
        timestamp(.createdAt)
        out.put(#","updatedAt":"#)
        timestamp(.updatedAt)
        out.put(#","completedAt":"#)
        timestamp(.completedAt)
        out.put(#","version":"#)
        out.put(integer: tasks.number(position, .version) ?? 0)
        out.put(UInt8(ascii: "}"))
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
