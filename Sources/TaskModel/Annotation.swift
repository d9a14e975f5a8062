/// A dated note on a task (Taskwarrior's annotation): a task's `annotations` are kept in
/// order of `at`, those of the same time in the order they were added.
public struct Annotation: Sendable, Hashable {
    /// When it was made, in ms since the epoch.
    public var at: Int64
    public var text: String

    public init(at: Int64, text: String) {
        self.at = at
        self.text = text
    }

    /// The same time and the same text, byte for byte (`==` holds canonically equivalent texts equal).
    package func isIdentical(to other: Annotation) -> Bool {
        at == other.at && text.utf8.elementsEqual(other.text.utf8)
    }
}

/// An annotation a client adds: without `at`, the writer's clock at the write.
public struct NewAnnotation: Sendable, Hashable {
    public var at: Int64?
    public var text: String

    public init(at: Int64? = nil, text: String) {
        self.at = at
        self.text = text
    }
}

extension Annotation {
    /// How a store keeps a task's annotations in one text: each as its time in ms, U+001E,
    /// its text; joined by U+001F. No annotation text holds a control character.
    package static let fieldSeparator: UInt8 = 0x1E

    package static func stored(_ annotations: [Annotation]) -> String {
        annotations.map { "\($0.at)\u{1E}\($0.text)" }.joined(separator: "\u{1F}")
    }

    /// The annotations a stored text holds; nil when it is not one Taskline writes.
    package static func list(stored: String) -> [Annotation]? {
        var annotations: [Annotation] = []
        var bad = false
        forEach(inStored: Array(stored.utf8)) { at, text in
            if let at {
                annotations.append(Annotation(at: at, text: String(decoding: text, as: UTF8.self)))
            } else {
                bad = true
            }
        }
        return bad ? nil : annotations
    }

    /// Each annotation of a stored text, in order: its time (nil when the item is not one
    /// Taskline writes) and its text's bytes.
    package static func forEach(inStored bytes: some RandomAccessCollection<UInt8>, _ body: (Int64?, ArraySlice<UInt8>) -> Void) {
        guard !bytes.isEmpty else { return }
        let bytes = Array(bytes)
        for item in bytes.split(separator: TaskBuffer.itemSeparator, omittingEmptySubsequences: false) {
            guard let separator = item.firstIndex(of: fieldSeparator) else {
                body(nil, item)
                continue
            }
            let at = Int64(String(decoding: item[item.startIndex..<separator], as: UTF8.self))
            body(at, item[(separator + 1)...])
        }
    }

    /// `annotations` in order of time, keeping the order of those of the same time.
    package static func ordered(_ annotations: [Annotation]) -> [Annotation] {
        annotations.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }
}

extension TaskRules {
    public static let maxAnnotations = 100
    public static let maxAnnotationLength = 4096

    /// At most `maxAnnotations`, each checked (`field[i].text`, `field[i].at`).
    package static func validateAnnotations(_ annotations: [NewAnnotation], field: String) throws {
        guard annotations.count <= maxAnnotations else {
            throw TaskStoreError.invalid(field: field, reason: "must have at most \(maxAnnotations) annotations")
        }
        for (index, annotation) in annotations.enumerated() {
            try validateAnnotation(annotation, field: "\(field)[\(index)]")
        }
    }

    /// An annotation's text follows a title's rules but for its length; its time is one a task carries.
    package static func validateAnnotation(_ annotation: NewAnnotation, field: String) throws {
        let facts = ScalarFacts(annotation.text)
        guard facts.count <= maxAnnotationLength else {
            throw TaskStoreError.invalid(field: "\(field).text", reason: "must be at most \(maxAnnotationLength) characters")
        }
        guard facts.hasOtherThanWhiteSpace else {
            throw TaskStoreError.invalid(field: "\(field).text", reason: "must contain a character that is not white space")
        }
        guard !facts.hasControl else {
            throw TaskStoreError.invalid(field: "\(field).text", reason: "must not contain control characters")
        }
        try validateTimestamp(annotation.at, field: "\(field).at")
    }
}

extension TaskItem {
    /// Applies `changes`' annotations to this task's, at `now`: a whole new list, or the
    /// removals (each the first annotation of that time and text) then the additions, each
    /// placed after those of its time or earlier. Errors name the change's field.
    mutating func annotate(by changes: TaskChanges, now: Int64) throws {
        if let replacement = changes.annotations {
            annotations = Annotation.ordered(replacement.map { Annotation(at: $0.at ?? now, text: $0.text) })
            return
        }
        for (index, removed) in changes.removeAnnotations.enumerated() {
            guard let position = annotations.firstIndex(where: { $0.isIdentical(to: removed) }) else {
                throw TaskStoreError.invalid(field: "changes.removeAnnotations[\(index)]", reason: "matches no annotation of the task")
            }
            annotations.remove(at: position)
        }
        guard !changes.addAnnotations.isEmpty else { return }
        guard annotations.count + changes.addAnnotations.count <= TaskRules.maxAnnotations else {
            throw TaskStoreError.invalid(
                field: "changes.addAnnotations",
                reason: "would give the task more than \(TaskRules.maxAnnotations) annotations (it has \(annotations.count))")
        }
        for added in changes.addAnnotations {
            let annotation = Annotation(at: added.at ?? now, text: added.text)
            let position = annotations.lastIndex(where: { $0.at <= annotation.at }).map { $0 + 1 } ?? 0
            annotations.insert(annotation, at: position)
        }
    }
}

extension TaskDraft {
    /// The draft's annotations on a task created at `now`.
    package func annotationsMade(at now: Int64) -> [Annotation] {
        Annotation.ordered(annotations.map { Annotation(at: $0.at ?? now, text: $0.text) })
    }
}
