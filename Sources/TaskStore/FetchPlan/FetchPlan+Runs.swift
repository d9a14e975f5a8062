import SQLite
import TaskModel

/// Reading a page: the runs of the sort's order, their SQL, the keyset after a cursor, and
/// whether a cursor belongs to the plan.
extension FetchPlan {
    var backwards: [SortExpression] {
        keys.map { (expression: $0.expression, descending: !$0.descending) }
    }

    /// `sql` with the `+` taken off its columns. A page's clauses keep SQLite from their
    /// indexes so that it reads the sort order; a count has no order to keep, and counts
    /// fastest from those indexes.
    static func unplussed(_ sql: String) -> String {
        sql.replacing(/(^|[ (])\+(?=[a-z])/) { $0.output.1 }
    }

    /// CROSS JOIN keeps SQLite reading the taggings first, in their index's order.
    var source: String {
        if let blockedIndex { return "task INDEXED BY " + blockedIndex.rawValue }
        if drivenByTag { return "task_tag CROSS JOIN task ON task.pk = task_tag.task_pk" }
        return textSource == nil ? "task" : TextIndex.source
    }

    /// `source`'s values, bound before the clauses'.
    var sourceValues: [SQLValue] {
        textSource.map { [.text($0)] } ?? []
    }

    /// One stretch of a page's order. A page is read from its plan's runs in turn, until
    /// it is full: the later runs' tasks all sort after the earlier runs' tasks.
    struct Run {
        /// `FROM …`, then each arm's `WHERE …`: one, or a merge's two (UNION ALL).
        fileprivate let source: String
        fileprivate let arms: [String]
        /// `ORDER BY …` of the whole query.
        fileprivate let order: String
        /// The sort keys, each `AS` its `sortKeyColumn`.
        fileprivate let keyColumns: String
        var values: [SQLValue]
        /// The run's own clauses, for `countSQL(of:)`.
        var clauses: [String]
        /// Whether SQLite sorts the run's tasks (a small set's) rather than reading them in
        /// order: the page's tasks are then sorted by their keys alone, and only those of the
        /// page read whole (`sql`).
        fileprivate var sortsKeysFirst = false

        private static let taskColumnsBeforeKeys = FetchPlan.taskColumns + ", "

        /// The tasks and their sort keys; `LIMIT ?` is its last parameter.
        var sql: String {
            var sql = ""
            guard sortsKeysFirst else {
                appendQuery(to: &sql, columnsBeforeKeys: Self.taskColumnsBeforeKeys)
                sql += " LIMIT ?"
                return sql
            }
            // SQLite's sorter holds every column selected, of every row it is given: sort
            // the keys alone, then read the page's tasks whole.
            sql += "SELECT " + FetchPlan.taskColumns + ", page.* FROM ("
            appendQuery(to: &sql, columnsBeforeKeys: "task.pk AS page_pk, ")
            sql += " LIMIT ?) AS page CROSS JOIN task ON task.pk = page.page_pk"
            sql += order
            return sql
        }

        /// The sort keys alone, of the one task `OFFSET ?` (its last parameter) finds: what
        /// an offset is turned into a cursor with. With only the keys to read, an index that
        /// holds them answers without a lookup of each skipped task's row. Made only for an
        /// offset, not for every page.
        var keysSQL: String {
            var sql = ""
            appendQuery(to: &sql, columnsBeforeKeys: "")
            sql += " LIMIT 1 OFFSET ?"
            return sql
        }

        /// A page's SQL is built for every request: appended in place into one string with
        /// room for it all, it costs a fraction of joining its pieces pair by pair.
        private func appendQuery(to sql: inout String, columnsBeforeKeys columns: String) {
            var length = order.utf8.count + 64
            for arm in arms { length += 18 + columns.utf8.count + keyColumns.utf8.count + source.utf8.count + arm.utf8.count }
            sql.reserveCapacity(sql.utf8.count + length)
            for (index, arm) in arms.enumerated() {
                if index > 0 { sql += " UNION ALL " }
                sql += "SELECT "
                sql += columns
                sql += keyColumns
                sql += source
                sql += arm
            }
            sql += order
        }
    }

    /// The queries for the page after `cursor` (none: the first page), in order.
    func pageRuns(after cursor: Cursor?) -> [Run] {
        guard !matchesNothing else { return [] }
        // Read through the taggings, the keys are their copies: those are what the index orders.
        let keys =
            drivenByTag
            ? self.keys.map { (expression: $0.expression == "id" ? "task_tag.task_id" : "task_tag.\($0.expression)", $0.descending) }
            : self.keys
        return runs(fixed: [], keys: keys, after: cursor?.values, extra: [])
    }

    /// The runs that read the tasks meeting the filter and `extra` in the order of `keys`,
    /// after `cursorValues` (values of `keys`; nil: from the start). `fixed` are the sort
    /// keys before `keys`, which an outer split holds to one value: selected first, so that
    /// a cursor holds every key.
    func runs(fixed: [SortExpression], keys: [SortExpression], after cursorValues: [SQLValue]?, extra: [String]) -> [Run] {
        let leading = keys[0].expression
        if leading == "priority" && keys.count > 2 && !startsFromSmallSet {
            return priorityRuns(fixed: fixed, keys: keys, after: cursorValues, extra: extra)
        }
        if leading == Self.projectlessKey {
            return projectRuns(fixed: fixed, keys: keys, after: cursorValues, extra: extra)
        }
        if (leading == Schema.dueAscendingKey || leading == Schema.dueDescendingKey) && (keys[0].descending || keys.count > 2) && !startsFromSmallSet
            && blockedIndex != .projectThenDueDescending
        {
            return dueRuns(fixed: fixed, keys: keys, after: cursorValues, extra: extra)
        }
        return [run(selecting: fixed + keys, orderedBy: keys, after: cursorValues, extra: extra, merging: mergesDoneRuns && fixed.isEmpty)]
    }

    /// A sort led by `priority` and another key: a run for each priority, in the sort's
    /// order. Next by due date, each is read from indexes led by the priority
    /// (`priorityRunsReadPriorityIndex`): the blocked tasks' one range, or the dated tasks
    /// and then the undated ones (`dueRuns`). Otherwise each reads the next keys' order
    /// along their own index with the priority checked (`+`): read from task_by_priority
    /// instead, every task of a priority (a quarter of them, say) would be sorted by the
    /// next key.
    func priorityRuns(fixed: [SortExpression], keys: [SortExpression], after cursorValues: [SQLValue]?, extra: [String]) -> [Run] {
        let descending = keys[0].descending
        var cursorPriority: Int64?
        if case .integer(let priority)? = cursorValues?.first { cursorPriority = priority }
        let priorityColumn = priorityRunsReadPriorityIndex ? "task.priority" : "+task.priority"
        var runs: [Run] = []
        for priority in descending ? TaskRules.priorities.reversed() : Array(TaskRules.priorities) {
            let priority = Int64(priority)
            if let cursorPriority, descending ? priority > cursorPriority : priority < cursorPriority { continue }
            let after = priority == cursorPriority ? cursorValues.map { Array($0.dropFirst()) } : nil
            let extra = extra + ["\(priorityColumn) = \(priority)"]
            if priorityRunsReadPriorityIndex && blockedIndex == nil {
                runs += dueRuns(fixed: fixed + [keys[0]], keys: Array(keys.dropFirst()), after: after, extra: extra, alongPriority: true)
            } else {
                runs += self.runs(fixed: fixed + [keys[0]], keys: Array(keys.dropFirst()), after: after, extra: extra)
            }
        }
        return runs
    }

    /// A sort led by `due` descending, or by `due` and another key: the dated tasks first,
    /// along task_by_due_asc (backwards for descending, where their key is the due date
    /// itself: schema 16 dropped the index that held this order in one piece,
    /// task_by_due_desc); then the undated ones, which share that index's largest key.
    /// Alone, they come from it in id order; with another sort key their order is that
    /// key's, read along its own index (`+` keeps SQLite from the due index, whose
    /// hundreds of thousands of equal keys it would otherwise sort).
    ///
    /// `alongPriority`: the runs are one priority's (`priorityRuns`), the dated tasks from
    /// task_dated_by_priority_due, which holds only them (a run names its clause, or SQLite
    /// could not use it), and the undated ones from task_by_priority, in id order.
    func dueRuns(
        fixed: [SortExpression], keys: [SortExpression], after cursorValues: [SQLValue]?, extra: [String],
        alongPriority: Bool = false
    ) -> [Run] {
        let descending = keys[0].descending
        let dated = descending ? [(expression: Schema.dueAscendingKey, descending: true)] + keys.dropFirst() : keys
        let undatedKey = cursorValues?.first == .integer(descending ? Schema.undatedDescendingKey : Int64.max)
        // From task_blocked_by_due_priority the undated tasks are its last range.
        let undatedClause = (keys.count > 2 && blockedIndex != .dueThenPriority) || alongPriority ? "+" + Schema.undatedClause : Schema.undatedClause
        var runs: [Run] = []
        if !undatedKey {
            // Backwards, a cursor among the dated tasks is itself the bound that keeps the
            // undated ones out: given the dated clause too, SQLite starts from that one, at
            // the newest due date, and reads down to the cursor. A due-date filter keeps
            // them out too, with the bound to start from (`startBound`).
            let bound = descending && cursorValues != nil || hasDueRange ? [] : [Schema.datedClause]
            let index = alongPriority ? [Schema.datedIndexClause] : []
            runs.append(run(selecting: fixed + dated, orderedBy: dated, after: cursorValues, extra: extra + bound + index))
        }
        if !hasDueRange {
            runs.append(
                run(
                    selecting: fixed + keys, orderedBy: Array(keys.dropFirst()),
                    after: undatedKey ? cursorValues.map { Array($0.dropFirst()) } : nil, extra: extra + [undatedClause]))
        }
        return runs
    }

    /// A sort led by `project`: the tasks with one, in project order from task_by_project
    /// (which holds only them), then those without, in the order of the other keys. The
    /// first key (`projectlessKey`) says which run a cursor is in.
    func projectRuns(fixed: [SortExpression], keys: [SortExpression], after cursorValues: [SQLValue]?, extra: [String]) -> [Run] {
        let projectless = cursorValues?.first == .integer(1)
        var runs: [Run] = []
        if !projectless {
            let order = [(expression: "task.project", descending: keys[1].descending)] + keys.dropFirst(2)
            runs.append(
                run(
                    selecting: fixed + keys, orderedBy: order, after: cursorValues.map { Array($0.dropFirst()) },
                    extra: extra + ["task.project IS NOT NULL"]))
        }
        if !hasProjectFilter {
            runs += self.runs(
                fixed: fixed + keys.prefix(2), keys: Array(keys.dropFirst(2)),
                after: projectless ? cursorValues.map { Array($0.dropFirst(2)) } : nil, extra: extra + ["task.project IS NULL"])
        }
        return runs
    }

    /// A query for the tasks after `cursorValues` (values of `order`; nil: from the start)
    /// among those matching the filter and `extra`, in the order of `order`, with the
    /// `selected` keys' values after each task's columns: what a cursor is made of.
    func run(
        selecting selected: [SortExpression], orderedBy order: [SortExpression], after cursorValues: [SQLValue]?,
        extra: [String] = [], merging: Bool = false
    ) -> Run {
        var extra = extra
        if cursorValues == nil, let startBound, order.first?.expression == startBound.column { extra.append(startBound.clause) }
        let clauses = extra
        var values = sourceValues + whereValues
        if let cursorValues {
            let (clause, bound) = Self.keyset(keys: order, after: cursorValues)
            extra.append(clause)
            values += bound
            // A row value of more keys than task_by_due_asc holds is no range of it, so
            // SQLite would start from the filter's bound: its first key is one.
            if order.first?.expression == Schema.dueAscendingKey && order.count > 2 {
                extra.append("\(Schema.dueAscendingKey) \(order[0].descending ? "<=" : ">=") ?")
                values.append(cursorValues[0])
            }
        }
        let keyColumns = Self.keyColumns(selected)
        guard merging else {
            return Run(
                source: " FROM " + source, arms: [whereSQL(extra: extra)], order: " ORDER BY " + Self.order(order),
                keyColumns: keyColumns, values: values, clauses: clauses, sortsKeysFirst: startsFromSmallSet && !drivenByTag)
        }
        // A compound's ORDER BY names result columns, here the sort keys by their names.
        // SQLite merges the two arms (EXPLAIN QUERY PLAN: MERGE (UNION ALL)), reading each
        // from task_by_done in order and no further than the page needs.
        let numbered = Self.order(order.indices.map { (Self.sortKeyColumn($0), order[$0].descending) })
        return Run(
            source: " FROM " + source, arms: [whereSQL(extra: ["task.done = 0"] + extra), whereSQL(extra: ["task.done = 1"] + extra)],
            order: " ORDER BY " + numbered, keyColumns: keyColumns, values: values + values, clauses: clauses)
    }

    /// `keys`, each `AS` its `sortKeyColumn`.
    static func keyColumns(_ keys: [SortExpression]) -> String {
        var columns = ""
        for (index, key) in keys.enumerated() {
            if index > 0 { columns += ", " }
            columns += key.expression
            columns += " AS "
            columns += sortKeyColumn(index)
        }
        return columns
    }

    static func order(_ keys: [SortExpression]) -> String {
        var order = ""
        for (index, key) in keys.enumerated() {
            if index > 0 { order += ", " }
            order += key.expression
            order += key.descending ? " DESC" : " ASC"
        }
        return order
    }

    func whereSQL(extra: [String]) -> String {
        var sql = ""
        for clauses in [whereClauses, extra] {
            for clause in clauses {
                sql += sql.isEmpty ? " WHERE " : " AND "
                sql += clause
            }
        }
        return sql
    }

    /// Rows strictly after `values` in the sort order. When every key has one direction a
    /// row-value comparison says it in one term that SQLite can answer from the index;
    /// mixed directions need the expanded form `(a > ?) OR (a = ? AND b < ?) OR …`.
    static func keyset(keys: [SortExpression], after values: [SQLValue]) -> (String, [SQLValue]) {
        if keys.allSatisfy({ $0.descending == keys[0].descending }) {
            var clause = "("
            for (index, key) in keys.enumerated() {
                if index > 0 { clause += ", " }
                clause += key.expression
            }
            clause += keys[0].descending ? ") < (?" : ") > (?"
            for _ in keys.dropFirst() { clause += ", ?" }
            clause += ")"
            return (clause, values)
        }
        var terms: [String] = []
        var bound: [SQLValue] = []
        for index in keys.indices {
            var parts: [String] = []
            for equal in 0..<index {
                parts.append("\(keys[equal].expression) = ?")
                bound.append(values[equal])
            }
            parts.append("\(keys[index].expression) \(keys[index].descending ? "<" : ">") ?")
            bound.append(values[index])
            terms.append("(" + parts.joined(separator: " AND ") + ")")
        }
        return ("(" + terms.joined(separator: " OR ") + ")", bound)
    }

    static func expressions(for key: SortKey) -> [SortExpression] {
        switch key.field {
        case .createdAt: [("created_at", key.descending)]
        case .updatedAt: [("updated_at", key.descending)]
        case .due: [(key.descending ? Schema.dueDescendingKey : Schema.dueAscendingKey, key.descending)]
        case .priority: [("priority", key.descending)]
        case .title: [("title_fold", key.descending)]
        case .project: [(projectlessKey, false), (projectKey, key.descending)]
        }
    }

    /// Checks a decoded cursor against this plan: the same sort, and values of the right types.
    func accepts(_ cursor: Cursor) -> Bool {
        guard cursor.signature == signature, cursor.values.count == keys.count else { return false }
        for (key, value) in zip(keys, cursor.values) {
            let isText = key.expression == "title_fold" || key.expression == "id" || key.expression == Self.projectKey
            switch value {
            case .text where isText, .integer where !isText: continue
            default: return false
            }
        }
        return true
    }
}
