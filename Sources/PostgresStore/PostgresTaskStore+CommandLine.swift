import PostgreSQL
import TaskModel

/// What the commands for people ask beyond the server: short ids
/// (PostgresTaskStore+ShortIDs.swift) and a task's history.
extension PostgresTaskStore: CommandLineStoring {
    public func loggedChanges(of id: String) throws -> [LoggedChange] {
        try translatingErrors {
            try connection.query("SELECT seq, kind, version, at FROM change_log WHERE task_id = $1 ORDER BY seq", [.text(id)])
                .compactMap { row in
                    guard let kind = TaskChange.Kind(rawValue: try row.text("kind")) else { return nil }
                    return LoggedChange(seq: try row.int64("seq"), kind: kind, version: try row.int64("version"), at: try row.int64("at"))
                }
        }
    }
}
