import TaskModel

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
        _ records: some Sequence<ImportRecord>, onConflict: ConflictPolicy, maxProblems: Int = ImportFailure.detailedProblems
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
        var problems = ImportProblems(maxProblems: maxProblems)
        let logged = try Schema.newestSeq(in: database)
        // Dependencies are written once every task is in: a record may depend on a later one.
        var dependencies: [(pk: Int64, ids: [String], line: Int)] = []
        try problems.writeEach(records) { task, line in
            if let pk = try importTask(task, onConflict: onConflict, summary: &summary) { dependencies.append((pk, task.dependsOn, line)) }
        }
        let mayCloseCycles = try tasksOnCycles(dependingAlso: dependencies)
        for (pk, ids, line) in dependencies {
            do {
                try setDependencies(of: pk, to: ids, field: "dependsOn", checkingCycles: mayCloseCycles.contains(pk))
            } catch {
                try problems.note(error, line: line)
            }
        }
        try problems.check()
        if summary.inserted > 0 {
            // The log takes a creation's time from the task's updated_at (schema 36), which
            // an imported task keeps: the import's changes are logged at its own time.
            try database.run("UPDATE change SET at = ? WHERE seq > ?", [.integer(clock()), .integer(logged)])
        }
        if summary.inserted + summary.replaced > 0 { _ = try loggedSeq() }
        return summary
    }

    /// The tasks on a cycle of the dependencies stored and `dependencies` together (their
    /// unknown ids left out): only these can close a cycle as the import writes
    /// `dependencies` in turn. One walk over all of them, where a walk for each task grows
    /// with the square of a chain's length.
    private func tasksOnCycles(dependingAlso dependencies: [(pk: Int64, ids: [String], line: Int)]) throws -> Set<Int64> {
        guard !dependencies.isEmpty else { return [] }
        var edges = try Self.dependencyEdges(in: database)
        let key = try database.cachedStatement("SELECT pk FROM task WHERE id = ?")
        for (pk, ids, _) in dependencies {
            for id in ids {
                if let dependency = try key.firstRow([.text(id)], { $0.int64(0) }) { edges.append((pk, dependency)) }
            }
        }
        return Set(DependencyGraph.tasksOnCycles(edges))
    }

    /// Writes one checked task but its dependencies, inside the import's transaction;
    /// returns the key of its row when its dependencies are to be written.
    private func importTask(_ item: TaskItem, onConflict: ConflictPolicy, summary: inout ImportSummary) throws -> Int64? {
        let checked = try CheckedTask(item)
        let imported = try onConflict.importRecord(
            checked, summary: &summary,
            insert: { try insertRow(checked.task, dueAt: checked.dueAt, waitAt: checked.waitAt) },
            load: { try loadForWrite(id: item.id) },
            replace: { pk, current in
                try replace(pk, with: checked.task, dueAt: checked.dueAt, waitAt: checked.waitAt, current: current)
            })
        switch imported {
        case .inserted(let pk): return checked.task.dependsOn.isEmpty ? nil : pk
        case .replaced(let pk, let previous): return TaskItem.identical(previous.dependsOn, checked.task.dependsOn) ? nil : pk
        case .untouched: return nil
        }
    }
}
