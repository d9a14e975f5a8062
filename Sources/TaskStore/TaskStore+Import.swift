import TaskModel

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
}

extension TaskStore {
    /// Imports `records` in one transaction: all of them, or, when any is invalid or (with
    /// `.fail`) conflicts with an existing task, none. Every record is checked with the rules
    /// of `tasks/create`, so one run reports every bad record (the first `maxProblems` in
    /// detail) rather than only the first. Records are read one at a time, as the import goes.
    ///
    /// The change log records every imported task (its triggers see these writes like any
    /// other), so running servers tell their clients about them.
    ///
    /// Throws `ImportFailure` for bad records, `TaskStoreError.storage` when SQLite fails.
    public func importTasks(
        _ records: some Sequence<ImportRecord>, onConflict: ConflictPolicy, maxProblems: Int = 100
    ) throws -> ImportSummary {
        try translatingSQLiteErrors {
            try withBulkWriteSettings {
                try writeTransaction {
                    try importAll(records, onConflict: onConflict, maxProblems: maxProblems)
                }
            }
        }
    }

    /// The body of the import's transaction.
    private func importAll(
        _ records: some Sequence<ImportRecord>, onConflict: ConflictPolicy, maxProblems: Int
    ) throws -> ImportSummary {
        var summary = ImportSummary()
        var failure = ImportFailure(problems: [], count: 0)
        func note(_ problem: ImportProblem) {
            failure.count += 1
            if failure.problems.count < maxProblems { failure.problems.append(problem) }
        }
        // Dependencies are written once every task is in: a record may depend on a later one.
        var dependencies: [(pk: Int64, ids: [String], line: Int)] = []
        for record in records {
            switch record {
            case .invalid(let problem):
                note(problem)
            case .task(let task, let line):
                do {
                    if let pk = try importTask(task, onConflict: onConflict, summary: &summary) {
                        dependencies.append((pk, task.dependsOn, line))
                    }
                } catch TaskStoreError.invalid(let field, let reason) {
                    note(ImportProblem(line: line, field: field, reason: reason))
                } catch TaskStoreError.alreadyExists(let id) {
                    note(ImportProblem(line: line, field: "id", reason: "\(id) is the id of an existing task"))
                }
            }
        }
        for (pk, ids, line) in dependencies {
            do {
                try replaceDependencies(of: pk, with: ids, field: "dependsOn")
            } catch TaskStoreError.invalid(let field, let reason) {
                note(ImportProblem(line: line, field: field, reason: reason))
            } catch TaskStoreError.dependencyCycle(let cycle) {
                note(ImportProblem(line: line, field: "dependsOn", reason: "would close a dependency cycle: \(TaskStoreError.describeCycle(cycle))"))
            }
        }
        // Thrown inside the transaction, so that it is rolled back.
        if failure.count > 0 { throw failure }
        if summary.inserted + summary.replaced > 0 { _ = try loggedSeq() }
        return summary
    }

    /// Runs `body` with a page cache of up to 256 MiB (used only as far as the import needs
    /// it), so that a large import rewrites fewer pages, then restores the usual size.
    /// (Statement journals are already in memory: see `StoreFile.configure`.)
    private func withBulkWriteSettings<T>(_ body: () throws -> T) throws -> T {
        let cacheSize = try database.integer("PRAGMA cache_size") ?? -2000
        try database.execute("PRAGMA cache_size = -262144")
        defer { try? database.execute("PRAGMA cache_size = \(cacheSize)") }
        return try body()
    }

    /// Writes one checked task but its dependencies, inside the import's transaction;
    /// returns the key of its row when its dependencies are to be written.
    private func importTask(_ item: TaskItem, onConflict: ConflictPolicy, summary: inout ImportSummary) throws -> Int64? {
        let checked = try CheckedTask(item)
        if let pk = try insertRow(checked.task, dueAt: checked.dueAt, waitAt: checked.waitAt) {
            summary.inserted += 1
            return checked.task.dependsOn.isEmpty ? nil : pk
        }
        switch onConflict {
        case .fail:
            throw TaskStoreError.alreadyExists(id: item.id)
        case .skip:
            summary.skipped += 1
            return nil
        case .replace:
            guard let (pk, current) = try loadWithKey(id: item.id) else { throw TaskStoreError.alreadyExists(id: item.id) }
            if current.isIdentical(to: checked.task) {
                summary.unchanged += 1
                return nil
            }
            try replaceRow(pk: pk, with: checked.task, dueAt: checked.dueAt, waitAt: checked.waitAt, oldTags: current.tags)
            summary.replaced += 1
            return TaskItem.identical(current.dependsOn, checked.task.dependsOn) ? nil : pk
        }
    }
}
