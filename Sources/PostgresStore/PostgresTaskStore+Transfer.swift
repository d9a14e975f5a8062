import PostgreSQL
import TaskModel

/// `taskline export` and `taskline import`.
extension PostgresTaskStore {
    /// Every task, oldest first, from one snapshot, read through a cursor a batch at a time.
    @discardableResult
    public func exportTasks(_ body: (TaskBuffer) throws -> Void) throws -> Int {
        try translatingErrors {
            try connection.transaction(.repeatableRead) {
                try connection.execute("DECLARE export NO SCROLL CURSOR FOR SELECT \(TaskRow.columns) FROM task ORDER BY created_at, id")
                var count = 0
                while true {
                    let rows = try connection.query("FETCH 500 FROM export")
                    if !rows.isEmpty { try body(TaskBuffer(try rows.map(TaskRow.task))) }
                    count += rows.count
                    if rows.count < 500 { return count }
                }
            }
        }
    }

    /// In one writing transaction, logging each task written (`created`, or `updated` when
    /// `replace` overwrites one), so that running servers tell their clients. Dependencies
    /// are checked once every task is in: a record may depend on a later one.
    public func importTasks(_ records: some Sequence<ImportRecord>, onConflict: ConflictPolicy, maxProblems: Int) throws -> ImportSummary {
        try writing {
            var summary = ImportSummary()
            var problems = ImportProblems(maxProblems: maxProblems)
            var dependencies: [(task: TaskItem, line: Int)] = []
            try problems.writeEach(records) { task, line in
                if let written = try importTask(task, onConflict: onConflict, summary: &summary), !written.dependsOn.isEmpty {
                    dependencies.append((written, line))
                }
            }
            // Only a task on a cycle of all the dependencies (the import's are written) can
            // close one: one walk over them all, where a walk for each task grows with the
            // square of a chain's length.
            let mayCloseCycles = dependencies.isEmpty ? [] : Set(DependencyGraph.tasksOnCycles(try Self.dependencyEdges(connection)))
            for (task, line) in dependencies {
                do {
                    if task.dependsOn.contains(where: { $0.utf8.elementsEqual(task.id.utf8) }) {
                        throw TaskStoreError.dependencyCycle(ids: [task.id])
                    }
                    try checkExist(task.dependsOn, field: "dependsOn")
                    if mayCloseCycles.contains(ExactID(task.id)), let cycle = try cycle(from: task.id) {
                        throw TaskStoreError.dependencyCycle(ids: cycle)
                    }
                } catch {
                    try problems.note(error, line: line)
                }
            }
            try recountBlockers(of: dependencies.map(\.task.id))
            try problems.check()
            return summary
        }
    }

    /// Writes one checked task; returns it when it was written.
    private func importTask(_ item: TaskItem, onConflict: ConflictPolicy, summary: inout ImportSummary) throws -> TaskItem? {
        let checked = try CheckedTask(item)
        let imported = try onConflict.importRecord(
            checked, summary: &summary,
            insert: { try insert(checked.task, dueAt: checked.dueAt, waitAt: checked.waitAt) },
            load: { try loadForWrite(id: item.id) },
            replace: { key, current in try replace(key, with: checked.task, dueAt: checked.dueAt, waitAt: checked.waitAt, current: current) })
        switch imported {
        case .inserted:
            _ = try log(.created, task: checked.task)
        case .replaced:
            _ = try log(.updated, task: checked.task)
        case .untouched:
            return nil
        }
        return checked.task
    }
}
