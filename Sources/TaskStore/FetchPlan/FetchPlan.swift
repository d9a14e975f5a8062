import SQLite
import TaskModel

/// Turns a validated `TaskQuery` into SQL and bound values.
///
/// Only the *shape* of the SQL depends on the query (which filters are present, which sort
/// fields, how many ids or tags); every value from the client is a bound parameter.
struct FetchPlan {
    /// A sort key's SQL expression and its direction.
    typealias SortExpression = (expression: String, descending: Bool)

    /// The columns `TaskColumns` reads (a page query adds its sort keys): a task's fields,
    /// its tags and dependencies each joined by U+001F, which no tag or id can contain.
    static let taskColumns =
        columnsBeforeSchema17 + ", task.tags, " + columnsOfSchema17 + ", " + columnsOfSchema18 + ", " + columnsOfSchema19 + ", "
        + columnsOfSchema41
    /// Those every schema version has, but the tags.
    static let columnsBeforeSchema17 =
        "task.pk, task.id, task.title, task.notes, task.done, task.priority, task.due, "
        + "task.created_at, task.updated_at, task.completed_at, task.version"
    static let columnsOfSchema17 = "task.project, task.wait, \(metaColumn) AS meta, task.depends_on"
    /// `meta` goes to clients as the JSON text it is, so it is read through SQLite's JSON
    /// functions: one another program stored that is not a JSON object reads as `{}`
    /// (`taskline check` reports it), and one with white space between tokens comes minified,
    /// on one line as NDJSON needs. Taskline's own text comes back byte for byte. Most tasks
    /// have no meta: `{}` is answered without parsing it three times.
    static let metaColumn = """
        CASE WHEN task.meta = '{}' THEN '{}' WHEN json_valid(task.meta) THEN CASE WHEN json_type(task.meta) = 'object' THEN json(task.meta) ELSE '{}' END ELSE '{}' END
        """
    static let columnsOfSchema18 = "task.recurrence, task.series_id"
    static let columnsOfSchema19 = "task.remind"
    static let columnsOfSchema41 = "task.annotations, task.started_at"

    /// A page query's sort keys are named `sort_key_0`, `sort_key_1`, … in its result.
    static let sortKeyPrefix = "sort_key_"
    static func sortKeyColumn(_ index: Int) -> String { sortKeyPrefix + String(index) }

    let sort: [SortKey]
    private(set) var whereClauses: [String] = []
    private(set) var whereValues: [SQLValue] = []
    /// How `includeTotal` counts, when a filter of one kind is read from what keeps its
    /// count (nil: the tasks matching the clauses are counted).
    private(set) var kept: KeptCount?
    /// The text filter's candidates in the index when they are too many for a page to read
    /// (`TextIndex.Candidates.few`) and the tasks are scanned in sort order instead: for a
    /// count, or a page whose scan found its tasks too late, to read if they are few enough
    /// (`TextIndex.reading`).
    private(set) var commonTextCandidates: String?
    /// The match whose candidates a page starts from, one after another, each task looked
    /// up by its key (`TextIndex.source`): a common text's whose scan found its tasks too
    /// late (`textFromIndex`). Its value is bound before the clauses' (`sourceValues`).
    private(set) var textSource: String?
    /// True when tasks are read through the first tag's taggings, which hold the default
    /// sort key: a sort by `createdAt` alone with a tags filter.
    private(set) var drivenByTag = false
    /// True when a page is the merge of the open tasks' and the done tasks' runs of
    /// `task_by_done`, each already in page order: a sort led by `createdAt`, with no
    /// `done` filter and no small set to start from. There is no index on `(created_at, id)`
    /// alone: every task written would pay for a leaf of it, and `task_by_done` holds the
    /// same order split in two.
    private(set) var mergesDoneRuns = false
    /// True when two of the filter's tags are on no task together: no task matches, and a
    /// page reads nothing, where it would check every task with the first tag (or every
    /// task along the sort order) for the others.
    private(set) var matchesNothing = false
    /// True when a clause yields a small set of tasks for SQLite to start from, which it
    /// sorts: no run needs to be split to be read in order from an index.
    private(set) var startsFromSmallSet = false
    /// True when the filter has `dueAfter` or `dueBefore`, which no undated task matches.
    private(set) var hasDueRange = false
    /// True when the filter has `project`, which no task without one matches.
    private(set) var hasProjectFilter = false
    /// For a sort whose runs read a filter's column in order (`addRangeReadInOrder`): the
    /// column, and the filter's bound on the side the runs start from, which the run of a
    /// first page adds (`run`). The filter's own copy of that bound is not one SQLite can
    /// start from (`+`): given both it and a cursor's, SQLite starts from the filter's
    /// and reads every task before the cursor. It names the filter's parameter by number,
    /// so that it needs no value of its own.
    private(set) var startBound: (column: String, clause: String)?
    /// Under a sort by priority, then due date, whether each priority's run is read from
    /// indexes led by the priority (`priorityRuns`): task_blocked_by_priority_due for the
    /// blocked tasks (`blockedIndex`), else task_dated_by_priority_due, then the undated
    /// tasks from task_by_priority. The waiting tasks, one in a hundred, are read along
    /// task_waiting_by_due with the priority checked.
    private(set) var priorityRunsReadPriorityIndex = false
    /// The index of the blocked tasks alone that holds the page's order, when the filter
    /// asks for them and the sort has one. SQLite, which has no statistics, takes the full
    /// index of the sort's order over a partial one and checks fifty times the rows: the
    /// plan names it.
    private(set) var blockedIndex: BlockedIndex?

    /// Partial indexes of the blocked tasks (one in 75), each in a sort's order.
    enum BlockedIndex: String {
        /// By creation time alone, the runs of `task_by_done`'s order. Named for a count as well,
        /// which has no order to choose by: that order is the taggings', whose probes then
        /// find their pages in the cache.
        case creation = "task_blocked"
        /// Each priority's run, in due order (`priorityRuns`).
        case priorityThenDue = "task_blocked_by_priority_due"
        /// Both runs of `dueRuns`, the dated tasks' and the undated ones', either way.
        case dueThenPriority = "task_blocked_by_due_priority"
        /// Both runs of `dueRuns` as well, under a sort by due date alone.
        case due = "task_blocked_by_due"
        /// Under a sort by project, then due date, ascending: the tasks with a project, then
        /// those without (the index's NULL range) by due date.
        case projectThenDue = "task_blocked_by_project_due_asc"
        /// The same descending, read backwards. Its key `due_sort_desc` holds the due-date
        /// order with the undated tasks last in one range, so the tasks without a project are
        /// one run, not `dueRuns`' two.
        case projectThenDueDescending = "task_blocked_by_project_due_desc"
        /// Under a sort by project alone, either way: the tasks with a project, then those
        /// without (the index's NULL range) by id.
        case project = "task_blocked_by_project"

        /// The blocked tasks' index for `sort`, if one holds its order.
        init?(_ sort: [SortKey], priorityRunsReadPriorityIndex: Bool) {
            let fields = sort.map(\.field)
            let oneDirection = sort.allSatisfy { $0.descending == sort[0].descending }
            switch fields {
            case [.priority, .due] where priorityRunsReadPriorityIndex: self = .priorityThenDue
            case [.due, .priority] where oneDirection: self = .dueThenPriority
            case [.due]: self = .due
            case [.project, .due] where oneDirection: self = sort[0].descending ? .projectThenDueDescending : .projectThenDue
            case [.project]: self = .project
            default: return nil
            }
        }
    }

    /// The sort key expressions, the id tie-breaker last, with their directions.
    let keys: [SortExpression]

    /// A project sorts as two keys, so that the tasks without one come last in either
    /// direction and every key has a value (a row-value comparison with NULL holds for no row).
    static let projectlessKey = "(task.project IS NULL)"
    static let projectKey = "coalesce(task.project, '')"

    /// Identifies the sort a cursor was made for.
    var signature: String {
        sort.map { "\($0.field.rawValue).\($0.descending ? "desc" : "asc")" }.joined(separator: ",")
    }

    /// Tasks few enough to be read from a filter's index and sorted whatever the file's size:
    /// the blocked, the waiting, the open or the done tasks are counted up to this many, and
    /// below it read; `smallSetLimit`, for tags, projects and due windows, is never lower.
    /// Scanning a large file for a rare filter costs far more than sorting this many tasks.
    static let fewTasks = 512

    /// Below this many tasks, a tag's (after the first, by creation time), a project's or a
    /// due window's tasks are read and sorted rather than checked along the sort order.
    /// Reading s of them costs about s lookups; finding a page of p along the order, about
    /// p × N / s, their tasks being spread along it among the N; the two meet at
    /// s = √(p × N), with p a page of 50 as lists show. Never below `fewTasks`
    /// (docs/decisions/0014-page-plans.md).
    static func smallSetLimit(in database: Database) throws -> Int {
        let tasks = try database.integer("SELECT coalesce(sum(count), 0) FROM task_total") ?? 0
        return max(fewTasks, Int(Double(50 * tasks).squareRoot()))
    }

    /// `database` is asked how common the filter's tags and the text's trigrams are (see
    /// `TextIndex`): call it inside the transaction that reads the page, so that the answer
    /// holds for the page. `now` (ms since the epoch) is what `waiting` is judged against.
    /// `textFromIndex` is a text's candidates in the trigram index, to be read however many
    /// they are (an earlier plan's `commonTextCandidates`).
    init(filter: TaskFilter, sort: [SortKey], now: Int64, database: Database, textFromIndex: String? = nil) throws {
        self.sort = sort
        keys = sort.flatMap(Self.expressions(for:)) + [("id", sort.last?.descending ?? false)]
        // Read in a run per priority, each along the due date (`priorityRuns`).
        let byPriorityThenDue = sort.count == 2 && sort[0].field == .priority && sort[1].field == .due
        priorityRunsReadPriorityIndex = byPriorityThenDue && filter.waiting != true
        try TaskRules.validateTags(filter.tags, field: "filter.tags")
        matchesNothing = try Self.someTwoShareNoTask(filter.tags, in: database)
        let text = try filter.text.map { text in
            try TaskRules.validateFilterText(text, field: "filter.text")
            let folded = TaskRules.folded(text)
            // A rare text's candidates are fewer than a tag's tasks: they are read, and the
            // tag checked on each, not every task of a common tag checked for the text.
            let candidates =
                try textFromIndex.map { TextIndex.Candidates(match: $0, few: true) }
                ?? TextIndex.candidates(for: folded, in: database)
            return (folded: folded, candidates: candidates)
        }
        let dueWindow = try Self.dueWindow(of: filter)
        // Asked for once, by the first filter that needs it.
        var knownSmallSetLimit: Int?
        func smallSetLimit() throws -> Int {
            if let known = knownSmallSetLimit { return known }
            let limit = try Self.smallSetLimit(in: database)
            knownSmallSetLimit = limit
            return limit
        }
        try addTags(filter, textIsFew: text?.candidates?.few == true, dueWindow: dueWindow, limit: smallSetLimit, in: database)
        if let text { addText(text.folded, candidates: text.candidates, fromIndex: textFromIndex != nil) }
        if let dueWindow {
            try addDueWindow(dueWindow, byPriorityThenDue: byPriorityThenDue, limit: smallSetLimit, in: database)
        }
        if let project = filter.project { try addProject(project, limit: smallSetLimit, in: database) }
        if let blocked = filter.blocked { try addBlocked(blocked, in: database) }
        if let waiting = filter.waiting { try addWaiting(waiting, now: now, in: database) }
        if let ids = filter.ids { try addIDs(ids) }
        if let done = filter.done { try addDone(done, in: database) }
        mergesDoneRuns = sort.first?.field == .createdAt && filter.done == nil && !startsFromSmallSet
        hasDueRange = filter.dueAfter != nil || filter.dueBefore != nil
        // A small set is read first and sorted, from no index the plan names.
        if startsFromSmallSet { blockedIndex = nil }
        kept = KeptCount(filter, textIsCommon: commonTextCandidates != nil || textFromIndex != nil, dueWindow: dueWindow)
    }

    /// Sorted by creation time alone.
    private var byCreationAlone: Bool { sort.count == 1 && sort[0].field == .createdAt }

    /// The tags: the first one's taggings drive the page when they hold its order; each
    /// other rare one is a small set; a common one is checked on each task.
    private mutating func addTags(
        _ filter: TaskFilter, textIsFew: Bool, dueWindow: (after: Int64, before: Int64)?,
        limit smallSetLimit: () throws -> Int, in database: Database
    ) throws {
        var tags = filter.tags[...]
        // The blocked or the waiting tasks are fewer than a common tag's, and in creation
        // order in their own indexes: read from there, each one's tags are checked, rather
        // than every task of a common tag's taggings looked up.
        let readsTheFewInCreationOrder = byCreationAlone && (filter.blocked == true || filter.waiting == true)
        if byCreationAlone, let first = tags.first, !readsTheFewInCreationOrder, !textIsFew,
            try !Self.projectOrWindowHoldsFew(filter, dueWindow: dueWindow, limit: smallSetLimit, in: database)
        {
            // The tag's index gives its tasks in page order, however many or few they are.
            add("task_tag.tag = ?", [.text(first)])
            drivenByTag = true
            startsFromSmallSet = true
            tags = tags.dropFirst()
        }
        for tag in tags {
            if try Self.taggedCount(tag, in: database) < smallSetLimit() {
                add("task.pk IN (SELECT task_pk FROM task_tag WHERE tag = ?)", [.text(tag)])
                startsFromSmallSet = true
            } else if readsTheFewInCreationOrder {
                // A probe of task_tag's key, in the order of its task keys: a count then
                // reads no task's row, where a check of the row's tags reads one at random.
                add("EXISTS (SELECT 1 FROM task_tag AS tagged WHERE tagged.tag = ? AND tagged.task_pk = task.pk)", [.text(tag)])
            } else {
                // Checked on the row's own copy of its tags, not with a lookup in task_tag
                // per task scanned, which costs more than the rest of the page.
                // The plain instr() is a cheap necessary condition; the delimited one decides.
                add(
                    "instr(task.tags, ?) > 0 AND instr(char(31) || task.tags || char(31), ?) > 0",
                    [.text(tag), .text("\u{1F}" + tag + "\u{1F}")])
            }
        }
    }

    /// The text, `folded`: instr() takes its needle literally (no LIKE wildcards to escape)
    /// and decides; the trigram index's `candidates` only narrow the tasks it looks at.
    /// `fromIndex`: the candidates are to be read however many they are.
    private mutating func addText(_ folded: String, candidates: TextIndex.Candidates?, fromIndex: Bool) {
        if let candidates {
            if candidates.few {
                // Read from the index as the tasks to start from, the candidates cost less
                // than as an IN that SQLite fills first, but SQLite then cannot start from
                // another small set instead: only a scan that found nothing early, which
                // had no other small set, does so.
                if fromIndex && !startsFromSmallSet {
                    textSource = candidates.match
                } else {
                    add(TextIndex.clause, [.text(candidates.match)])
                }
                startsFromSmallSet = true
            } else {
                commonTextCandidates = candidates.match
            }
        }
        add("(instr(title_fold, ?) > 0 OR instr(notes_fold, ?) > 0)", [.text(folded), .text(folded)])
    }

    /// The due window: read in order by the sorts whose runs read task_by_due_asc in order
    /// (led by due, or by priority and then due, one run per priority, unless a small set is
    /// sorted); otherwise a small set when it holds few tasks.
    private mutating func addDueWindow(
        _ window: (after: Int64, before: Int64), byPriorityThenDue: Bool,
        limit smallSetLimit: () throws -> Int, in database: Database
    ) throws {
        let values: [SQLValue] = [.integer(window.after), .integer(window.before)]
        let dueKey = sort.first?.field == .due ? sort.first : byPriorityThenDue && !startsFromSmallSet ? sort[1] : nil
        if let dueKey {
            addRangeReadInOrder(Schema.dueAscendingKey, descending: dueKey.descending, values)
        } else {
            let few = try Self.windowHoldsFew(after: window.after, before: window.before, limit: smallSetLimit(), in: database)
            addSelective(Self.windowCondition, column: Schema.dueAscendingKey, values: values, few: few)
        }
    }

    /// The project and those under it: read in order under a sort led by project; otherwise
    /// a small set when it holds few tasks.
    private mutating func addProject(_ project: String, limit smallSetLimit: () throws -> Int, in database: Database) throws {
        try TaskRules.validateProject(project, field: "filter.project")
        let range = Self.projectRange(project)
        if let first = sort.first, first.field == .project {
            addRangeReadInOrder("task.project", descending: first.descending, range, then: "(task.project = ? OR task.project > ?)")
        } else {
            let few = try Self.projectHoldsFew(project, limit: smallSetLimit(), in: database)
            addSelective(Self.projectCondition, column: "project", values: range, few: few)
        }
        hasProjectFilter = true
    }

    /// task_blocked holds the blocked tasks in task_by_done's order: pages by creation time
    /// read them in order, as few as they are; a sort one of its partial indexes holds reads
    /// that; otherwise a few are read and sorted, and many checked along the order. The
    /// tasks not blocked are most of them: checked.
    private mutating func addBlocked(_ blocked: Bool, in database: Database) throws {
        if blocked && sort.first?.field == .createdAt {
            add("task.blocked_by > 0", [])
            if byCreationAlone { blockedIndex = .creation }
        } else if blocked, let index = BlockedIndex(sort, priorityRunsReadPriorityIndex: priorityRunsReadPriorityIndex) {
            add("task.blocked_by > 0", [])
            blockedIndex = index
        } else if blocked {
            let few = try Self.count("blocked_by > 0", [], upTo: Self.fewTasks, in: database) < Self.fewTasks
            addSelective({ "\($0) > 0" }, column: "blocked_by", values: [], few: few)
        } else {
            add("+task.blocked_by = 0", [])
        }
    }

    /// task_by_wait holds the waiting tasks in task_by_done's order, read as for the blocked
    /// ones; the tasks not waiting are checked.
    private mutating func addWaiting(_ waiting: Bool, now: Int64, in database: Database) throws {
        if waiting && sort.first?.field == .createdAt {
            add("task.wait_at > ?", [.integer(now)])
        } else if waiting {
            let few = try Self.count("wait_at > ?", [.integer(now)], upTo: Self.fewTasks, in: database) < Self.fewTasks
            addSelective({ "\($0) > ?" }, column: "wait_at", values: [.integer(now)], few: few)
        } else {
            add("(+task.wait_at IS NULL OR +task.wait_at <= ?)", [.integer(now)])
        }
    }

    /// The ids: a small set, read by the key.
    private mutating func addIDs(_ ids: [String]) throws {
        guard ids.count <= TaskFilter.maxIDs else {
            throw TaskStoreError.invalid(field: "filter.ids", reason: "at most \(TaskFilter.maxIDs) ids")
        }
        if ids.isEmpty {
            add("0", [])
        } else {
            add("id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))", ids.map(SQLValue.text))
        }
        startsFromSmallSet = true
    }

    /// task_by_done is read when it holds the page's order (a sort led by createdAt) or when
    /// few tasks are in that state (`task_total` counts them); otherwise each task along the
    /// sort's own index is checked, where a page's worth come soon. SQLite, which has no
    /// statistics here, would prefer task_by_done: `+` keeps it out.
    private mutating func addDone(_ done: Bool, in database: Database) throws {
        let readsIndex = try !startsFromSmallSet && (sort.first?.field == .createdAt || Self.total(done: done, in: database) < Self.fewTasks)
        add(readsIndex ? "done = ?" : "+done = ?", [SQLValue(done)])
    }

    private mutating func add(_ clause: String, _ values: [SQLValue]) {
        whereClauses.append(clause)
        whereValues += values
    }

    /// Adds `column >= ? AND column < ?` (and `condition`, when given) for runs that read
    /// `column` in order, backwards when `descending`: the bound they start from is kept
    /// from SQLite here and made the first page's (`startBound`). `values` are the two
    /// bounds, then `condition`'s.
    private mutating func addRangeReadInOrder(_ column: String, descending: Bool, _ values: [SQLValue], then condition: String? = nil) {
        let parameter = sourceValues.count + whereValues.count + (descending ? 2 : 1)
        startBound = (column, descending ? "\(column) < ?\(parameter)" : "\(column) >= ?\(parameter)")
        let (lower, upper) = descending ? (column, "+" + column) : ("+" + column, column)
        add("\(lower) >= ? AND \(upper) < ?" + (condition.map { " AND " + $0 } ?? ""), values)
    }

    /// The filter's due window in ms, on the key task_by_due_asc holds, whose undated tasks
    /// all have its largest value; nil without one.
    static func dueWindow(of filter: TaskFilter) throws -> (after: Int64, before: Int64)? {
        guard filter.dueAfter != nil || filter.dueBefore != nil else { return nil }
        let after = try filter.dueAfter.map { try TaskRules.dueMilliseconds($0, field: "filter.dueAfter") } ?? Int64.min
        let before = try filter.dueBefore.map { try TaskRules.dueMilliseconds($0, field: "filter.dueBefore") } ?? Int64.max
        return (after, before)
    }

    static func windowCondition(_ column: String) -> String { "\(column) >= ? AND \(column) < ?" }

    /// Whether the filter's project or due window holds fewer tasks than `smallSetLimit`:
    /// then a page by creation time starts from them, not from a common tag's taggings in
    /// that order, each checked for the project or the window.
    static func projectOrWindowHoldsFew(
        _ filter: TaskFilter, dueWindow: (after: Int64, before: Int64)?,
        limit smallSetLimit: () throws -> Int, in database: Database
    ) throws -> Bool {
        guard filter.project != nil || dueWindow != nil else { return false }
        let limit = try smallSetLimit()
        if let project = filter.project, try projectHoldsFew(project, limit: limit, in: database) { return true }
        if let (after, before) = dueWindow, try windowHoldsFew(after: after, before: before, limit: limit, in: database) { return true }
        return false
    }

    /// How many tasks `tag` is on, as `tag_total` keeps it.
    static func taggedCount(_ tag: String, in database: Database) throws -> Int {
        try database.cachedStatement("SELECT coalesce((SELECT count FROM tag_total WHERE tag = ?), 0)").firstRow([.text(tag)]) { $0.int(0) } ?? 0
    }

    /// Whether `project` and those under it hold fewer than `limit` tasks, as `project_total`
    /// counts them.
    static func projectHoldsFew(_ project: String, limit: Int, in database: Database) throws -> Bool {
        let tasks =
            try database.cachedStatement("SELECT coalesce(sum(count), 0) FROM project_total WHERE " + projectCondition("project"))
            .firstRow(projectRange(project)) { $0.int(0) } ?? 0
        return tasks < limit
    }

    /// Whether fewer than `limit` tasks are due in the window, counted in task_by_due_asc up
    /// to `limit`.
    static func windowHoldsFew(after: Int64, before: Int64, limit: Int, in database: Database) throws -> Bool {
        try count(windowCondition(Schema.dueAscendingKey), [.integer(after), .integer(before)], upTo: limit, in: database) < limit
    }

    /// How many tasks meet `condition`, counted up to `limit`.
    static func count(_ condition: String, _ values: [SQLValue], upTo limit: Int, in database: Database) throws -> Int {
        try database.cachedStatement("SELECT count(*) FROM (SELECT 1 FROM task WHERE \(condition) LIMIT ?)")
            .firstRow(values + [.integer(Int64(limit))]) { $0.int(0) } ?? 0
    }

    /// A condition on an indexed column (`project`), decided as for tags: when `few` tasks
    /// meet it, they are read from the index and sorted; otherwise each task along the sort
    /// order is checked (`+` keeps SQLite from the index), where a page's worth come soon.
    private mutating func addSelective(
        _ condition: (String) -> String, column: String, values: [SQLValue],
        few: Bool
    ) {
        if few {
            add("task.pk IN (SELECT pk FROM task WHERE \(condition(column)))", values)
            startsFromSmallSet = true
        } else {
            add(condition("+task." + column), values)
        }
    }

    /// `Home` and what sorts after `Home.` and before `Home/` ('/' follows '.'): an index
    /// range over `Home` … `Home/`, less the projects such as `Home-x` in it.
    static func projectCondition(_ column: String) -> String {
        "\(column) >= ? AND \(column) < ? AND (\(column) = ? OR \(column) > ?)"
    }

    /// `projectCondition`'s values for `project`.
    static func projectRange(_ project: String) -> [SQLValue] {
        [.text(project), .text(project + "/"), .text(project), .text(project + ".")]
    }

    /// Whether two of `tags` are on no task together: `tag_pair_total` has a row for every
    /// two tags some task has.
    static func someTwoShareNoTask(_ tags: [String], in database: Database) throws -> Bool {
        let distinct = Array(Set(tags))
        guard distinct.count >= 2 else { return false }
        let pair = try database.cachedStatement("SELECT 1 FROM tag_pair_total WHERE tag = min(?1, ?2) AND other = max(?1, ?2)")
        for (index, tag) in distinct.enumerated() {
            for other in distinct[(index + 1)...] {
                if try pair.firstRow([.text(tag), .text(other)], { _ in true }) == nil { return true }
            }
        }
        return false
    }

    /// How many tasks are done (or not), as `task_total` keeps them.
    static func total(done: Bool, in database: Database) throws -> Int {
        try database.cachedStatement("SELECT count FROM task_total WHERE done = ?").firstRow([SQLValue(done)]) { $0.int(0) } ?? 0
    }
}
