import SQLite
import TaskModel

/// Taskline's schema and its migrations.
enum Schema {
    /// `PRAGMA application_id` of every Taskline database: "TSKL". A file with another id
    /// belongs to someone else and is never touched.
    static let applicationID: Int32 = 0x5453_4B4C

    /// Sort keys that are never NULL, so that keyset comparisons and row values work: a
    /// missing due date sorts last whichever the direction, so it is the largest value
    /// ascending and the smallest descending. They are generated columns because SQLite
    /// answers a row-value comparison from an index on columns, not on expressions.
    static let dueAscendingKey = "due_sort_asc"
    static let dueDescendingKey = "due_sort_desc"
    /// `dueDescendingKey`'s value for a task with no due date.
    static let undatedDescendingKey: Int64 = -9_223_372_036_854_775_807
    /// The dated and the undated tasks, as ranges of task_by_due_asc (`dueAscendingKey`
    /// is the largest integer for the undated ones).
    static let datedClause = "due_sort_asc < 9223372036854775807"
    static let undatedClause = "due_sort_asc = 9223372036854775807"
    /// The clause of the indexes that hold only the dated tasks (task_dated_by_priority_due).
    static let datedIndexClause = "task.due_at IS NOT NULL"

    /// Frozen history: each migration is literal SQL that never changes once shipped, and
    /// names none of today's constants (one that changed would rewrite what the migration
    /// did). What its SQL says, comments and spacing included, is what files hold in
    /// sqlite_schema, and what `unexpectedObjects` holds them to: a migration that files have
    /// run is never edited, or they would be refused. Changes go in a new migration.
    static let migrator = Migrator([
        migration1, migration2, migration3, migration4, migration5, migration6, migration7, migration8,
        migration9, migration10, migration11, migration12, migration13, migration14, migration15, migration16,
        migration17, migration18, migration19, migration20, migration21, migration22, migration23, migration24,
        migration25, migration26, migration27, migration28, migration29, migration30, migration31, migration32,
        migration33, migration34, migration35, migration36, migration37, migration38, migration39, migration40,
        migration41,
    ])

    /// The `tags` column's value for the task with key `pk`: its tags in code-point order
    /// (BINARY collation compares UTF-8 bytes, which order as code points), joined by U+001F.
    static func tagsOf(_ taskKey: String) -> String {
        "coalesce((SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM task_tag WHERE task_pk = \(taskKey) ORDER BY tag)), '')"
    }

    /// The `depends_on` column's value for the task with key `taskKey`, as schema 17's
    /// triggers keep it: its dependencies' ids in code-point order, joined by U+001F.
    static func dependsOnOf(_ taskKey: String) -> String {
        "coalesce((SELECT group_concat(id, char(31)) FROM (SELECT t.id FROM task_dependency d JOIN task t ON t.pk = d.depends_on_pk WHERE d.task_pk = \(taskKey) ORDER BY t.id)), '')"
    }

    /// The `blocked_by` column's value for the task with key `taskKey`: how many of its
    /// dependencies are not done.
    static func blockedByOf(_ taskKey: String) -> String {
        "(SELECT count(*) FROM task_dependency d JOIN task t ON t.pk = d.depends_on_pk WHERE d.task_pk = \(taskKey) AND t.done = 0)"
    }

    static let databaseIDKey = "database_id"

    static let prunedThroughKey = "history_pruned_through"

    /// The largest seq in the change log, 0 when it is empty. That is the newest seq ever
    /// handed out: the log always holds its newest change (see
    /// `TaskStore.pruneHistory`).
    static func newestSeq(in database: Database) throws -> Int64 {
        try database.integer("SELECT max(seq) FROM change") ?? 0
    }

    /// The newest seq pruning removed from the log, 0 when it never removed any. Thrown as
    /// out of range when another program stored one that no seq can be.
    static func prunedThrough(in database: Database) throws -> Int64 {
        try TaskRules.prunedThrough(try storedPrunedThrough(in: database), storedAs: "meta's \(prunedThroughKey)")
    }

    static func storedPrunedThrough(in database: Database) throws -> Int64 {
        try database.integer("SELECT value FROM meta WHERE key = ?", [.text(prunedThroughKey)]) ?? 0
    }
}
