import PeopleLanguage
import TaskModel

/// One key of `--sort`.
struct ListSort: Sendable, Equatable {
    enum Field: String, CaseIterable {
        case due, priority, created, updated, title, project, urgency
    }

    var field: Field
    var descending: Bool

    static func parse(_ text: String) throws(UsageError) -> [ListSort] {
        var keys: [ListSort] = []
        for part in text.split(separator: ",") {
            let descending = part.hasPrefix("-")
            let name = part.drop { $0 == "-" || $0 == "+" }
            guard let field = Field(rawValue: String(name)) else {
                throw UsageError("--sort takes \(Field.allCases.map(\.rawValue).joined(separator: ", ")), not \(name)")
            }
            guard !keys.contains(where: { $0.field == field }) else { throw UsageError("--sort names \(name) twice") }
            keys.append(ListSort(field: field, descending: descending))
        }
        guard !keys.isEmpty, keys.count <= TaskQuery.maxSortKeys - 1 else {
            throw UsageError("--sort takes 1 to \(TaskQuery.maxSortKeys - 1) comma-separated keys")
        }
        return keys
    }

    /// The store's key, or nil for urgency, which is computed here.
    var storeKey: SortKey? {
        let field: SortKey.Field? =
            switch field {
            case .due: .due
            case .priority: .priority
            case .created: .createdAt
            case .updated: .updatedAt
            case .title: .title
            case .project: .project
            case .urgency: nil
            }
        return field.map { SortKey(field: $0, descending: descending) }
    }

    /// Sorted by the keys, in turn, when one is urgency, which the store cannot sort by;
    /// the others as the store orders them, then by age and id, as the store breaks ties.
    /// The positions are sorted, not the tasks: moving a task costs many times a comparison.
    static func ordered(_ tasks: [TaskItem], by keys: [ListSort], dates: DateContext, urgency: Urgency) -> [TaskItem] {
        let columns = keys.map { SortColumn($0, of: tasks, dates: dates, urgency: urgency) }
        return tasks.indices.sorted { a, b in
            for column in columns {
                if let first = column.precedes(a, b) { return first }
            }
            if tasks[a].createdAt != tasks[b].createdAt { return tasks[a].createdAt < tasks[b].createdAt }
            return tasks[a].id.utf8.lexicographicallyPrecedes(tasks[b].id.utf8)
        }.map { tasks[$0] }
    }
}

/// One key's value for each task of a sort, computed once.
private struct SortColumn {
    private enum Value: Comparable {
        case number(Double)
        case integer(Int64)
        /// Compared byte by byte, as SQLite's BINARY and PostgreSQL's "C" collation do.
        case bytes([UInt8])

        static func < (a: Value, b: Value) -> Bool {
            switch (a, b) {
            case (.number(let x), .number(let y)): x < y
            case (.integer(let x), .integer(let y)): x < y
            case (.bytes(let x), .bytes(let y)): x.lexicographicallyPrecedes(y)
            default: false  // a column holds one kind
            }
        }
    }

    /// Nil (no due date, no project) comes last either way, as in the store.
    private let values: [Value?]
    private let descending: Bool

    init(_ key: ListSort, of tasks: [TaskItem], dates: DateContext, urgency: Urgency) {
        // Urgency's own order is the most urgent first.
        descending = key.field == .urgency ? !key.descending : key.descending
        values = tasks.map { task in
            switch key.field {
            case .urgency: .number(urgency.of(task, dates: dates))
            case .due: task.due.flatMap(Timestamp.parse).map(Value.integer)
            case .priority: .integer(Int64(task.priority))
            case .created: .integer(task.createdAt)
            case .updated: .integer(task.updatedAt)
            case .title: .bytes(Array(TaskRules.folded(task.title).utf8))
            case .project: task.project.map { .bytes(Array($0.utf8)) }
            }
        }
    }

    /// Whether task `a` comes before task `b` by this key; nil when they tie.
    func precedes(_ a: Int, _ b: Int) -> Bool? {
        switch (values[a], values[b]) {
        case (let x?, let y?): x == y ? nil : (x < y) != descending
        case (nil, nil): nil
        case (.some, nil): true
        case (nil, .some): false
        }
    }
}
