/// The records of `taskline import`, and what importing them did.
/// One record of an import, as the caller read it from its input.
public enum ImportRecord: Sendable {
    /// A whole task, from line `line` of the input. Every field is kept as it is,
    /// `createdAt`, `updatedAt`, `completedAt` and `version` included.
    case task(TaskItem, line: Int)
    /// A record the caller could not read as a task.
    case invalid(ImportProblem)
}

/// Why one record of an import cannot be imported.
public struct ImportProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line of the input the record starts on (1-based).
    public var line: Int
    /// The field at fault, in wire form (`title`, `tags[2]`), or nil when `reason` is a
    /// whole sentence about the record.
    public var field: String?
    public var reason: String

    public init(line: Int, field: String?, reason: String) {
        self.line = line
        self.field = field.flatMap { $0.isEmpty ? nil : $0 }
        self.reason = reason
    }

    public var description: String {
        "line \(line): " + (field.map { "\($0) \(reason)" } ?? reason)
    }
}

/// What an import does with a task whose id exists already.
public enum ConflictPolicy: String, Sendable, CaseIterable {
    /// The import fails and nothing is imported.
    case fail
    /// The task in the database stays as it is.
    case skip
    /// The task in the database takes every field of the record.
    case replace
}

/// What one record of an import did to the database, for a store whose rows `Key` names.
package enum ImportedRecord<Key> {
    case inserted(Key)
    /// `previous`: the task as it was before the record replaced it.
    case replaced(Key, previous: TaskItem)
    /// Skipped, or identical to the task there.
    case untouched
}

extension ConflictPolicy {
    /// One checked record, inside the import's transaction: `insert` it (nil when its id is
    /// taken); when it is taken, fail, skip, or `load` the task there and `replace` it unless
    /// identical. Counts what happened in `summary`.
    package func importRecord<Key>(
        _ checked: CheckedTask, summary: inout ImportSummary,
        insert: () throws -> Key?, load: () throws -> (Key, TaskItem)?, replace: (Key, TaskItem) throws -> Void
    ) throws -> ImportedRecord<Key> {
        if let key = try insert() {
            summary.inserted += 1
            return .inserted(key)
        }
        switch self {
        case .fail:
            throw TaskStoreError.alreadyExists(id: checked.task.id)
        case .skip:
            summary.skipped += 1
            return .untouched
        case .replace:
            guard let (key, current) = try load() else { throw TaskStoreError.alreadyExists(id: checked.task.id) }
            if current.isIdentical(to: checked.task) {
                summary.unchanged += 1
                return .untouched
            }
            try replace(key, current)
            summary.replaced += 1
            return .replaced(key, previous: current)
        }
    }
}

public struct ImportSummary: Sendable, Hashable {
    /// New tasks.
    public var inserted = 0
    /// Existing tasks overwritten by their record (`replace`).
    public var replaced = 0
    /// Existing tasks identical to their record (`replace`): nothing to write.
    public var unchanged = 0
    /// Records left out because their id exists (`skip`).
    public var skipped = 0

    public init() {}
}

/// Nothing was imported, because of these records. `problems` holds the first of them (at
/// most the `maxProblems` the import was given), `count` how many there were in all.
public struct ImportFailure: Error, Sendable, Hashable {
    public var problems: [ImportProblem]
    public var count: Int

    /// How many bad records an import reports in detail, unless told otherwise.
    public static let detailedProblems = 100

    public init(problems: [ImportProblem], count: Int) {
        self.problems = problems
        self.count = count
    }
}

/// The bad records of an import as it goes, the same on every store.
package struct ImportProblems {
    private var failure = ImportFailure(problems: [], count: 0)
    private let maxProblems: Int

    package init(maxProblems: Int) {
        self.maxProblems = maxProblems
    }

    package mutating func note(_ problem: ImportProblem) {
        failure.count += 1
        if failure.problems.count < maxProblems { failure.problems.append(problem) }
    }

    /// Notes the store's refusal of the record on `line`; rethrows an error that is none.
    package mutating func note(_ error: any Error, line: Int) throws {
        switch error {
        case TaskStoreError.invalid(let field, let reason):
            note(ImportProblem(line: line, field: field, reason: reason))
        case TaskStoreError.alreadyExists(let id):
            note(ImportProblem(line: line, field: "id", reason: "\(id) is the id of an existing task"))
        case TaskStoreError.dependencyCycle(let cycle):
            note(ImportProblem(line: line, field: "dependsOn", reason: "would close a dependency cycle: \(TaskStoreError.describeCycle(cycle))"))
        default:
            throw error
        }
    }

    /// Writes each record's task with `write`, noting every bad record (one that could not
    /// be read, or that `write` refused) rather than stopping at the first.
    package mutating func writeEach(_ records: some Sequence<ImportRecord>, _ write: (TaskItem, _ line: Int) throws -> Void) throws {
        for record in records {
            switch record {
            case .invalid(let problem):
                note(problem)
            case .task(let task, let line):
                do {
                    try write(task, line)
                } catch {
                    try note(error, line: line)
                }
            }
        }
    }

    /// Throws `ImportFailure` when any record had a problem: inside the import's
    /// transaction, so that it is rolled back.
    package func check() throws {
        if failure.count > 0 { throw failure }
    }
}
