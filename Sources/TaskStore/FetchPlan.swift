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
    static let taskColumns = columnsBeforeSchema17 + ", task.tags, " + columnsOfSchema17 + ", " + columnsOfSchema18 + ", " + columnsOfSchema19
    /// Those every schema version has, but the tags.
    static let columnsBeforeSchema17 = "task.pk, task.id, task.title, task.notes, task.done, task.priority, task.due, "
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

    /// A page query's sort keys are named `sort_key_0`, `sort_key_1`, … in its result.
    static let sortKeyPrefix = "sort_key_"
    static func sortKeyColumn(_ index: Int) -> String { sortKeyPrefix + String(index) }

    let sort: [SortKey]
    private(set) var whereClauses: [String] = []
    private(set) var whereValues: [SQLValue] = []
    /// How `includeTotal` counts, when a filter of one kind is read from what keeps its
    /// count (nil: the tasks matching the clauses are counted).
    private var kept: KeptCount?
    /// The text filter's candidates in the index when they are too many for a page to read
    /// (`TextIndex.Candidates.few`) and the tasks are scanned in sort order instead: for a
    /// count, or a page whose scan found its tasks too late, to read if they are few enough
    /// (`TextIndex.reading`).
    private(set) var commonTextCandidates: String?
    /// The match whose candidates a page starts from, one after another, each task looked
    /// up by its key (`TextIndex.source`): a common text's whose scan found its tasks too
    /// late (`textFromIndex`). Its value is bound before the clauses' (`sourceValues`).
    private var textSource: String?
    /// True when tasks are read through the first tag's taggings, which hold the default
    /// sort key: a sort by `createdAt` alone with a tags filter.
    private var drivenByTag = false
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
    private var startsFromSmallSet = false
    /// True when the filter has `dueAfter` or `dueBefore`, which no undated task matches.
    private var hasDueRange = false
    /// True when the filter has `project`, which no task without one matches.
    private var hasProjectFilter = false
    /// For a sort whose runs read a filter's column in order (`addRangeReadInOrder`): the
    /// column, and the filter's bound on the side the runs start from, which the run of a
    /// first page adds (`run`). The filter's own copy of that bound is not one SQLite can
    /// start from (`+`): given both it and a cursor's, SQLite starts from the filter's
    /// and reads every task before the cursor. It names the filter's parameter by number,
    /// so that it needs no value of its own.
    private var startBound: (column: String, clause: String)?
    /// Under a sort by priority, then due date, whether each priority's run is read from
    /// indexes led by the priority (`priorityRuns`): task_blocked_by_priority_due for the
    /// blocked tasks (`blockedIndex`), else task_dated_by_priority_due, then the undated
    /// tasks from task_by_priority. The waiting tasks, one in a hundred, are read along
    /// task_waiting_by_due with the priority checked.
    private var priorityRunsReadPriorityIndex = false
    /// The index of the blocked tasks alone that holds the page's order, when the filter
    /// asks for them and the sort has one. SQLite, which has no statistics, takes the full
    /// index of the sort's order over a partial one and checks fifty times the rows: the
    /// plan names it.
    private var blockedIndex: BlockedIndex?

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
        // Whether a clause yields a small set of tasks for SQLite to start from.
        var hasSmallSet = false
        try TaskRules.validateTags(filter.tags, field: "filter.tags")
        matchesNothing = try Self.someTwoShareNoTask(filter.tags, in: database)
        var tags = filter.tags[...]
        // The blocked or the waiting tasks are fewer than a common tag's, and in creation
        // order in their own indexes: read from there, each one's tags are checked, rather
        // than every task of a common tag's taggings looked up.
        let byCreationAlone = sort.count == 1 && sort[0].field == .createdAt
        let readsTheFewInCreationOrder = byCreationAlone && (filter.blocked == true || filter.waiting == true)
        // A rare text's candidates are fewer still than a tag's tasks: they are read, and
        // the tag checked on each, not every task of a common tag checked for the text.
        let folded = try filter.text.map { text in
            try TaskRules.validateFilterText(text, field: "filter.text")
            return TaskRules.folded(text)
        }
        let candidates = try folded.flatMap { folded in
            try textFromIndex.map { TextIndex.Candidates(match: $0, few: true) } ?? TextIndex.candidates(for: folded, in: database)
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
        if byCreationAlone, let first = tags.first, !readsTheFewInCreationOrder, candidates?.few != true,
           try !Self.projectOrWindowHoldsFew(filter, dueWindow: dueWindow, limit: smallSetLimit, in: database) {
            // The tag's index gives its tasks in page order, however many or few they are.
            add("task_tag.tag = ?", [.text(first)])
            drivenByTag = true
            hasSmallSet = true
            tags = tags.dropFirst()
        }
        for tag in tags {
            if try Self.taggedCount(tag, in: database) < smallSetLimit() {
                add("task.pk IN (SELECT task_pk FROM task_tag WHERE tag = ?)", [.text(tag)])
                hasSmallSet = true
            } else if readsTheFewInCreationOrder {
                // A probe of task_tag's key, in the order of its task keys: a count then
                // reads no task's row, where a check of the row's tags reads one at random.
                add("EXISTS (SELECT 1 FROM task_tag AS tagged WHERE tagged.tag = ? AND tagged.task_pk = task.pk)", [.text(tag)])
            } else {
                // Checked on the row's own copy of its tags, not with a lookup in task_tag
                // per task scanned, which cost more than the rest of the page.
                // The plain instr() is a cheap necessary condition; the delimited one decides.
                add("instr(task.tags, ?) > 0 AND instr(char(31) || task.tags || char(31), ?) > 0",
                    [.text(tag), .text("\u{1F}" + tag + "\u{1F}")])
            }
        }
        if let folded {
            // instr() takes its needle literally: no LIKE wildcards to escape. It decides;
            // the trigram index only narrows the tasks it has to look at.
            if let candidates {
                if candidates.few {
                    // Read from the index as the tasks to start from, the candidates cost
                    // less than as an IN that SQLite fills first, but SQLite then cannot start from
                    // another small set instead: only a scan that found nothing early,
                    // which had no other small set, does so.
                    if textFromIndex != nil && !hasSmallSet {
                        textSource = candidates.match
                    } else {
                        add(TextIndex.clause, [.text(candidates.match)])
                    }
                    hasSmallSet = true
                } else {
                    commonTextCandidates = candidates.match
                }
            }
            add("(instr(title_fold, ?) > 0 OR instr(notes_fold, ?) > 0)", [.text(folded), .text(folded)])
        }
        if let (after, before) = dueWindow {
            // Sorts whose runs read task_by_due_asc in order: led by due, or by priority and
            // then due (one run per priority, `priorityRuns`), unless a small set is sorted.
            let dueKey = sort.first?.field == .due ? sort.first : byPriorityThenDue && !hasSmallSet ? sort[1] : nil
            if let dueKey {
                addRangeReadInOrder(Schema.dueAscendingKey, descending: dueKey.descending, [.integer(after), .integer(before)])
            } else {
                let few = try Self.windowHoldsFew(after: after, before: before, limit: smallSetLimit(), in: database)
                addSelective(Self.windowCondition, column: Schema.dueAscendingKey, values: [.integer(after), .integer(before)],
                             few: few, hasSmallSet: &hasSmallSet)
            }
        }
        if let project = filter.project {
            try TaskRules.validateProject(project, field: "filter.project")
            let range = Self.projectRange(project)
            if let first = sort.first, first.field == .project {
                addRangeReadInOrder("task.project", descending: first.descending, range, then: "(task.project = ? OR task.project > ?)")
            } else {
                let few = try Self.projectHoldsFew(project, limit: smallSetLimit(), in: database)
                addSelective(Self.projectCondition, column: "project", values: range, few: few, hasSmallSet: &hasSmallSet)
            }
            hasProjectFilter = true
        }
        // task_blocked and task_by_wait hold the blocked and the waiting tasks in
        // task_by_done's order: pages by creation time read them in order, as few as they
        // are. For another order, a few are read from those indexes and sorted, and many
        // are checked along the order. Their opposites are most of the tasks: checked.
        let inCreationOrder = sort.first?.field == .createdAt
        if let blocked = filter.blocked {
            if blocked && inCreationOrder {
                add("task.blocked_by > 0", [])
                if byCreationAlone { blockedIndex = .creation }
            } else if blocked, let index = BlockedIndex(sort, priorityRunsReadPriorityIndex: priorityRunsReadPriorityIndex) {
                add("task.blocked_by > 0", [])
                blockedIndex = index
            } else if blocked {
                let few = try Self.count("blocked_by > 0", [], upTo: Self.fewTasks, in: database) < Self.fewTasks
                addSelective({ "\($0) > 0" }, column: "blocked_by", values: [], few: few, hasSmallSet: &hasSmallSet)
            } else {
                add("+task.blocked_by = 0", [])
            }
        }
        if let waiting = filter.waiting {
            if waiting && inCreationOrder {
                add("task.wait_at > ?", [.integer(now)])
            } else if waiting {
                let few = try Self.count("wait_at > ?", [.integer(now)], upTo: Self.fewTasks, in: database) < Self.fewTasks
                addSelective({ "\($0) > ?" }, column: "wait_at", values: [.integer(now)], few: few, hasSmallSet: &hasSmallSet)
            } else {
                add("(+task.wait_at IS NULL OR +task.wait_at <= ?)", [.integer(now)])
            }
        }
        if let ids = filter.ids {
            guard ids.count <= TaskFilter.maxIDs else {
                throw TaskStoreError.invalid(field: "filter.ids", reason: "at most \(TaskFilter.maxIDs) ids")
            }
            if ids.isEmpty {
                add("0", [])
            } else {
                add("id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))", ids.map(SQLValue.text))
            }
            hasSmallSet = true
        }
        if let done = filter.done {
            // task_by_done is read when it holds the page's order (a sort led by createdAt)
            // or when few tasks are in that state (`task_total` counts them); otherwise each
            // task along the sort's own index is checked, where a page's worth come soon.
            // SQLite, which has no statistics here, would prefer task_by_done: `+` keeps it out.
            let readsIndex = try !hasSmallSet && (inCreationOrder || Self.total(done: done, in: database) < Self.fewTasks)
            add(readsIndex ? "done = ?" : "+done = ?", [SQLValue(done)])
        }
        mergesDoneRuns = sort.first?.field == .createdAt && filter.done == nil && !hasSmallSet
        hasDueRange = filter.dueAfter != nil || filter.dueBefore != nil
        startsFromSmallSet = hasSmallSet
        // A small set is read first and sorted, from no index the plan names.
        if hasSmallSet { blockedIndex = nil }
        kept = KeptCount(filter, textIsCommon: commonTextCandidates != nil || textFromIndex != nil, dueWindow: dueWindow)
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
    private static func projectOrWindowHoldsFew(_ filter: TaskFilter, dueWindow: (after: Int64, before: Int64)?,
                                                limit smallSetLimit: () throws -> Int, in database: Database) throws -> Bool {
        guard filter.project != nil || dueWindow != nil else { return false }
        let limit = try smallSetLimit()
        if let project = filter.project, try projectHoldsFew(project, limit: limit, in: database) { return true }
        if let (after, before) = dueWindow, try windowHoldsFew(after: after, before: before, limit: limit, in: database) { return true }
        return false
    }

    /// How many tasks `tag` is on, as `tag_total` keeps it.
    private static func taggedCount(_ tag: String, in database: Database) throws -> Int {
        try database.cachedStatement("SELECT coalesce((SELECT count FROM tag_total WHERE tag = ?), 0)").firstRow([.text(tag)]) { $0.int(0) } ?? 0
    }

    /// Whether `project` and those under it hold fewer than `limit` tasks, as `project_total`
    /// counts them.
    private static func projectHoldsFew(_ project: String, limit: Int, in database: Database) throws -> Bool {
        let tasks = try database.cachedStatement("SELECT coalesce(sum(count), 0) FROM project_total WHERE " + projectCondition("project"))
            .firstRow(projectRange(project)) { $0.int(0) } ?? 0
        return tasks < limit
    }

    /// Whether fewer than `limit` tasks are due in the window, counted in task_by_due_asc up
    /// to `limit`.
    private static func windowHoldsFew(after: Int64, before: Int64, limit: Int, in database: Database) throws -> Bool {
        try count(windowCondition(Schema.dueAscendingKey), [.integer(after), .integer(before)], upTo: limit, in: database) < limit
    }

    /// How many tasks meet `condition`, counted up to `limit`.
    private static func count(_ condition: String, _ values: [SQLValue], upTo limit: Int, in database: Database) throws -> Int {
        try database.cachedStatement("SELECT count(*) FROM (SELECT 1 FROM task WHERE \(condition) LIMIT ?)")
            .firstRow(values + [.integer(Int64(limit))]) { $0.int(0) } ?? 0
    }

    /// A condition on an indexed column (`project`), decided as for tags: when `few` tasks
    /// meet it, they are read from the index and sorted; otherwise each task along the sort
    /// order is checked (`+` keeps SQLite from the index), where a page's worth come soon.
    private mutating func addSelective(_ condition: (String) -> String, column: String, values: [SQLValue],
                                       few: Bool, hasSmallSet: inout Bool) {
        if few {
            add("task.pk IN (SELECT pk FROM task WHERE \(condition(column)))", values)
            hasSmallSet = true
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

    /// A filter of one kind whose count is read without visiting the tasks: at most `done`
    /// from `task_total`, a project (and those under it; with `done` or not) from
    /// `project_total`, a tag (with `done` or not) from `tag_total`, two (with `done` or
    /// not) from `tag_pair_total`, more intersected in one merge of their ranges of task_tag's key
    /// (each in `task_pk` order), a due window (with `done` or not) from task_by_due_asc
    /// alone, tags in a window or a project that holds fewer tasks than they do from its
    /// index and task_tag's key, a common text from the trigram index (`TextIndex.countSQL`; a rare one's few
    /// candidates cost less to read). Any other clause needs the tasks themselves.
    private enum KeptCount {
        case totals(done: Bool?)
        case project(String, done: Bool?)
        /// Distinct tags; `done` only with one or two.
        case tags([String], done: Bool?)
        /// The bounds in ms, as `due_sort_asc` holds them.
        case dueWindow(after: Int64, before: Int64, done: Bool?)
        /// A project's tasks (and those under it) in a due window: each of its projects, as
        /// `project_total` names them, is a range of task_by_project_due_asc (with `done`,
        /// each task in it is looked up).
        case projectDueWindow(String, after: Int64, before: Int64, done: Bool?)
        /// Tasks with tags (distinct) in a due window: each entry of the window's range of
        /// task_by_due_asc, its key probed in task_tag's for each tag. Read only when the
        /// window holds fewer tasks than the rarest tag (`isRead`); otherwise the tagged
        /// tasks are counted, each looked up.
        case tagsInDueWindow([String], after: Int64, before: Int64, done: Bool?)
        /// Tasks with tags (distinct) in a project (and those under it): each entry of the
        /// project's ranges of task_by_project, probed as in a due window (the task looked
        /// up for `done`). Read only when the project holds fewer tasks than the rarest tag.
        case tagsInProject([String], String, done: Bool?)
        /// The folded needle.
        case text(String)

        init?(_ filter: TaskFilter, textIsCommon: Bool, dueWindow: (after: Int64, before: Int64)?) {
            if textIsCommon, let text = filter.text, filter == TaskFilter(text: text) {
                self = .text(TaskRules.folded(text))
                return
            }
            var rest = filter
            rest.done = nil
            if rest == TaskFilter() {
                self = .totals(done: filter.done)
                return
            }
            rest = filter
            rest.project = nil
            rest.done = nil
            if rest == TaskFilter(), let project = filter.project {
                self = .project(project, done: filter.done)
                return
            }
            rest = filter
            rest.dueAfter = nil
            rest.dueBefore = nil
            rest.done = nil
            if rest == TaskFilter(), let dueWindow {
                self = .dueWindow(after: dueWindow.after, before: dueWindow.before, done: filter.done)
                return
            }
            rest.project = nil
            if rest == TaskFilter(), let project = filter.project, let dueWindow {
                self = .projectDueWindow(project, after: dueWindow.after, before: dueWindow.before, done: filter.done)
                return
            }
            rest = filter
            rest.tags = []
            rest.done = nil
            var seen: Set<String> = []
            let tags = filter.tags.filter { seen.insert($0).inserted }
            if rest == TaskFilter(), !tags.isEmpty {
                guard filter.done == nil || tags.count <= 2 else { return nil }
                self = .tags(tags, done: filter.done)
                return
            }
            rest.project = nil
            if rest == TaskFilter(), !tags.isEmpty, let project = filter.project {
                self = .tagsInProject(tags, project, done: filter.done)
                return
            }
            rest.project = filter.project
            rest.dueAfter = nil
            rest.dueBefore = nil
            if rest == TaskFilter(), !tags.isEmpty, let dueWindow {
                self = .tagsInDueWindow(tags, after: dueWindow.after, before: dueWindow.before, done: filter.done)
                return
            }
            return nil
        }

        /// Whether this count is read rather than the tasks counted: always, but for tags in
        /// a due window or a project, read when the window or the project holds fewer tasks
        /// than the rarest tag has: a probe of the taggings costs about what a tagged task's
        /// lookup does, so the fewer entries decide.
        func isRead(in database: Database) throws -> Bool {
            switch self {
            case .tagsInDueWindow(let tags, let after, let before, _):
                try FetchPlan.windowHoldsFew(after: after, before: before, limit: Self.rarest(tags, in: database), in: database)
            case .tagsInProject(let tags, let project, _):
                try FetchPlan.projectHoldsFew(project, limit: Self.rarest(tags, in: database), in: database)
            default:
                true
            }
        }

        /// How many tasks the rarest of `tags` is on.
        private static func rarest(_ tags: [String], in database: Database) throws -> Int {
            try tags.map { try FetchPlan.taggedCount($0, in: database) }.min() ?? 0
        }

        /// Each of `tags` probed in task_tag's key for the task being counted.
        private static func probes(_ tags: [String]) -> String {
            String(repeating: " AND EXISTS (SELECT 1 FROM task_tag WHERE tag = ? AND task_pk = task.pk)", count: tags.count)
        }

        var sql: String {
            switch self {
            case .totals(let done): "SELECT coalesce(sum(count), 0) FROM task_total" + (done == nil ? "" : " WHERE done = ?")
            case .project(_, let done): "SELECT coalesce(sum(" + Self.counted(done) + "), 0) FROM project_total WHERE " + FetchPlan.projectCondition("project")
            case .projectDueWindow(_, _, _, let done):
                "SELECT count(*) FROM task INDEXED BY task_by_project_due_asc WHERE project IN (SELECT project FROM project_total WHERE "
                    + FetchPlan.projectCondition("project") + ") AND due_sort_asc >= ? AND due_sort_asc < ?" + (done == nil ? "" : " AND done = ?")
            case .dueWindow(_, _, let done):
                "SELECT count(*) FROM task INDEXED BY task_by_due_asc WHERE due_sort_asc >= ? AND due_sort_asc < ?" + (done == nil ? "" : " AND done = ?")
            case .tagsInDueWindow(let tags, _, _, let done):
                "SELECT count(*) FROM task INDEXED BY task_by_due_asc WHERE due_sort_asc >= ? AND due_sort_asc < ?" + (done == nil ? "" : " AND done = ?")
                    + Self.probes(tags)
            case .tagsInProject(let tags, _, let done):
                "SELECT count(*) FROM task INDEXED BY task_by_project WHERE " + FetchPlan.projectCondition("project")
                    + (done == nil ? "" : " AND done = ?") + Self.probes(tags)
            case .tags(let tags, let done) where tags.count == 1: "SELECT coalesce((SELECT " + Self.counted(done) + " FROM tag_total WHERE tag = ?), 0)"
            case .tags(let tags, let done) where tags.count == 2:
                "SELECT coalesce((SELECT " + Self.counted(done) + " FROM tag_pair_total WHERE tag = min(?1, ?2) AND other = max(?1, ?2)), 0)"
            case .tags(let tags, _):
                "SELECT count(*) FROM (" + Array(repeating: "SELECT task_pk FROM task_tag WHERE tag = ?", count: tags.count)
                    .joined(separator: " INTERSECT ") + " ORDER BY 1)"
            case .text: TextIndex.countSQL
            }
        }

        /// The column of a kept-count table (`count`, and `open` of it) that counts the tasks
        /// in state `done`, or all of them.
        private static func counted(_ done: Bool?) -> String {
            switch done {
            case nil: "count"
            case true?: "count - open"
            case false?: "open"
            }
        }

        var values: [SQLValue] {
            switch self {
            case .totals(let done): done.map { [SQLValue($0)] } ?? []
            case .project(let project, _): FetchPlan.projectRange(project)
            case .dueWindow(let after, let before, let done): [.integer(after), .integer(before)] + (done.map { [SQLValue($0)] } ?? [])
            case .tagsInDueWindow(let tags, let after, let before, let done):
                [.integer(after), .integer(before)] + (done.map { [SQLValue($0)] } ?? []) + tags.map(SQLValue.text)
            case .tagsInProject(let tags, let project, let done):
                FetchPlan.projectRange(project) + (done.map { [SQLValue($0)] } ?? []) + tags.map(SQLValue.text)
            case .projectDueWindow(let project, let after, let before, let done):
                FetchPlan.projectRange(project) + [.integer(after), .integer(before)] + (done.map { [SQLValue($0)] } ?? [])
            case .tags(let tags, _): tags.map(SQLValue.text)
            case .text(let needle): [.text(TextIndex.phrase(needle)), .text(needle)]
            }
        }
    }

    /// Whether two of `tags` are on no task together: `tag_pair_total` has a row for every
    /// two tags some task has.
    private static func someTwoShareNoTask(_ tags: [String], in database: Database) throws -> Bool {
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
    private static func total(done: Bool, in database: Database) throws -> Int {
        try database.cachedStatement("SELECT count FROM task_total WHERE done = ?").firstRow([SQLValue(done)]) { $0.int(0) } ?? 0
    }

    /// Counts the tasks that match. `database` is asked how many tasks hold a common text's
    /// trigrams: call it inside the transaction that reads the page.
    ///
    /// A count from a small set (the plan's own, or a common text's candidates) keeps the
    /// page's `+`s: they keep SQLite on that set. Without them SQLite, which has no
    /// statistics, prefers an index on the other clauses: for open tasks with a rare text
    /// it would read every open task in `task_by_done` rather than the text's few.
    func count(in database: Database) throws -> (sql: String, values: [SQLValue]) {
        if matchesNothing { return ("SELECT 0", []) }
        if let kept, try kept.isRead(in: database) { return (kept.sql, kept.values) }
        if let candidates = commonTextCandidates, try TextIndex.reading(candidates, in: database) != .tooDear {
            // From the candidates themselves when nothing else drives the read: as an IN
            // beside the page's `done = ?` (which reads task_by_done in creation order),
            // SQLite would read every open task rather than the candidates.
            if source == "task" {
                return ("SELECT count(*) FROM \(TextIndex.source)" + whereSQL(extra: []), [.text(candidates)] + whereValues)
            }
            return ("SELECT count(*) FROM \(source)" + whereSQL(extra: [TextIndex.clause]), sourceValues + whereValues + [.text(candidates)])
        }
        let clauses = whereSQL(extra: [])
        return ("SELECT count(*) FROM \(source)" + (startsFromSmallSet ? clauses : Self.unplussed(clauses)), sourceValues + whereValues)
    }

    /// The counts that, each times its sign, count `filter`, this plan's: the plan's own
    /// count for a filter of one term; for several (`TaskFilter.countTerms`), each term's by
    /// a plan of its own in creation order, where the blocked and the waiting tasks are read
    /// from their indexes (a plan for another order checks them along it, as a page of many
    /// would). `now` and `database` as for the plan.
    func totalCounts(of filter: TaskFilter, now: Int64, in database: Database) throws -> [(sql: String, values: [SQLValue], sign: Int)] {
        let terms = filter.countTerms
        if terms.count == 1 {
            let count = try count(in: database)
            return [(count.sql, count.values, 1)]
        }
        return try terms.map { term in
            let count = try FetchPlan(filter: term.filter, sort: [SortKey(field: .createdAt)], now: now, database: database).count(in: database)
            return (count.sql, count.values, term.sign)
        }
    }

    /// Counts `run`'s tasks, with its `values` (an offset comes without a cursor): how much of
    /// an offset a run used up when it holds fewer tasks than the offset. Not for a merge, the
    /// last run. Made only for an offset, not for every page.
    func countSQL(of run: Run) -> String {
        "SELECT count(*) FROM \(source)" + Self.unplussed(whereSQL(extra: run.clauses))
    }

    /// For a plan that merges: one side's (the open or the done tasks') sort keys, of the
    /// task that `OFFSET ?` (the last parameter) places along it, read from `task_by_done`.
    func sideKeys(done: Bool) -> (sql: String, values: [SQLValue]) {
        let keyColumns = Self.keyColumns(keys)
        return ("SELECT \(keyColumns) FROM task" + whereSQL(extra: ["task.done = \(done ? 1 : 0)"]) + " ORDER BY \(Self.order(keys)) LIMIT 1 OFFSET ?",
                whereValues)
    }

    /// For a plan that merges: counts one side's tasks before `cursorValues`.
    func sideCount(done: Bool, before cursorValues: [SQLValue]) -> (sql: String, values: [SQLValue]) {
        let (clause, bound) = Self.keyset(keys: backwards, after: cursorValues)
        return ("SELECT count(*) FROM task" + whereSQL(extra: ["task.done = \(done ? 1 : 0)", clause]), whereValues + bound)
    }

    /// For a plan that merges: the merge read backwards from `cursorValues` (the tasks
    /// before them, nearest first); its `keysSQL` finds one of them.
    func mergeBackwards(from cursorValues: [SQLValue]) -> Run {
        run(selecting: backwards, orderedBy: backwards, after: cursorValues, merging: true)
    }

    private var backwards: [SortExpression] {
        keys.map { (expression: $0.expression, descending: !$0.descending) }
    }

    /// `sql` with the `+` taken off its columns. A page's clauses keep SQLite from their
    /// indexes so that it reads the sort order; a count has no order to keep, and counts
    /// fastest from those indexes.
    static func unplussed(_ sql: String) -> String {
        sql.replacing(/(^|[ (])\+(?=[a-z])/) { $0.output.1 }
    }

    /// CROSS JOIN keeps SQLite reading the taggings first, in their index's order.
    private var source: String {
        if let blockedIndex { return "task INDEXED BY " + blockedIndex.rawValue }
        if drivenByTag { return "task_tag CROSS JOIN task ON task.pk = task_tag.task_pk" }
        return textSource == nil ? "task" : TextIndex.source
    }

    /// `source`'s values, bound before the clauses'.
    private var sourceValues: [SQLValue] {
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
        let keys = drivenByTag
            ? self.keys.map { (expression: $0.expression == "id" ? "task_tag.task_id" : "task_tag.\($0.expression)", $0.descending) }
            : self.keys
        return runs(fixed: [], keys: keys, after: cursor?.values, extra: [])
    }

    /// The runs that read the tasks meeting the filter and `extra` in the order of `keys`,
    /// after `cursorValues` (values of `keys`; nil: from the start). `fixed` are the sort
    /// keys before `keys`, which an outer split holds to one value: selected first, so that
    /// a cursor holds every key.
    private func runs(fixed: [SortExpression], keys: [SortExpression], after cursorValues: [SQLValue]?, extra: [String]) -> [Run] {
        let leading = keys[0].expression
        if leading == "priority" && keys.count > 2 && !startsFromSmallSet {
            return priorityRuns(fixed: fixed, keys: keys, after: cursorValues, extra: extra)
        }
        if leading == Self.projectlessKey {
            return projectRuns(fixed: fixed, keys: keys, after: cursorValues, extra: extra)
        }
        if (leading == Schema.dueAscendingKey || leading == Schema.dueDescendingKey) && (keys[0].descending || keys.count > 2) && !startsFromSmallSet
            && blockedIndex != .projectThenDueDescending {
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
    private func priorityRuns(fixed: [SortExpression], keys: [SortExpression], after cursorValues: [SQLValue]?, extra: [String]) -> [Run] {
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
    private func dueRuns(fixed: [SortExpression], keys: [SortExpression], after cursorValues: [SQLValue]?, extra: [String],
                         alongPriority: Bool = false) -> [Run] {
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
            runs.append(run(selecting: fixed + keys, orderedBy: Array(keys.dropFirst()),
                            after: undatedKey ? cursorValues.map { Array($0.dropFirst()) } : nil, extra: extra + [undatedClause]))
        }
        return runs
    }

    /// A sort led by `project`: the tasks with one, in project order from task_by_project
    /// (which holds only them), then those without, in the order of the other keys. The
    /// first key (`projectlessKey`) says which run a cursor is in.
    private func projectRuns(fixed: [SortExpression], keys: [SortExpression], after cursorValues: [SQLValue]?, extra: [String]) -> [Run] {
        let projectless = cursorValues?.first == .integer(1)
        var runs: [Run] = []
        if !projectless {
            let order = [(expression: "task.project", descending: keys[1].descending)] + keys.dropFirst(2)
            runs.append(run(selecting: fixed + keys, orderedBy: order, after: cursorValues.map { Array($0.dropFirst()) },
                            extra: extra + ["task.project IS NOT NULL"]))
        }
        if !hasProjectFilter {
            runs += self.runs(fixed: fixed + keys.prefix(2), keys: Array(keys.dropFirst(2)),
                              after: projectless ? cursorValues.map { Array($0.dropFirst(2)) } : nil, extra: extra + ["task.project IS NULL"])
        }
        return runs
    }

    /// A query for the tasks after `cursorValues` (values of `order`; nil: from the start)
    /// among those matching the filter and `extra`, in the order of `order`, with the
    /// `selected` keys' values after each task's columns: what a cursor is made of.
    private func run(selecting selected: [SortExpression], orderedBy order: [SortExpression], after cursorValues: [SQLValue]?,
                     extra: [String] = [], merging: Bool = false) -> Run {
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
            return Run(source: " FROM " + source, arms: [whereSQL(extra: extra)], order: " ORDER BY " + Self.order(order),
                       keyColumns: keyColumns, values: values, clauses: clauses, sortsKeysFirst: startsFromSmallSet && !drivenByTag)
        }
        // A compound's ORDER BY names result columns, here the sort keys by their names.
        // SQLite merges the two arms (EXPLAIN QUERY PLAN: MERGE (UNION ALL)), reading each
        // from task_by_done in order and no further than the page needs.
        let numbered = Self.order(order.indices.map { (Self.sortKeyColumn($0), order[$0].descending) })
        return Run(source: " FROM " + source, arms: [whereSQL(extra: ["task.done = 0"] + extra), whereSQL(extra: ["task.done = 1"] + extra)],
                   order: " ORDER BY " + numbered, keyColumns: keyColumns, values: values + values, clauses: clauses)
    }

    /// `keys`, each `AS` its `sortKeyColumn`.
    private static func keyColumns(_ keys: [SortExpression]) -> String {
        var columns = ""
        for (index, key) in keys.enumerated() {
            if index > 0 { columns += ", " }
            columns += key.expression
            columns += " AS "
            columns += sortKeyColumn(index)
        }
        return columns
    }

    private static func order(_ keys: [SortExpression]) -> String {
        var order = ""
        for (index, key) in keys.enumerated() {
            if index > 0 { order += ", " }
            order += key.expression
            order += key.descending ? " DESC" : " ASC"
        }
        return order
    }

    private func whereSQL(extra: [String]) -> String {
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
