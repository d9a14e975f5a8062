/// One task, as stored and as sent on the wire.
///
/// Named `TaskItem` rather than `Task` so it never shadows Swift concurrency's `Task`.
public struct TaskItem: Sendable, Hashable {
    public var id: String
    public var title: String
    public var notes: String
    public var done: Bool
    public var priority: Int
    /// A set, kept sorted by code point.
    public var tags: [String]
    /// The due date exactly as the client gave it (RFC 3339), or nil.
    public var due: String?
    /// A dot-separated path (`Home.Garage`), or nil.
    public var project: String?
    /// The ids of the tasks this one waits for: a set, kept sorted by code point.
    public var dependsOn: [String]
    /// Before this time (RFC 3339, as the client gave it) the task is not actionable; or nil.
    public var wait: String?
    /// Clients' own data: the compact JSON text of an object, stored and returned untouched.
    public var meta: String
    // Recurrence (see RecurrenceRule).
    /// The RFC 5545 rule as the client wrote it (its `COUNT`: the occurrences left), or nil.
    public var recurrence: String?
    /// The id of the series' first occurrence, set by the server on every recurring task.
    public var seriesId: String?
    // End of recurrence.
    /// When to remind the client of the task (RFC 3339, as the client gave it), or nil.
    public var remindAt: String?
    /// Dated notes, in order of their times (see `Annotation`).
    public var annotations: [Annotation]
    /// While set, the task is active (Taskwarrior's `start`): ms since the epoch. A done task has none.
    public var startedAt: Int64?
    /// Milliseconds since the Unix epoch.
    public var createdAt: Int64
    public var updatedAt: Int64
    public var completedAt: Int64?
    public var version: Int64

    public init(
        id: String, title: String, notes: String = "", done: Bool = false, priority: Int = 0,
        tags: [String] = [], due: String? = nil, project: String? = nil, dependsOn: [String] = [],
        wait: String? = nil, meta: String = TaskItem.emptyMeta,
        recurrence: String? = nil, seriesId: String? = nil,
        createdAt: Int64, updatedAt: Int64, completedAt: Int64? = nil, version: Int64 = 1, remindAt: String? = nil,
        annotations: [Annotation] = [], startedAt: Int64? = nil
    ) {
        self.id = id
        self.title = title
        self.notes = notes
        self.done = done
        self.priority = priority
        self.tags = tags
        self.due = due
        self.project = project
        self.dependsOn = dependsOn
        self.wait = wait
        self.meta = meta
        self.recurrence = recurrence
        self.seriesId = seriesId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.completedAt = completedAt
        self.version = version
        self.remindAt = remindAt
        self.annotations = annotations
        self.startedAt = startedAt
    }

    /// Equal down to the bytes of every text. Swift's `==` holds canonically equivalent texts
    /// (é, and e followed by U+0301) equal, but a client that writes one must get it back.
    package func isIdentical(to other: TaskItem) -> Bool {
        self == other && Self.identical(texts, other.texts)
    }

    /// Every text; `==` has already compared which of the optional ones are set.
    private var texts: [String] {
        [id, title, notes, due ?? "", project ?? "", wait ?? "", meta, remindAt ?? ""] + tags + dependsOn
            + [recurrence ?? "", seriesId ?? ""] + annotations.map(\.text)
    }

    public static let emptyMeta = "{}"

    package static func identical(_ a: [String], _ b: [String]) -> Bool {
        a.elementsEqual(b) { $0.utf8.elementsEqual($1.utf8) }
    }
}

extension TaskItem {
    /// The task with the fields `changes` sets replaced, `tags` and `dependsOn` as the rules
    /// normalised them (`PreparedOperation`), its annotations changed at `now` (`annotate`);
    /// version and times are the writer's. A done task is not active: completing one stops
    /// it, and starting a done one is refused.
    package func changed(by changes: TaskChanges, tags: [String]?, dependsOn: [String]?, now: Int64) throws -> TaskItem {
        var next = self
        if let title = changes.title { next.title = title }
        if let notes = changes.notes { next.notes = notes }
        if let priority = changes.priority { next.priority = priority }
        if let tags { next.tags = tags }
        if case .some(let due) = changes.due { next.due = due }
        if case .some(let project) = changes.project { next.project = project }
        if let dependsOn { next.dependsOn = dependsOn }
        if case .some(let wait) = changes.wait { next.wait = wait }
        if let meta = changes.meta { next.meta = meta }
        if case .some(let remindAt) = changes.remindAt { next.remindAt = remindAt }
        if let done = changes.done { next.done = done }
        if case .some(let recurrence) = changes.recurrence { next.recurrence = recurrence }
        if case .some(let startedAt) = changes.startedAt { next.startedAt = startedAt }
        if next.done, next.startedAt != nil {
            if case .some(.some) = changes.startedAt {
                throw TaskStoreError.invalid(field: "changes.startedAt", reason: "must be null while the task is done")
            }
            next.startedAt = nil
        }
        try next.annotate(by: changes, now: now)
        return next
    }

    /// The task at its next version, changed at `now`; refused when its version is at the top
    /// of the range, which only another program can have stored.
    package func atNextVersion(changedAt now: Int64) throws -> TaskItem {
        guard version < TaskRules.versions.upperBound else {
            throw TaskStoreError.outOfRange(
                """
                task \(id) is at version \(version), and a version goes no higher than \
                \(TaskRules.versions.upperBound): its stored data is out of range (see taskline check)
                """)
        }
        var next = self
        next.updatedAt = now
        next.version += 1
        return next
    }
}

/// What a client asks for when it creates a task. Absent fields take their defaults.
public struct TaskDraft: Sendable, Hashable {
    public var id: String?
    public var title: String
    public var notes: String = ""
    public var done: Bool = false
    public var priority: Int = 0
    public var tags: [String] = []
    public var due: String?
    public var project: String?
    public var dependsOn: [String] = []
    public var wait: String?
    public var meta: String = TaskItem.emptyMeta
    /// The recurrence rule (`recurrence.rule` on the wire), or nil.
    public var recurrence: String?
    public var remindAt: String?
    /// Those without a time take the creation's.
    public var annotations: [NewAnnotation] = []
    public var startedAt: Int64?

    public init(
        id: String? = nil, title: String, notes: String = "", done: Bool = false,
        priority: Int = 0, tags: [String] = [], due: String? = nil, project: String? = nil,
        dependsOn: [String] = [], wait: String? = nil, meta: String = TaskItem.emptyMeta,
        recurrence: String? = nil, remindAt: String? = nil, annotations: [NewAnnotation] = [], startedAt: Int64? = nil
    ) {
        self.id = id
        self.title = title
        self.notes = notes
        self.done = done
        self.priority = priority
        self.tags = tags
        self.due = due
        self.project = project
        self.dependsOn = dependsOn
        self.wait = wait
        self.meta = meta
        self.recurrence = recurrence
        self.remindAt = remindAt
        self.annotations = annotations
        self.startedAt = startedAt
    }
}

/// The fields an update replaces. `nil` leaves a field alone; `due: .some(nil)` clears it,
/// as for `project`, `wait`, `remindAt` and `startedAt`. `dependsOn` and `meta` are replaced
/// whole. Annotations are added and removed (`addAnnotations`, `removeAnnotations`) on the
/// list as the write finds it, so concurrent writers keep each other's, or replaced whole
/// (`annotations`, not with the other two).
public struct TaskChanges: Sendable, Hashable {
    public var title: String?
    public var notes: String?
    public var done: Bool?
    public var priority: Int?
    public var tags: [String]?
    public var due: String??
    public var project: String??
    public var dependsOn: [String]?
    public var wait: String??
    public var meta: String?
    /// The recurrence rule; `.some(nil)` stops the series.
    public var recurrence: String??
    public var remindAt: String??
    public var startedAt: Int64??
    public var annotations: [NewAnnotation]?
    public var addAnnotations: [NewAnnotation]
    /// Each removes the first annotation of that time and text.
    public var removeAnnotations: [Annotation]

    public init(
        title: String? = nil, notes: String? = nil, done: Bool? = nil,
        priority: Int? = nil, tags: [String]? = nil, due: String?? = nil, project: String?? = nil,
        dependsOn: [String]? = nil, wait: String?? = nil, meta: String? = nil, recurrence: String?? = nil,
        remindAt: String?? = nil, startedAt: Int64?? = nil, annotations: [NewAnnotation]? = nil,
        addAnnotations: [NewAnnotation] = [], removeAnnotations: [Annotation] = []
    ) {
        self.title = title
        self.notes = notes
        self.done = done
        self.priority = priority
        self.tags = tags
        self.due = due
        self.project = project
        self.dependsOn = dependsOn
        self.wait = wait
        self.meta = meta
        self.recurrence = recurrence
        self.remindAt = remindAt
        self.startedAt = startedAt
        self.annotations = annotations
        self.addAnnotations = addAnnotations
        self.removeAnnotations = removeAnnotations
    }
}

/// One committed change, as recorded in the change log and sent in `tasks/didChange`.
public struct TaskChange: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case created, updated, deleted
    }

    public var seq: Int64
    public var kind: Kind
    public var id: String
    public var version: Int64
    /// The task after the change; nil for deletions.
    public var task: TaskItem?

    public init(seq: Int64, kind: Kind, id: String, version: Int64, task: TaskItem?) {
        self.seq = seq
        self.kind = kind
        self.id = id
        self.version = version
        self.task = task
    }
}

/// The result of a write: what the caller gets back, and the change it committed (if any).
public struct WriteResult<Value: Sendable>: Sendable {
    public var value: Value
    public var change: TaskChange?

    public init(value: Value, change: TaskChange?) {
        self.value = value
        self.change = change
    }
}

extension TaskItem {
    /// The due date, wait time or reminder time `text` of this task as stored, in ms, which a
    /// write that keeps it writes back. One that another program stored unreadable refuses
    /// the write: the client did not send it.
    package func storedTime(_ text: String?) throws -> Int64? {
        guard let text else { return nil }
        guard let milliseconds = Timestamp.parse(text) else {
            throw TaskStoreError.outOfRange("task \(id)'s stored time \(text) is not a date: its stored data is out of range (see taskline check)")
        }
        return milliseconds
    }
}
