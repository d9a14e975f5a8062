/// Tasks held as a store reads them: every text field's UTF-8 bytes in one buffer, every
/// number in another. A page is read into it row by row, with no `String` or array made per
/// field, and written out as JSON from those bytes; a caller that wants `TaskItem`s gets
/// them made on access.
///
/// Tags and dependencies are held as stores hold them: one text, the items joined by
/// U+001F, which no tag or id can contain.
public struct TaskBuffer: Sendable, Hashable, RandomAccessCollection {
    public enum Text: Int, CaseIterable, Sendable {
        case id, title, notes, tags, due, project, dependsOn, wait, meta, recurrence, seriesId, remindAt
        /// As stores keep them (`Annotation.stored`).
        case annotations
    }

    public enum Number: Int, CaseIterable, Sendable {
        case done, priority, createdAt, updatedAt, completedAt, version, startedAt
    }

    /// The separator of the items of `tags` and `dependsOn`.
    public static let itemSeparator: UInt8 = 0x1F

    // Read and written a thousand times a page, from other modules: inlinable, so those
    // calls are made there, without a generic function's cost.
    @usableFromInline static let textCount = Text.allCases.count
    @usableFromInline static let numberCount = Number.allCases.count

    @usableFromInline var bytes: [UInt8] = []
    /// Per task, per text field: where its bytes start and end in `bytes`.
    @usableFromInline var textBounds: [Int] = []
    @usableFromInline var numbers: [Int64] = []
    /// Per task, which fields are NULL: bit `Text.rawValue`, and bit `textCount +
    /// Number.rawValue`.
    @usableFromInline var nulls: [UInt32] = []

    public init() {}

    /// Inlinable: a generic function called from another module is not specialized, and a
    /// write's answer is a buffer of one task.
    @inlinable public init(_ tasks: some Sequence<TaskItem>) {
        reserveCapacity(tasks.underestimatedCount, textBytes: Self.typicalTextBytes)
        for task in tasks { append(task) }
    }

    /// About the text of a task with a title and a few tags, its id and times.
    @usableFromInline static let typicalTextBytes = 128

    public var startIndex: Int { 0 }
    public var endIndex: Int { nulls.count }

    public subscript(position: Int) -> TaskItem {
        func text(_ field: Text) -> String {
            withText(position, field) { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        func optionalText(_ field: Text) -> String? {
            withText(position, field) { String(decoding: $0, as: UTF8.self) }
        }
        func list(_ field: Text) -> [String] {
            var items: [String] = []
            forEachItem(position, field) { items.append(String(decoding: $0, as: UTF8.self)) }
            return items
        }
        return TaskItem(
            id: text(.id), title: text(.title), notes: text(.notes), done: number(position, .done) != 0,
            priority: Int(number(position, .priority) ?? 0), tags: list(.tags), due: optionalText(.due),
            project: optionalText(.project), dependsOn: list(.dependsOn), wait: optionalText(.wait),
            meta: optionalText(.meta) ?? TaskItem.emptyMeta, recurrence: optionalText(.recurrence),
            seriesId: optionalText(.seriesId), createdAt: number(position, .createdAt) ?? 0,
            updatedAt: number(position, .updatedAt) ?? 0, completedAt: number(position, .completedAt),
            version: number(position, .version) ?? 0, remindAt: optionalText(.remindAt),
            annotations: annotations(position), startedAt: number(position, .startedAt))
    }

    /// A task's annotations; an item another program stored that is not a time and a text is left out.
    private func annotations(_ position: Int) -> [Annotation] {
        var annotations: [Annotation] = []
        forEachAnnotation(position) { at, text in annotations.append(Annotation(at: at, text: String(decoding: text, as: UTF8.self))) }
        return annotations
    }

    /// Each annotation of a task, in order: its time in ms and its text's bytes. An item
    /// another program stored that is not a time and a text is left out.
    public func forEachAnnotation(_ position: Int, _ body: (Int64, ArraySlice<UInt8>) -> Void) {
        _ = withText(position, .annotations) { stored in
            Annotation.forEach(inStored: stored) { at, text in
                if let at { body(at, text) }
            }
        }
    }

    /// The bytes of a task's text field, valid only in `body`; nil when the field is NULL.
    @inlinable public func withText<R>(_ position: Int, _ field: Text, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        guard nulls[position] & (1 << field.rawValue) == 0 else { return nil }
        let slot = 2 * (position * Self.textCount + field.rawValue)
        let (start, end) = (textBounds[slot], textBounds[slot + 1])
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
    }

    /// Each item of a task's `tags` or `dependsOn`, in order.
    @inlinable public func forEachItem(_ position: Int, _ field: Text, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        _ = withText(position, field) { joined in
            var start = 0
            for end in 0...joined.count where end == joined.count || joined[end] == Self.itemSeparator {
                if end > start { body(UnsafeBufferPointer(rebasing: joined[start..<end])) }
                start = end + 1
            }
        }
    }

    @inlinable public func number(_ position: Int, _ field: Number) -> Int64? {
        guard nulls[position] & (1 << (Self.textCount + field.rawValue)) == 0 else { return nil }
        return numbers[position * Self.numberCount + field.rawValue]
    }

    // MARK: Appending

    /// Starts a task whose fields are all NULL, for `set` to fill in.
    @inlinable public mutating func appendNullTask() {
        textBounds.append(contentsOf: repeatElement(bytes.count, count: 2 * Self.textCount))
        numbers.append(contentsOf: repeatElement(0, count: Self.numberCount))
        nulls.append(UInt32.max)
    }

    /// Sets a text field of the last task, which stays NULL until this.
    @inlinable public mutating func set(_ field: Text, _ text: UnsafeBufferPointer<UInt8>) {
        let position = nulls.count - 1
        let slot = 2 * (position * Self.textCount + field.rawValue)
        textBounds[slot] = bytes.count
        bytes.append(contentsOf: text)
        textBounds[slot + 1] = bytes.count
        nulls[position] &= ~(1 << field.rawValue)
    }

    /// Sets a number field of the last task; nil makes it NULL.
    @inlinable public mutating func set(_ field: Number, _ value: Int64?) {
        let position = nulls.count - 1
        let bit = UInt32(1) << (Self.textCount + field.rawValue)
        guard let value else {
            nulls[position] |= bit
            return
        }
        numbers[position * Self.numberCount + field.rawValue] = value
        nulls[position] &= ~bit
    }

    public mutating func append(_ task: TaskItem) {
        appendNullTask()
        func text(_ field: Text, _ text: String?) {
            guard var text else { return }
            text.withUTF8 { set(field, $0) }
        }
        func list(_ field: Text, _ items: [String]) {
            text(field, items.joined(separator: String(UnicodeScalar(Self.itemSeparator))))
        }
        text(.id, task.id)
        text(.title, task.title)
        text(.notes, task.notes)
        list(.tags, task.tags)
        text(.due, task.due)
        text(.project, task.project)
        list(.dependsOn, task.dependsOn)
        text(.wait, task.wait)
        text(.meta, task.meta)
        text(.recurrence, task.recurrence)
        text(.seriesId, task.seriesId)
        text(.remindAt, task.remindAt)
        text(.annotations, Annotation.stored(task.annotations))
        set(.done, task.done ? 1 : 0)
        set(.priority, Int64(task.priority))
        set(.createdAt, task.createdAt)
        set(.updatedAt, task.updatedAt)
        set(.completedAt, task.completedAt)
        set(.version, task.version)
        set(.startedAt, task.startedAt)
    }

    /// Room for `count` more tasks of about `textBytes` bytes of text each.
    public mutating func reserveCapacity(_ count: Int, textBytes: Int) {
        bytes.reserveCapacity(bytes.count + count * textBytes)
        textBounds.reserveCapacity(textBounds.count + 2 * Self.textCount * count)
        numbers.reserveCapacity(numbers.count + Self.numberCount * count)
        nulls.reserveCapacity(nulls.count + count)
    }

    /// The bytes of text all the tasks hold.
    public var textByteCount: Int { bytes.count }

    // Equal when the tasks are: the buffers' layout depends on the order fields were set in.
    public static func == (a: TaskBuffer, b: TaskBuffer) -> Bool {
        a.elementsEqual(b)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for task in self { hasher.combine(task) }
    }
}
