import Foundation
import PostgreSQL

/// The raw baseline: the statements the PostgreSQL store runs, sent straight through the
/// PostgreSQL module's connection, without a server, JSON or pipes.
///
/// It must follow Sources/PostgresStore statement for statement: a create is
/// `PostgresTaskStore.writing` around `insert` and `log` (PostgresTaskStore+Writes.swift),
/// a get is `load` (PostgresTaskStore+Reads.swift) with `TaskRow.columns`, and a woken
/// server's read of the log is `changes(since:limit:)` (PostgresTaskStore+ChangeLog.swift)
/// with the server's page of 100. A change there is a change here.
enum Baseline {
    static let taskColumns = """
        task.id, task.title, task.notes, task.done, task.priority, array_to_string(task.tags, chr(31)) AS tags,
        task.due, task.project, array_to_string(task.depends_on, chr(31)) AS depends_on, task.wait, task.meta,
        task.recurrence, task.series_id, task.remind, task.created_at, task.updated_at, task.completed_at, task.version
        """

    static let insertTask = """
        INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, tags, due, due_at, project,
                          depends_on, wait, wait_at, meta, recurrence, series_id, remind, remind_at,
                          created_at, updated_at, completed_at, version)
        VALUES ($1, $2, $3, $4, $5, $6, $7, string_to_array($8, chr(31)), $9, $10, $11,
                string_to_array($12, chr(31)), $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
        ON CONFLICT (id) DO NOTHING
        """

    /// The payload-free wake-up every writing transaction sends.
    static func channel(_ connection: PostgresConnection) throws -> String {
        "taskline_changes_\(try connection.query("SELECT database_id FROM taskline_schema")[0].int64("database_id"))"
    }

    /// One task created as `tasks/create {"title": title}` creates it: one writing transaction.
    static func create(title: String, on connection: PostgresConnection, channel: String) throws {
        let id = UUID().uuidString.lowercased()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try connection.transaction(.readCommitted) {
            let seq = try connection.query("SELECT seq FROM change_counter FOR UPDATE")[0].int64("seq") + 1
            let values: [PostgresValue] = [
                .text(id), .text(title), .text(title.lowercased()), .text(""), .text(""), .boolean(false), .integer(0), .text(""),
                .null, .null, .null, .text(""), .null, .null, .text("{}"), .null, .null, .null, .null,
                .integer(now), .integer(now), .null, .integer(1),
            ]
            guard try connection.run(insertTask, values) == 1 else { fatalError("baseline: id \(id) taken") }
            try connection.run(
                "INSERT INTO change_log (seq, kind, task_id, version, at) VALUES ($1, $2, $3, $4, $5)",
                [.integer(seq), .text("created"), .text(id), .integer(1), .integer(now)])
            try connection.run("UPDATE change_counter SET seq = $1", [.integer(seq)])
            try connection.execute("NOTIFY \(channel)")
        }
    }

    static let changesSQL = """
        SELECT state.pruned, state.current, change.*
        FROM (SELECT (SELECT pruned_through FROM taskline_schema) AS pruned, (SELECT seq FROM change_counter) AS current) AS state
        LEFT JOIN LATERAL (
            SELECT change_log.seq, change_log.kind, change_log.task_id, change_log.version AS change_version, current_task.*
            FROM change_log LEFT JOIN LATERAL (
                SELECT \(taskColumns) FROM task
                WHERE task.id = change_log.task_id AND change_log.kind <> 'deleted'
                    AND NOT EXISTS (SELECT 1 FROM change_log AS later
                                    WHERE later.task_id = change_log.task_id AND later.kind = 'deleted' AND later.seq > change_log.seq)
                LIMIT 1
            ) AS current_task ON true
            WHERE change_log.seq > $1 ORDER BY change_log.seq LIMIT $2
        ) AS change ON true
        ORDER BY change.seq
        """

    /// Prepares the log read in the listener's session, as the store prepares it in its own.
    static func prepareChanges(on connection: PostgresConnection) throws {
        try connection.prepare("taskline_changes", changesSQL, parameterTypes: [.integer(0), .integer(0)])
    }

    /// The seqs of the changes after `since`, up to 100, as a woken server reads them: one
    /// prepared statement, with the log's state.
    static func changes(since: Int64, on connection: PostgresConnection) throws -> [Int64] {
        let rows = try connection.query(prepared: "taskline_changes", [.integer(since), .integer(101)])
        guard try rows[0].int64("pruned") <= since, try rows[0].int64("current") >= since else { fatalError("baseline: log moved") }
        return try rows.filter { !$0.isNull("seq") }.prefix(100).map { try $0.int64("seq") }
    }

    static func get(id: String, on connection: PostgresConnection) throws {
        let rows = try connection.query("SELECT \(taskColumns) FROM task WHERE id = $1", [.text(id)])
        guard let row = rows.first, try row.text("id") == id else { fatalError("baseline: no task \(id)") }
    }
}
