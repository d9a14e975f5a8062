import SQLite
import TaskModel

extension TaskStore {
    /// Calls `body` with every task, oldest first (by `createdAt`, then `id`), all read from
    /// one snapshot of the database while other connections go on writing. One row is held at
    /// a time, so memory stays flat whatever the number of tasks. Returns how many there were.
    /// An error thrown by `body` stops the export and is rethrown as it is.
    @discardableResult
    public func exportTasks(_ body: (TaskItem) throws -> Void) throws -> Int {
        try translatingSQLiteErrors {
            try database.readTransaction {
                var count = 0
                // The default fetch's plan with no limit (-1), so that the order is read as a
                // page reads it, from the index.
                for run in try FetchPlan(filter: TaskFilter(), sort: TaskQuery().sort, now: clock(), database: database).pageRuns(after: nil) {
                    let statement = try database.cachedStatement(run.sql)
                    let columns = statement.layout(PageColumns.self).task
                    try statement.forEachRow(run.values + [.integer(-1)]) { row in
                        try body(columns.task(in: row))
                        count += 1
                    }
                }
                return count
            }
        }
    }
}
