import TaskModel

/// What `add` and `modify` take from the words after the command: title words, `+tag`,
/// `-tag`, and `name:value` attributes, their dates already read.
public struct TaskEdit: Sendable, Equatable {
    public var titleWords: [String] = []
    public var addTags: [String] = []
    public var removeTags: [String] = []
    public var notes: String?
    public var priority: Int?
    /// nil: unchanged; .some(nil): cleared (`due:` with no value).
    public var due: String??
    public var wait: String??
    public var project: String??
    /// The ids as typed (short ids too); resolved against the store when applied.
    public var dependsOn: [String]?
    /// A rule (`FREQ=WEEKLY`); `.some(nil)` stops the series.
    public var recurrence: String??
    public var remindAt: String??
    /// `status:open` (false) or `status:done` (true).
    public var done: Bool?

    public init() {}

    public var isEmpty: Bool {
        self == TaskEdit()
    }
}

/// When a command reads dates: the time and the time zone they are read in.
public struct DateContext: Sendable {
    public var now: Int64
    public var calendar: LocalCalendar

    public init(now: Int64, calendar: LocalCalendar) {
        self.now = now
        self.calendar = calendar
    }

    public static func current() -> DateContext {
        DateContext(now: Timestamp.now(), calendar: .system)
    }

    public func date(_ text: String, for name: String) throws(UsageError) -> String {
        guard let wire = PeopleDates.parse(text, now: now, calendar: calendar) else {
            throw UsageError("\(name) takes \(PeopleDates.accepted), not \(text)")
        }
        return wire
    }

    /// A time for `text`: a day is its start in local time. The store takes a date as
    /// midnight UTC, which is the evening before west of Greenwich: `wait:tomorrow` must
    /// not end tonight.
    public func time(_ text: String, for name: String) throws(UsageError) -> String {
        let wire = try date(text, for: name)
        guard wire.count == 10, let midnight = Timestamp.parse(wire) else { return wire }
        return calendar.rfc3339(local: midnight / 1000)
    }

    /// A reminder for `text`: a day is 09:00 local time that day (`remind:tomorrow`), a
    /// morning rather than the midnight a day starts at.
    public func reminder(_ text: String, for name: String) throws(UsageError) -> String {
        let wire = try date(text, for: name)
        guard wire.count == 10, let midnight = Timestamp.parse(wire) else { return wire }
        return calendar.rfc3339(local: midnight / 1000 + Self.reminderHour * 3600)
    }

    /// The hour of a reminder given as a day.
    public static let reminderHour: Int64 = 9
}

/// One `name:value` the command line takes, and what it does to `Target`.
public struct InlineAttribute<Target>: Sendable {
    public let name: String
    /// For the error that lists what is taken: `due:DATE`.
    public let form: String
    /// False for a row that refuses every value until the store keeps its field: it is
    /// then left out of the list an unknown name's error gives.
    public var available = true
    public let apply: @Sendable (_ value: String, _ target: inout Target, _ dates: DateContext) throws(UsageError) -> Void

    /// The row `name` names: its whole name, or a start of it of at least 3 characters that
    /// no other row's name shares (`proj:`, `pri:`, `dep:`).
    public init(
        name: String, form: String, available: Bool = true,
        apply: @escaping @Sendable (_ value: String, _ target: inout Target, _ dates: DateContext) throws(UsageError) -> Void
    ) {
        self.name = name
        self.form = form
        self.available = available
        self.apply = apply
    }

    public static func named(_ name: String, in table: [InlineAttribute]) -> InlineAttribute? {
        if let exact = table.first(where: { $0.name == name }) { return exact }
        let matches = name.count >= 3 ? table.filter { $0.name.hasPrefix(name) } : []
        return matches.count == 1 ? matches[0] : nil
    }
}

public enum InlineAttributes {
    /// The attributes of `add` and `modify`. An empty value clears the field.
    public static let task: [InlineAttribute<TaskEdit>] = [
        InlineAttribute(name: "project", form: "project:Home.Garage") { value, edit, _ in
            edit.project = .some(value.isEmpty ? nil : value)
        },
        InlineAttribute(name: "due", form: "due:DATE") { value, edit, dates throws(UsageError) in
            edit.due = .some(value.isEmpty ? nil : try dates.date(value, for: "due:"))
        },
        InlineAttribute(name: "wait", form: "wait:DATE") { value, edit, dates throws(UsageError) in
            edit.wait = .some(value.isEmpty ? nil : try dates.time(value, for: "wait:"))
        },
        InlineAttribute(name: "priority", form: "pri:H|M|L|none") { value, edit, _ throws(UsageError) in
            edit.priority = try PriorityName.parse(value, for: "pri:")
        },
        InlineAttribute(name: "depends", form: "depends:ID,ID") { value, edit, _ in
            edit.dependsOn = value.split(separator: ",").map(String.init)
        },
        InlineAttribute(name: "recur", form: "recur:weekly") { value, edit, _ throws(UsageError) in
            // A rule as RFC 5545 writes it goes to the store, which says what is wrong with it.
            guard !value.isEmpty else {
                edit.recurrence = .some(nil)
                return
            }
            guard let rule = value.uppercased().hasPrefix("FREQ=") ? value.uppercased() : RecurrenceName.rule(for: value) else {
                throw UsageError("recur: takes \(RecurrenceName.accepted), not \(value)")
            }
            edit.recurrence = .some(rule)
        },
        InlineAttribute(name: "status", form: "status:open|done") { value, edit, _ throws(UsageError) in
            switch value.lowercased() {
            case "open", "pending": edit.done = false
            case "done", "completed": edit.done = true
            default: throw UsageError("status: takes open or done, not \(value)")
            }
        },
        InlineAttribute(name: "remind", form: "remind:DATE") { value, edit, dates throws(UsageError) in
            edit.remindAt = .some(value.isEmpty ? nil : try dates.reminder(value, for: "remind:"))
        },
    ]

    /// A word of `add` or `modify` after the options were read (`literal`: after `--`).
    public static func read(
        _ word: String, literal: Bool, into edit: inout TaskEdit, dates: DateContext,
        removing: Bool
    ) throws(UsageError) {
        if literal {
            edit.titleWords.append(word)
        } else if word.count > 1, word.hasPrefix("+") {
            edit.addTags.append(try TagWord.checked(String(word.dropFirst())))
        } else if word.count > 1, word.hasPrefix("-"), !word.hasPrefix("--") {
            guard removing else {
                throw UsageError("\(word) removes a tag, which only modify does (to put \(word) in the title, write it after --)")
            }
            edit.removeTags.append(String(word.dropFirst()))
        } else if let (name, value) = split(word) {
            guard let attribute = InlineAttribute.named(name, in: task) else {
                throw unknown(name, word: word, table: task)
            }
            try attribute.apply(value, &edit, dates)
        } else {
            edit.titleWords.append(word)
        }
    }

    /// `name:value` where the name is ASCII letters and dots. Other words with a colon
    /// (`10:30`, `https://…`, `Note:`) are plain words.
    public static func split(_ word: String) -> (name: String, value: String)? {
        guard let colon = word.firstIndex(of: ":"), colon != word.startIndex else { return nil }
        let name = word[..<colon]
        let value = String(word[word.index(after: colon)...])
        guard name.allSatisfy({ ($0.isASCII && $0.isLetter) || $0 == "." }), !value.hasPrefix("//") else { return nil }
        if value.isEmpty, InlineAttribute.named(name.lowercased(), in: task) == nil { return nil }
        return (name.lowercased(), value)
    }

    public static func unknown<Target>(_ name: String, word: String, table: [InlineAttribute<Target>]) -> UsageError {
        let available = table.filter(\.available)
        let meant = Suggestion.closest(to: name, among: available.map(\.name)).map { "did you mean \($0):\(word.dropFirst(name.count + 1))? " } ?? ""
        return UsageError(
            "\(word): \(name) is not one of \(available.map(\.form).joined(separator: ", ")); "
                + "\(meant)to keep \(word) as a word, put it after --")
    }
}

/// Tags as people write them: one word each.
public enum TagWord {
    /// `tag`, or a usage error that says how to write it when it holds white space (the
    /// store's rule, said in the command line's words).
    public static func checked(_ tag: String) throws(UsageError) -> String {
        guard tag.contains(where: \.isWhitespace) else { return tag }
        let words = tag.split(whereSeparator: \.isWhitespace)
        let joined = words.joined(separator: "-")
        let apart = words.map { "+" + $0 }.joined(separator: " ")
        throw UsageError(
            "the tag \"\(tag)\" has white space in it: a tag is one word, so write \(joined.isEmpty ? "a word" : joined)"
                + (words.count > 1 ? ", or make each word a tag: \(apart)" : ""))
    }
}

public enum PriorityName {
    public static let names = ["none", "low", "medium", "high"]
    /// H, M, L as Taskwarrior writes them; " " for none.
    public static let letters = [" ", "L", "M", "H"]

    public static func value(_ text: String) -> Int? {
        let lowered = text.lowercased()
        if let index = names.firstIndex(of: lowered) { return index }
        if lowered.count == 1, let index = letters.firstIndex(of: lowered.uppercased()) { return index }
        guard let number = Int(text), names.indices.contains(number) else { return nil }
        return number
    }

    public static func parse(_ text: String, for name: String) throws(UsageError) -> Int {
        guard let priority = value(text.isEmpty ? "none" : text) else {
            throw UsageError("\(name) takes H, M, L or none (or high, medium, low, or 0 to 3), not \(text)")
        }
        return priority
    }
}
