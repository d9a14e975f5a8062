import SQLite
import TaskModel

/// Counting a filter's tasks for `includeTotal`: from what keeps the count (`KeptCount`)
/// when a filter of one kind allows, else from the plan's own clauses.
extension FetchPlan {
    /// A filter of one kind whose count is read without visiting the tasks: at most `done`
    /// from `task_total`, a project (and those under it; with `done` or not) from
    /// `project_total`, a tag (with `done` or not) from `tag_total`, two (with `done` or
    /// not) from `tag_pair_total`, more intersected in one merge of their ranges of task_tag's key
    /// (each in `task_pk` order), a due window (with `done` or not) from task_by_due_asc
    /// alone, tags in a window or a project that holds fewer tasks than they do from its
    /// index and task_tag's key, a common text from the trigram index (`TextIndex.countSQL`; a rare one's few
    /// candidates cost less to read). Any other clause needs the tasks themselves.
    enum KeptCount {
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
            case .project(_, let done):
                "SELECT coalesce(sum(" + Self.counted(done) + "), 0) FROM project_total WHERE " + FetchPlan.projectCondition("project")
            case .projectDueWindow(_, _, _, let done):
                "SELECT count(*) FROM task INDEXED BY task_by_project_due_asc WHERE project IN (SELECT project FROM project_total WHERE "
                    + FetchPlan.projectCondition("project") + ") AND due_sort_asc >= ? AND due_sort_asc < ?" + (done == nil ? "" : " AND done = ?")
            case .dueWindow(_, _, let done):
                "SELECT count(*) FROM task INDEXED BY task_by_due_asc WHERE due_sort_asc >= ? AND due_sort_asc < ?"
                    + (done == nil ? "" : " AND done = ?")
            case .tagsInDueWindow(let tags, _, _, let done):
                "SELECT count(*) FROM task INDEXED BY task_by_due_asc WHERE due_sort_asc >= ? AND due_sort_asc < ?"
                    + (done == nil ? "" : " AND done = ?")
                    + Self.probes(tags)
            case .tagsInProject(let tags, _, let done):
                "SELECT count(*) FROM task INDEXED BY task_by_project WHERE " + FetchPlan.projectCondition("project")
                    + (done == nil ? "" : " AND done = ?") + Self.probes(tags)
            case .tags(let tags, let done) where tags.count == 1:
                "SELECT coalesce((SELECT " + Self.counted(done) + " FROM tag_total WHERE tag = ?), 0)"
            case .tags(let tags, let done) where tags.count == 2:
                "SELECT coalesce((SELECT " + Self.counted(done) + " FROM tag_pair_total WHERE tag = min(?1, ?2) AND other = max(?1, ?2)), 0)"
            case .tags(let tags, _):
                "SELECT count(*) FROM ("
                    + Array(repeating: "SELECT task_pk FROM task_tag WHERE tag = ?", count: tags.count)
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
        return (
            "SELECT \(keyColumns) FROM task" + whereSQL(extra: ["task.done = \(done ? 1 : 0)"]) + " ORDER BY \(Self.order(keys)) LIMIT 1 OFFSET ?",
            whereValues
        )
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
}
