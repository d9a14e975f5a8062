import CSQLite
import Foundation
import Synchronization
import TaskModel
import TestSupport
import Testing

@testable import SQLite
@testable import TaskStore

/// No SQL is ever built from input text: every value a client sends reaches SQLite as a bound
/// parameter. Checked twice: by tracing the text of every statement SQLite runs while marked
/// values go through every store operation, and by reading the sources for what is spliced
/// into SQL strings.
@Suite struct SQLSafetyTests {
    let directory = TemporaryDirectory()
    static let marker = "§MARK'\"%_;--§"

    @Test func noStatementTextEverHoldsAValueFromAClient() async throws {
        let store = try makeStore(directory)
        let statements = Mutex<[String]>([])
        await store.traceStatements { sql in statements.withLock { $0.append(sql) } }

        let m = Self.marker
        let id = "id-\(m)"
        _ = try await store.create(TaskDraft(id: id, title: "title \(m)", notes: "notes \(m)", tags: ["tag-\(m)"], due: "2026-12-01"))
        _ = try await store.create(TaskDraft(id: "\(m)-2", title: "\(m) two", tags: ["tag-\(m)", "b\(m)"]))
        _ = try await store.get(id: id)
        await #expect(throws: TaskStoreError.self) { try await store.get(id: "missing \(m)") }
        await #expect(throws: TaskStoreError.self) { try await store.create(TaskDraft(id: id, title: m)) }
        _ = try await store.update(id: id, changes: TaskChanges(title: "new \(m)", notes: m, tags: ["other-\(m)"], due: .some(nil)), ifVersion: 1)
        for field in SortKey.Field.allCases {
            for descending in [false, true] {
                var query = TaskQuery(
                    filter: TaskFilter(tags: ["tag-\(m)"], text: m, ids: [id, "\(m)-2", m]),
                    sort: [SortKey(field: field, descending: descending)], limit: 1, includeTotal: true)
                query.filter.tags = []
                let first = try await store.fetch(query)
                query.cursor = first.nextCursor
                _ = try await store.fetch(query)
            }
        }
        _ = try await store.fetch(TaskQuery(filter: TaskFilter(done: false, tags: ["tag-\(m)"], text: m), offset: 1))
        _ = try await store.apply([.create(TaskDraft(id: "apply \(m)", title: m)), .delete(id: "\(m)-2", ifVersion: nil)], atomic: true)
        _ = try await store.apply([.update(id: "nobody \(m)", changes: TaskChanges(title: m), ifVersion: nil)], atomic: false)
        _ = try await store.changes(since: 0)
        _ = try await store.delete(id: id)
        _ = try await store.pruneHistory(before: 0)

        let traced = statements.withLock { $0 }
        #expect(traced.count > 30)
        let spliced = traced.filter { $0.contains("MARK") || $0.contains("§") }
        #expect(spliced.isEmpty, "statements holding client text: \(spliced)")
    }

    /// What the sources splice into SQL: each `\(…)` in a line of SQL must be one of these
    /// fragments, none of which comes from a client.
    static let allowedInSQL: [String: String] = [
        "Self.taskColumns": "a fixed column list",
        "FetchPlan.taskColumns": "a fixed column list",
        "keyColumns": "sort-key expressions chosen from FetchPlan.expression's fixed set",
        "order": "sort-key expressions and ASC/DESC",
        "Self.order(order)": "sort-key expressions and ASC/DESC",
        "Self.order(keys)": "sort-key expressions and ASC/DESC",
        "done ? 1 : 0": "the number 0 or 1",
        "numbered": "result column numbers and ASC/DESC",
        "columns": "sort-key expressions",
        "placeholders": "a run of ?",
        "Array(repeating: \"?\", count: ids.count).joined(separator: \", \")": "a run of ?",
        "keys[0].descending ? \"<\" : \">\"": "an operator",
        "keys[equal].expression": "a sort-key expression",
        "keys[index].expression": "a sort-key expression",
        "keys[index].descending ? \"<\" : \">\"": "an operator",
        "$0.expression": "a sort-key expression",
        "$0.descending ? \"DESC\" : \"ASC\"": "a direction",
        "dueAscendingKey": "a fixed expression",
        "dueDescendingKey": "a fixed expression",
        "nowMilliseconds": "a fixed expression",
        "tagsOf(\"task.pk\")": "a fixed subquery",
        "tagsOf(\"NEW.task_pk\")": "a fixed subquery",
        "tagsOf(\"OLD.task_pk\")": "a fixed subquery",
        "taskKey": "a column reference, one of the three above",
        "Schema.tagsOf(\"task.pk\")": "a fixed subquery",
        "FetchPlan.columnsBeforeSchema17": "a fixed column list",
        "column": "a column reference: task.project or +task.project (FetchPlan's project filter)",
        "Self.numbered(range(\"due_at\"), after: 0)": "PostgresFetchPlan's due-date conditions, with numbered parameters",
        "$0": "PostgresFetchPlan's text condition, with numbered parameters (its textTasksCondition)",
        "priorityColumn": "a column reference: task.priority or +task.priority (FetchPlan.priorityRuns)",
        "lower": "a column reference: task.project or +task.project (FetchPlan's project filter)",
        "upper": "a column reference: task.project or +task.project (FetchPlan's project filter)",
        "parameter": "a parameter's number (FetchPlan.addRangeReadInOrder)",
        "condition(column)": "the project filter's fixed condition on a fixed column",
        "condition": "a fixed condition (a project's range, a due window, blocked, waiting) counted up to a limit",
        "source": "one of two fixed FROM clauses",
        "TextIndex.source": "a fixed FROM clause (a text's candidates in the trigram index, each task once)",
        "options.durability == .full ? \"FULL\" : \"NORMAL\"": "one of two words",
        "version": "an integer (the schema version)",
        "nextSchemaCookie": "an integer SQLite itself reported, plus one (PRAGMA schema_version)",
        "cacheSize": "an integer SQLite itself reported (PRAGMA cache_size)",
        "id": "an integer (the application id)",
        "newFilePageSize": "an integer constant (the page size of a new file)",
        "ShortID.keySQL": "a fixed expression (a task id's short-id key)",
        "keyHead": "a fixed expression on a numbered parameter (the head of a task id's short-id key)",
        "keyStart": "a fixed condition on the start of a short-id key, against numbered parameters",
        "ShortID.keyStartSQL { \"\\($0) = ?2\" }": "a fixed condition on the start of a short-id key, against a numbered parameter",
        "pendingReminder": "a fixed condition (task_reminder_due's)",
        "snapshotObject": "a fixed expression (a task's row as a JSON object, TaskStore+Undo)",
        "mine": "one of two fixed conditions (an undo's scope)",
        "notReverted": "a fixed condition (a group not reverted yet)",
        "assignments.joined(separator: \", \")": "fixed column assignments (`title = ?, title_fold = ?`, TaskStore+Writes)",
        // PostgresStore
        "TaskRow.columns": "a fixed column list",
        "Self.pendingReminder": "a fixed condition (a reminder still to send)",
        "Self.keySQL": "a fixed expression (a task id's short-id key, PostgresTaskStore+ShortIDs)",
        "Self.keyStartSQL { \"\\($0) = $2\" }": "a fixed condition on the start of a short-id key, against a numbered parameter",
        "blocked ? \"\" : \"NOT \"": "one of two words",
        "Self.column(key.field)": "a sort-key column from PostgresFetchPlan.column's fixed set",
        "key.descending ? \"DESC\" : \"ASC\"": "a direction",
        "sort.last!.descending ? \"DESC\" : \"ASC\"": "a direction",
        "whereClause": "conditions from PostgresFetchPlan's fixed set, with numbered parameters",
        "filterWhereClause": "conditions from PostgresFetchPlan's fixed set, with numbered parameters",
        "values.count + 1": "a parameter number",
        "values.count + 2": "a parameter number",
        "inScope(\"g\")": "a fixed origin condition on a numbered parameter (PostgreSQL undo)",
        "inScope(\"w\")": "a fixed origin condition on a numbered parameter (PostgreSQL undo)",
        "reverting": "a fixed condition on a change group's kind (PostgreSQL undo)",
        "Self.whereClause(countConditions)": "conditions from PostgresFetchPlan's fixed set, with numbered parameters",
        "Self.whereClause(countConditions + own)": "conditions from PostgresFetchPlan's fixed set, with numbered parameters",
        "whereSQL": "conditions from PostgresFetchPlan's fixed set, with numbered parameters",
        "count + 1": "a parameter number",
        "count + 2": "a parameter number",
    ]

    @Test func sourcesSpliceOnlyFixedFragmentsIntoSQL() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        let sql = try NSRegularExpression(pattern: #"\b(SELECT|INSERT|UPDATE|DELETE|PRAGMA|CREATE|WHERE|VALUES|ORDER BY|LIMIT|DESC|ASC)\b|= \?|\(\?"#)
        var checked = 0
        var unexpected: [String] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                guard !line.trimmingCharacters(in: .whitespaces).hasPrefix("//"),
                    sql.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
                else { continue }
                for expression in Self.interpolations(in: line) {
                    checked += 1
                    if Self.allowedInSQL[expression] == nil { unexpected.append("\(file):\(number + 1): \\(\(expression))") }
                }
            }
        }
        #expect(checked >= 15, "the scan found too little to be working: \(checked)")
        #expect(unexpected.isEmpty, "spliced into SQL, and not a known fixed fragment: \(unexpected)")
    }

    /// The expressions of the `\( … )` interpolations in a line.
    static func interpolations(in line: String) -> [String] {
        var found: [String] = []
        let characters = Array(line)
        var index = 0
        while index + 1 < characters.count {
            guard characters[index] == "\\", characters[index + 1] == "(" else {
                index += 1
                continue
            }
            var depth = 1
            var end = index + 2
            while end < characters.count && depth > 0 {
                if characters[end] == "(" { depth += 1 }
                if characters[end] == ")" { depth -= 1 }
                end += 1
            }
            found.append(String(characters[(index + 2)..<(end - 1)]))
            index = end
        }
        return found
    }
}

extension TaskStore {
    /// Calls `record` with the text of every statement SQLite runs on the store's connection, as
    /// prepared (with its `?`, never the values bound to them), trigger programs included.
    func traceStatements(_ record: @escaping @Sendable (String) -> Void) {
        let context = Unmanaged.passRetained(TraceSink(record)).toOpaque()
        sqlite3_trace_v2(
            database.handle, UInt32(SQLITE_TRACE_STMT),
            { _, context, _, text in
                guard let context, let text else { return 0 }
                Unmanaged<TraceSink>.fromOpaque(context).takeUnretainedValue().record(String(cString: text.assumingMemoryBound(to: CChar.self)))
                return 0
            }, context)
    }
}

private final class TraceSink: Sendable {
    let record: @Sendable (String) -> Void
    init(_ record: @escaping @Sendable (String) -> Void) { self.record = record }
}
