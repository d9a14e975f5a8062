import TaskModel

/// The words a person typed for a task (`Call the bank +money due:fri pri:H`), read into
/// the task they describe: the one grammar of the command line's `add` and `modify`, of
/// `tasks/parse`, and so of every front-end's quick add.
public enum TaskWords {
    /// One word as typed; `literal` after `--`: a title word whatever it looks like.
    public struct Word: Sendable, Equatable {
        public var text: String
        public var literal: Bool

        public init(_ text: String, literal: Bool = false) {
            self.text = text
            self.literal = literal
        }
    }

    /// `text` split at white space, as a shell splits words without quotes; the words after
    /// a `--` are literal.
    public static func words(of text: String) -> [Word] {
        var words: [Word] = []
        var literal = false
        for word in text.split(whereSeparator: \.isWhitespace) {
            if word == "--", !literal {
                literal = true
            } else {
                words.append(Word(String(word), literal: literal))
            }
        }
        return words
    }

    /// The attributes whose value may be a day followed by a time of day.
    static let datedAttributes = ["due", "wait", "remind"]

    /// Adds what `words` say to `edit`; `modify`: `-tag` removes a tag (for `add` it is refused).
    public static func read(_ words: [Word], into edit: inout TaskEdit, dates: DateContext, modify: Bool) throws(UsageError) {
        var index = words.startIndex
        while index < words.endIndex {
            var text = words[index].text
            // `remind:fri 9am`: a time of day after a date attribute is part of its value.
            if !words[index].literal, index + 1 < words.endIndex, !words[index + 1].literal,
                PeopleDates.clock(words[index + 1].text) != nil, let (name, value) = InlineAttributes.split(text), !value.isEmpty,
                let attribute = InlineAttribute.named(name, in: InlineAttributes.task), datedAttributes.contains(attribute.name)
            {
                text += " " + words[index + 1].text
                index += 1
            }
            try InlineAttributes.read(text, literal: words[index].literal, into: &edit, dates: dates, removing: modify)
            index += 1
        }
    }
}

extension TaskEdit {
    /// The task these words create, `dependsOn` the ids they name, resolved.
    public func draft(dependsOn: [String]) -> TaskDraft {
        TaskDraft(
            title: titleWords.joined(separator: " "), notes: notes ?? "", done: done ?? false, priority: priority ?? 0,
            tags: addTags, due: due ?? nil, project: project ?? nil, dependsOn: dependsOn, wait: wait ?? nil,
            recurrence: recurrence ?? nil, remindAt: remindAt ?? nil)
    }

    /// The changes these words make to `task`, `dependsOn` the ids they name, resolved:
    /// words replace the title, `+tag` and `-tag` give the whole new list of tags.
    public func changes(to task: TaskItem, dependsOn: [String]?) -> TaskChanges {
        var changes = TaskChanges(
            notes: notes, done: done, priority: priority, due: due, project: project,
            dependsOn: dependsOn, wait: wait, recurrence: recurrence, remindAt: remindAt)
        if !titleWords.isEmpty { changes.title = titleWords.joined(separator: " ") }
        if !addTags.isEmpty || !removeTags.isEmpty {
            changes.tags = task.tags.filter { !removeTags.contains($0) } + addTags.filter { !task.tags.contains($0) }
        }
        return changes
    }
}

extension CommandLineStoring {
    /// The ids `depends:` names (ids, short ids or their starts), resolved as done and rm
    /// resolve theirs.
    public func resolveDependencies(_ typed: [String]?) throws -> [String]? {
        do {
            return try typed?.map { try resolveID($0) }
        } catch let error as ShortID.LookupError {
            throw UsageError("depends: \(error)")
        }
    }
}
