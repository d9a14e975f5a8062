import PostgreSQL
import TaskModel

/// `tasks/fetch` as SQL for PostgreSQL: the filter's conditions with their parameters, the
/// sort, and the keyset cursor (the sort-key values and id of a page's last task).
///
/// Sort keys that can be absent (`due`, `project`) put tasks without them last in either
/// order; `id`, by code point, breaks ties in the order of the last key.
///
/// A page of one sort key is read in the order of that key's index (PostgresSchema, schema
/// 4: `(key, id)`), a cursor being a row-value comparison `(key, id) > ($1, $2)` that is a
/// range of that index. Keys that can be absent are read in two runs: the tasks that have
/// the key, from its partial index (backwards for descending: its order is the key's with
/// the absent ones left out, where `NULLS LAST` backwards would put them first), then those
/// without it by id, from the primary key. The sorts by two keys in one direction that
/// taskline-bench measures (due and priority either way round, project and due) are read the
/// same way, from the indexes of schema 5, and so is priority then due date in opposite
/// directions (`taskline next`'s order), one run per priority; other sorts of several keys
/// are one query that PostgreSQL sorts.
struct PostgresFetchPlan {
    /// One stretch of a page's order: a page is read from the runs in turn until it is
    /// full, each run's tasks sorting after the earlier runs'.
    struct Run {
        /// `LIMIT` and `OFFSET` are the two parameters after `values`.
        var sql: String
        var values: [PostgresValue]
        /// Counts the run's tasks, with `values`: how much of an offset a run used up when
        /// it returned none.
        var countSQL: String
    }

    private var values: [PostgresValue] = []
    private var conditions: [String] = []
    private let sort: [SortKey]
    private var cursor: Cursor?
    /// Filters that only tasks with a due date or a project meet: no undated or projectless run.
    private var hasDueRange = false
    private var hasProjectFilter = false
    private let kept: KeptCount?
    /// Sorts by `task.project || ''`, the same order, which no index holds.
    private var sortsByProjectExpression = false

    /// The text's condition, with its numbered parameters, when a page reads the text's few
    /// tasks by their row ids (`source`) rather than with the other conditions.
    private var textTasksCondition: String?
    private var readsTextTasks: Bool { textTasksCondition != nil }
    /// The tasks a page reads: `task`, or a text's few tasks found in the trigram index (by
    /// their row ids), as `task`.
    private var source: String {
        textTasksCondition.map { "(SELECT * FROM task WHERE task.ctid = ANY(ARRAY(SELECT ctid FROM task WHERE \($0))) OFFSET 0) AS task" } ?? "task"
    }
    /// A count's conditions: a count has no LIMIT, and the planner reads the index for the
    /// text's condition unasked.
    private var countConditions: [String] { conditions + [textTasksCondition].compactMap { $0 } }
    private static let textCondition = "(task.title_fold LIKE $ OR task.notes_fold LIKE $)"
    /// A text's tasks the planner expects at most this many of are read from the trigram
    /// index and sorted (a bitmap of the index, the rows, a sort of the matching ones): up
    /// to this many stay within a page's budget (docs/decisions/0021-postgresql-trigram-index.md).
    static let fewTextTasks = 20_000

    /// Sorted by project alone, a due-date filter that holds at least this many tasks is
    /// checked along task_by_project, where a page's worth come soon; fewer are read from
    /// task_by_due and sorted.
    static let manyDueTasks = 10_000

    /// `connection` is asked how many tasks a due-date filter holds when the sort is by
    /// project alone, and how many a text is in: call it inside the transaction that reads
    /// the page. `textIndexed`: the schema has the trigram index (schema 10 makes it where
    /// pg_trgm is), from which a text's few tasks are then found for a page.
    init(query: TaskQuery, now: Int64, connection: PostgresConnection, textIndexed: Bool) throws {
        sort = query.sort
        let filter = query.filter
        kept = KeptCount(filter)
        try TaskRules.validateTags(filter.tags, field: "filter.tags")
        if !filter.tags.isEmpty {
            add("task.tags @> string_to_array($, chr(31))", [TaskRow.list(filter.tags)])
        }
        if let text = filter.text {
            try TaskRules.validateFilterText(text, field: "filter.text")
            // LIKE rather than strpos(): the trigram index (schema 10) answers LIKE.
            let pattern = PostgresValue.text("%" + Self.likeEscaped(TaskRules.folded(text)) + "%")
            if textIndexed, Self.hasTrigram(text), try Self.expectsFewTasks(matching: pattern, connection: connection) {
                // A page is read from among the text's tasks, found in the trigram index:
                // with a page's LIMIT the planner walks the sort's index, expecting the
                // matches spread along it, where a needle's tasks may all come late in the
                // sort's order (titles that share a prefix, by title). Taken
                // by their row ids, in a subquery `OFFSET 0` keeps whole, they leave it no
                // other index to start from; as an array made at run time (`ARRAY(SELECT
                // …)`), which it guesses at ten, it reads them by id, and sorts them in one
                // query whatever the order (`runs`). A count has no LIMIT: the planner reads
                // the index for it unasked. A needle in more tasks is left to the planner:
                // along the sort's index a page comes soon.
                textTasksCondition = Self.numbered(Self.textCondition, after: values.count)
                values += [pattern, pattern]
            } else {
                add(Self.textCondition, [pattern, pattern])
            }
        }
        if filter.dueAfter != nil || filter.dueBefore != nil {
            let after = try filter.dueAfter.map { try TaskRules.dueMilliseconds($0, field: "filter.dueAfter") }
            let before = try filter.dueBefore.map { try TaskRules.dueMilliseconds($0, field: "filter.dueBefore") }
            let values = [after, before].compactMap { $0 }.map(PostgresValue.integer)
            let range = { (column: String) in
                [after.map { _ in "\(column) >= $" }, before.map { _ in "\(column) < $" }].compactMap { $0 }.joined(separator: " AND ")
            }
            // Sorted by project alone, the planner reads the rest of the cursor's project from
            // task_by_project_due, which takes the range, and sorts it. A range of
            // many tasks is kept out of every index (`+ 0`) and checked along
            // task_by_project; one of few is read from task_by_due and sorted, the order
            // kept out of the project indexes (`sortsByProjectExpression`).
            var column = "task.due_at"
            if sort.count == 1, sort[0].field == .project {
                let count =
                    "SELECT count(*) AS n FROM (SELECT 1 FROM task WHERE \(Self.numbered(range("due_at"), after: 0)) LIMIT $\(values.count + 1)) AS dated"
                if try connection.query(count, values + [PostgresValue(Self.manyDueTasks)])[0].int("n") >= Self.manyDueTasks {
                    column = "(task.due_at + 0)"
                } else {
                    sortsByProjectExpression = true
                }
            }
            add(range(column), values)
            hasDueRange = true
        }
        if let project = filter.project {
            try TaskRules.validateProject(project, field: "filter.project")
            // The range holds the project and its subprojects ("Home" and "Home.…": in code
            // point order "." sorts just before "/") and is a range of task_by_project; the
            // exact condition leaves out the others in it ("Home-x").
            add(Self.projectCondition("task.project"), Self.projectRange(project))
            hasProjectFilter = true
        }
        if let blocked = filter.blocked {
            add(blocked ? "task.blocked_by > 0" : "task.blocked_by = 0", [])
        }
        if let waiting = filter.waiting {
            add(waiting ? "task.wait_at > $" : "(task.wait_at IS NULL OR task.wait_at <= $)", [.integer(now)])
        }
        if let ids = filter.ids {
            guard ids.count <= TaskFilter.maxIDs else {
                throw TaskStoreError.invalid(field: "filter.ids", reason: "at most \(TaskFilter.maxIDs) ids")
            }
            add("task.id = ANY(string_to_array($, chr(31)))", [TaskRow.list(ids)])
        }
        if let done = filter.done {
            add("task.done = $", [.boolean(done)])
        }
        if let encoded = query.cursor {
            guard let cursor = Cursor(encoded: encoded, sort: sort) else {
                throw TaskStoreError.invalid(field: "cursor", reason: "not a cursor from a fetch with this sort")
            }
            self.cursor = cursor
        }
    }

    /// A project and those under it in `column`, with `projectRange`'s values.
    static func projectCondition(_ column: String) -> String {
        "\(column) >= $ AND \(column) < $ AND (\(column) = $ OR starts_with(\(column), $))"
    }

    static func projectRange(_ project: String) -> [PostgresValue] {
        [.text(project), .text(project + "/"), .text(project), .text(project + ".")]
    }

    /// Whether the planner expects at most `fewTextTasks` tasks to hold `pattern`.
    private static func expectsFewTasks(matching pattern: PostgresValue, connection: PostgresConnection) throws -> Bool {
        let plan = try connection.query("EXPLAIN SELECT 1 FROM task WHERE " + numbered(textCondition, after: 0), [pattern, pattern])
        let estimate = try plan.first.flatMap { try $0.text("QUERY PLAN").firstMatch(of: /rows=(\d+)/).flatMap { Int($0.output.1) } }
        return estimate.map { $0 <= fewTextTasks } ?? false
    }

    /// Whether `text` holds three letters or digits in a row. pg_trgm takes its trigrams from
    /// the words of a text, runs of letters and digits: a needle without such a run gives
    /// the index nothing to look up, and read from it, every entry is read: more than
    /// reading the tasks.
    static func hasTrigram(_ text: String) -> Bool {
        var run = 0
        for scalar in text.unicodeScalars {
            run = scalar.properties.isAlphabetic || scalar.properties.numericType != nil ? run + 1 : 0
            if run == 3 { return true }
        }
        return false
    }

    /// `text` matched literally by LIKE: its escape character (a backslash) and wildcards escaped.
    static func likeEscaped(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            if scalar == "\\" || scalar == "%" || scalar == "_" { escaped.unicodeScalars.append("\\") }
            escaped.unicodeScalars.append(scalar)
        }
        return escaped
    }

    /// Adds a filter condition, each `$` in it numbered after the parameters so far.
    private mutating func add(_ condition: String, _ parameters: [PostgresValue]) {
        conditions.append(Self.numbered(condition, after: values.count))
        values += parameters
    }

    /// `condition` with each `$` numbered, from `count + 1`.
    static func numbered(_ condition: String, after count: Int) -> String {
        var numbered = ""
        var next = count
        for character in condition {
            if character == "$" {
                next += 1
                numbered += "$\(next)"
            } else {
                numbered.append(character)
            }
        }
        return numbered
    }

    private static func whereClause(_ conditions: [String]) -> String {
        conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
    }

    /// Counts the tasks matching the filter, wherever the cursor is: from the kept counts
    /// when they hold it.
    var count: (sql: String, values: [PostgresValue]) {
        kept.map { ($0.sql, $0.values) } ?? ("SELECT count(*) AS n FROM task \(Self.whereClause(countConditions))", values)
    }

    /// The counts that, each times its sign, count `filter`, this plan's: the plan's own
    /// count for a filter of one term; for several (`TaskFilter.countTerms`), each term's by
    /// a plan of its own. `now` and `connection` as for the plan.
    func totalCounts(of filter: TaskFilter, now: Int64, connection: PostgresConnection) throws -> [(sql: String, values: [PostgresValue], sign: Int)]
    {
        let terms = filter.countTerms
        if terms.count == 1 { return [(count.sql, count.values, 1)] }
        return try terms.map { term in
            // Only counted: no text's tasks to find for a page (a count reads the index unasked).
            let count = try PostgresFetchPlan(query: TaskQuery(filter: term.filter), now: now, connection: connection, textIndexed: false).count
            return (count.sql, count.values, term.sign)
        }
    }

    /// The queries for the page, in order.
    var runs: [Run] {
        // A text's few tasks are sorted whole in one query: in runs, each would find them
        // in the index again.
        if readsTextTasks { return [severalKeysRun] }
        let after = cursor.map { (values: $0.values, id: PostgresValue.text($0.id)) }
        if sort.count == 1 {
            return oneKeyRuns(sort[0], after: after.map { ($0.values[0], $0.id) }, within: Condition())
        }
        guard sort.count == 2 else { return [severalKeysRun] }
        let oneDirection = sort[0].descending == sort[1].descending
        switch (sort[0].field, sort[1].field) {
        case (.priority, .due): return priorityAndDueRuns(after: after)
        case (.due, .priority) where oneDirection: return dueAndPriorityRuns(after: after)
        case (.project, .due) where oneDirection: return projectAndDueRuns(after: after)
        default: return [severalKeysRun]
        }
    }

    /// Conditions a run adds to the filter's, with the values of their `$`s in order.
    private struct Condition {
        var sql: [String] = []
        var values: [PostgresValue] = []

        func and(_ condition: String, _ parameters: [PostgresValue] = []) -> Condition {
            Condition(sql: sql + [condition], values: values + parameters)
        }
    }

    /// `task.<key> <after> $` for the direction of the sort's first key (the runs that
    /// compare two keys at once read only sorts whose keys share a direction).
    private var after: String { Self.after(sort[0]) }

    private static func after(_ key: SortKey) -> String { key.descending ? "<" : ">" }

    private func order(_ columns: [String]) -> String {
        let direction = sort.last!.descending ? "DESC" : "ASC"
        let columns = sortsByProjectExpression ? columns.map { $0 == "task.project" ? "(task.project || '')" : $0 } : columns
        return (columns + ["task.id"]).map { "\($0) \(direction)" }.joined(separator: ", ")
    }

    private func run(_ condition: Condition, order: String) -> Run {
        run(condition.sql, condition.values, order: order)
    }

    /// The tasks meeting `condition`, by one key, after `after` (the key's value and the
    /// id), from the key's index in order. Keys that can be absent are two runs: the tasks
    /// that have the key, then those without it, by id.
    private func oneKeyRuns(_ key: SortKey, after cursor: (value: PostgresValue, id: PostgresValue)?, within condition: Condition) -> [Run] {
        let column = Self.column(key.field)
        let after = Self.after(key)
        let keyset = "(\(column), task.id) \(after) ($, $)"
        guard key.field == .due || key.field == .project else {
            guard let cursor else { return [run(condition, order: order([column]))] }
            return [run(condition.and(keyset, [cursor.value, cursor.id]), order: order([column]))]
        }
        var runs: [Run] = []
        switch cursor?.value {
        case .null?:
            break  // The cursor is among the tasks without the key.
        case let value?:
            runs.append(run(condition.and("\(column) IS NOT NULL").and(keyset, [value, cursor!.id]), order: order([column])))
        case nil:
            runs.append(run(condition.and("\(column) IS NOT NULL"), order: order([column])))
        }
        if !(key.field == .due ? hasDueRange : hasProjectFilter) {
            let absent = condition.and("\(column) IS NULL")
            if let cursor, cursor.value == .null {
                runs.append(run(absent.and("task.id \(after) $", [cursor.id]), order: order([])))
            } else {
                runs.append(run(absent, order: order([])))
            }
        }
        return runs
    }

    /// By due date, then priority: the dated tasks along task_by_due_priority, then the
    /// undated ones by priority.
    private func dueAndPriorityRuns(after cursor: (values: [PostgresValue], id: PostgresValue)?) -> [Run] {
        var runs: [Run] = []
        let dated = Condition().and("task.due_at IS NOT NULL")
        switch cursor?.values[0] {
        case .null?:
            break
        case .some:
            runs.append(
                run(
                    dated.and("(task.due_at, task.priority, task.id) \(after) ($, $, $)", cursor!.values + [cursor!.id]),
                    order: order(["task.due_at", "task.priority"])))
        case nil:
            runs.append(run(dated, order: order(["task.due_at", "task.priority"])))
        }
        if !hasDueRange {
            let undatedCursor = cursor.flatMap { $0.values[0] == .null ? ($0.values[1], $0.id) : nil }
            runs += oneKeyRuns(sort[1], after: undatedCursor, within: Condition().and("task.due_at IS NULL"))
        }
        return runs
    }

    /// By priority, then due date, each in its own direction: for each priority, its tasks
    /// by due date (along task_by_priority_due, then by id from task_by_priority for the
    /// undated ones).
    private func priorityAndDueRuns(after cursor: (values: [PostgresValue], id: PostgresValue)?) -> [Run] {
        var priorities = Array(TaskRules.priorities)
        if sort[0].descending { priorities.reverse() }
        var runs: [Run] = []
        for priority in priorities.map({ PostgresValue.integer(Int64($0)) }) {
            if let cursor, cursor.values[0] != priority {
                guard case .integer(let at) = cursor.values[0], case .integer(let this) = priority else { continue }
                if sort[0].descending ? this > at : this < at { continue }
            }
            let within = cursor?.values[0] == priority ? cursor.map { ($0.values[1], $0.id) } : nil
            runs += oneKeyRuns(sort[1], after: within, within: Condition().and("task.priority = $", [priority]))
        }
        return runs
    }

    /// By project, then due date: the rest of the cursor's project, then the later projects
    /// in one run along task_by_project_due (ascending) or task_by_project_due_desc (whose
    /// undated tasks come first in each project: last, read backwards), then the tasks
    /// without a project by due date.
    private func projectAndDueRuns(after cursor: (values: [PostgresValue], id: PostgresValue)?) -> [Run] {
        let direction = sort[0].descending ? "DESC" : "ASC"
        let projectOrder = "task.project \(direction), task.due_at \(direction) NULLS LAST, task.id \(direction)"
        var runs: [Run] = []
        switch cursor?.values[0] {
        case .null?:
            break
        case let project?:
            runs += oneKeyRuns(sort[1], after: (cursor!.values[1], cursor!.id), within: Condition().and("task.project = $", [project]))
            runs.append(run(Condition().and("task.project \(after) $", [project]), order: projectOrder))
        case nil:
            runs.append(run(Condition().and("task.project IS NOT NULL"), order: projectOrder))
        }
        if !hasProjectFilter {
            let projectless = cursor.flatMap { $0.values[0] == .null ? ($0.values[1], $0.id) : nil }
            runs += oneKeyRuns(sort[1], after: projectless, within: Condition().and("task.project IS NULL"))
        }
        return runs
    }

    /// The filter's tasks that also meet `extra` (whose `$`s take `parameters`), in `order`.
    private func run(_ extra: [String], _ parameters: [PostgresValue], order: String) -> Run {
        let own = extra.isEmpty ? [] : [Self.numbered(extra.joined(separator: " AND "), after: values.count)]
        let whereSQL = Self.whereClause(conditions + own)
        let count = values.count + parameters.count
        return Run(
            sql: """
                SELECT \(TaskRow.columns) FROM \(source) \(whereSQL)
                ORDER BY \(order) LIMIT $\(count + 1) OFFSET $\(count + 2)
                """,
            values: values + parameters,
            countSQL: "SELECT count(*) AS n FROM task \(Self.whereClause(countConditions + own))")
    }

    /// A sort of several keys, sorted by PostgreSQL: a cursor says "after" as, for some key,
    /// all keys before it equal and it after; or all keys equal and the id after.
    private var severalKeysRun: Run {
        let order =
            (sort.map { key in
                "\(Self.column(key.field)) \(key.descending ? "DESC" : "ASC") NULLS LAST"
            } + ["task.id \(sort.last!.descending ? "DESC" : "ASC")"]).joined(separator: ", ")
        guard let cursor else { return run([], [], order: order) }
        var alternatives: [String] = []
        var parameters: [PostgresValue] = []
        var equal: [String] = []
        var equalParameters: [PostgresValue] = []
        for (key, value) in zip(sort, cursor.values) {
            let column = Self.column(key.field)
            let comparison = key.descending ? "<" : ">"
            if value != .null {
                alternatives.append("(" + (equal + ["(\(column) \(comparison) $ OR \(column) IS NULL)"]).joined(separator: " AND ") + ")")
                parameters += equalParameters + [value]
                equal.append("\(column) = $")
                equalParameters.append(value)
            } else {
                // Nothing comes after an absent value but other absent ones.
                equal.append("\(column) IS NULL")
            }
        }
        let idComparison = sort.last!.descending ? "<" : ">"
        alternatives.append("(" + (equal + ["task.id \(idComparison) $"]).joined(separator: " AND ") + ")")
        parameters += equalParameters + [.text(cursor.id)]
        return run(["(" + alternatives.joined(separator: " OR ") + ")"], parameters, order: order)
    }

    /// The column a sort field orders by: titles lowercased, times in ms.
    private static func column(_ field: SortKey.Field) -> String {
        switch field {
        case .createdAt: "task.created_at"
        case .updatedAt: "task.updated_at"
        case .due: "task.due_at"
        case .priority: "task.priority"
        case .title: "task.title_fold"
        case .project: "task.project"
        }
    }

    /// The sort key's value of `task`, as the column holds it.
    private static func value(of field: SortKey.Field, in task: TaskItem) -> PostgresValue {
        switch field {
        case .createdAt: .integer(task.createdAt)
        case .updatedAt: .integer(task.updatedAt)
        case .due: PostgresValue(task.due.flatMap(Timestamp.parse))
        case .priority: PostgresValue(task.priority)
        case .title: .text(TaskRules.folded(task.title))
        case .project: PostgresValue(task.project)
        }
    }

    func cursor(after task: TaskItem) -> String {
        Cursor(values: sort.map { Self.value(of: $0.field, in: task) }, id: task.id).encoded(sort: sort)
    }
}

/// Where a page ended: the sort-key values and the id of its last task, with the sort they
/// belong to, in the one wire format (`PageCursor`).
private struct Cursor {
    var values: [PostgresValue]
    var id: String

    init(values: [PostgresValue], id: String) {
        self.values = values
        self.id = id
    }

    /// Nil for a string no store made, or one made for another sort.
    init?(encoded: String, sort: [SortKey]) {
        guard let cursor = PageCursor(encoded: encoded), cursor.signature == Self.signature(sort),
            cursor.values.count == sort.count + 1, case .text(let id) = cursor.values[sort.count]
        else { return nil }
        var values: [PostgresValue] = []
        for (key, value) in zip(sort, cursor.values) {
            guard let value = Self.decode(value, field: key.field) else { return nil }
            values.append(value)
        }
        self.init(values: values, id: id)
    }

    func encoded(sort: [SortKey]) -> String {
        PageCursor(signature: Self.signature(sort), values: values.map(Self.encode) + [.text(id)]).encoded
    }

    /// Unlike any signature of the SQLite store's, whose cursors this store refuses.
    private static func signature(_ sort: [SortKey]) -> String {
        "pg:" + sort.map { $0.field.rawValue + ($0.descending ? "-" : "+") }.joined(separator: ",")
    }

    private static func encode(_ value: PostgresValue) -> PageCursor.Value {
        switch value {
        case .integer(let number): .integer(number)
        case .text(let text): .text(text)
        default: .null
        }
    }

    /// A value of the type the field's column holds.
    private static func decode(_ value: PageCursor.Value, field: SortKey.Field) -> PostgresValue? {
        switch (value, field) {
        case (.null, .due), (.null, .project): .null
        case (.integer(let number), .createdAt), (.integer(let number), .updatedAt), (.integer(let number), .due),
            (.integer(let number), .priority):
            .integer(number)
        case (.text(let text), .title), (.text(let text), .project): .text(text)
        default: nil
        }
    }
}
