import SQLite
import TaskModel

extension TaskStore {
    /// Calls `body` with every task, oldest first (by `createdAt`, then `id`), all read from
    /// one snapshot of the database while other connections go on writing. One row is held at
    /// a time, so memory stays flat whatever the number of tasks. Returns how many there were.
    /// An error thrown by `body` stops the export and is rethrown as it is.
    @discardableResult
    public func exportTasks(_ body: (TaskBuffer) throws -> Void) throws -> Int {
        try translatingSQLiteErrors {
            try database.readTransaction {
                var count = 0
                var batch = TaskBuffer()
                // The default fetch's plan with no limit (-1), so that the order is read as a
                // page reads it, from the index.
                for run in try FetchPlan(filter: TaskFilter(), sort: TaskQuery().sort, now: clock(), database: database).pageRuns(after: nil) {
                    let statement = try database.cachedStatement(run.sql)
                    let columns = statement.layout(PageColumns.self).task
                    try statement.forEachRow(run.values + [.integer(-1)]) { row in
                        columns.append(row, to: &batch)
                        count += 1
                        if batch.count == Self.exportBatchSize {
                            try body(batch)
                            batch = TaskBuffer()
                        }
                    }
                }
                if !batch.isEmpty { try body(batch) }
                return count
            }
        }
    }

    private static let exportBatchSize = 500
}
