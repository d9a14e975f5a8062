import PostgreSQL
import TaskModel

/// The store's tables in PostgreSQL, made and upgraded by versioned migrations that the
/// database records in `taskline_schema`. Tables of the same names that Taskline did not
/// make are refused (`StoreOpenError`, exit 3), as a newer schema than this binary knows is.
///
/// Lists (`tags`, `depends_on`) are `text[]`, passed and read as text joined with U+001F,
/// which no tag or id may hold (TaskRules refuses control characters).
enum PostgresSchema {
    /// The newest version this binary knows: `migrations.count`.
    static var version: Int { migrations.count }

    /// The tables Taskline makes, by name: any of them without `taskline_schema` is another's.
    static let tables = ["taskline_schema", "task", "change_counter", "change_log"]

    /// `migrations[n]` takes the schema from version n to n + 1.
    static let migrations = [
        """
        CREATE TABLE taskline_schema (
            version integer NOT NULL,
            database_id bigint NOT NULL,
            pruned_through bigint NOT NULL DEFAULT 0
        );
        CREATE TABLE task (
            id text COLLATE "C" PRIMARY KEY,
            title text NOT NULL,
            title_fold text COLLATE "C" NOT NULL,
            notes text NOT NULL,
            notes_fold text NOT NULL,
            done boolean NOT NULL,
            priority integer NOT NULL,
            tags text[] NOT NULL,
            due text,
            due_at bigint,
            project text COLLATE "C",
            depends_on text[] NOT NULL,
            wait text,
            wait_at bigint,
            meta text NOT NULL,
            recurrence text,
            series_id text,
            remind text,
            remind_at bigint,
            reminded boolean NOT NULL DEFAULT false,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL,
            completed_at bigint,
            version bigint NOT NULL
        );
        CREATE INDEX task_by_created ON task (created_at, id);
        CREATE INDEX task_by_tags ON task USING gin (tags);
        CREATE INDEX task_by_dependency ON task USING gin (depends_on);
        CREATE INDEX task_reminder_due ON task (remind_at) WHERE remind_at IS NOT NULL AND NOT done AND NOT reminded;
        -- One row: the newest seq handed out. Each writing transaction holds it from its
        -- first statement to its commit (see PostgresTaskStore+Writes.swift).
        CREATE TABLE change_counter (seq bigint NOT NULL);
        INSERT INTO change_counter VALUES (0);
        CREATE TABLE change_log (
            seq bigint PRIMARY KEY,
            kind text NOT NULL CHECK (kind IN ('created', 'updated', 'deleted')),
            task_id text COLLATE "C" NOT NULL,
            version bigint NOT NULL,
            at bigint NOT NULL
        );
        CREATE INDEX change_log_deletions ON change_log (task_id, seq) WHERE kind = 'deleted';
        """,
        """
        -- The next occurrence a completed recurring task made: completing it again makes none
        -- while that one exists.
        ALTER TABLE task ADD COLUMN successor_id text COLLATE "C";
        """,
        """
        -- Change groups, for undo and redo (PostgresTaskStore+Undo.swift): each write request
        -- and each tasks/apply that changes something is one group, the seqs first_seq through
        -- last_seq that its transaction logged (a writer holds change_counter, so no other
        -- change falls between), written by `origin` (WriteOrigin; 0: the command line). An
        -- undo or a redo is a group too, with the group it `reverts`. `reverted`: an undo or a
        -- redo reverted the group (also one that changed nothing, which is no group itself).
        CREATE TABLE change_group (
            first_seq bigint PRIMARY KEY,
            last_seq bigint NOT NULL,
            origin bigint NOT NULL,
            kind text NOT NULL CHECK (kind IN ('write', 'undo', 'redo')),
            reverts bigint,
            reverted boolean NOT NULL DEFAULT false
        );
        CREATE INDEX change_group_by_origin ON change_group (origin, first_seq);
        -- For each task a group updated or deleted, its row before the group, keyed by the
        -- group's first seq: to_jsonb of the row, so that a column a later migration adds
        -- needs no change here (an older object reads it as NULL). A task the group created
        -- has none: reverting the group deletes it.
        CREATE TABLE change_before (
            group_seq bigint NOT NULL,
            task_id text COLLATE "C" NOT NULL,
            task jsonb NOT NULL,
            PRIMARY KEY (group_seq, task_id)
        );
        """,
        """
        -- Each sort's order, so that a page is read in order from its index, from the start
        -- or from a cursor's (key, id), instead of every matching task sorted
        -- (PostgresFetchPlan). Due dates and projects are indexed only where a task has
        -- one: tasks without them come last in either order, read by id from the primary key.
        CREATE INDEX task_by_updated ON task (updated_at, id);
        CREATE INDEX task_by_due ON task (due_at, id) WHERE due_at IS NOT NULL;
        CREATE INDEX task_by_priority ON task (priority, id);
        CREATE INDEX task_by_title ON task (title_fold, id);
        CREATE INDEX task_by_project ON task (project, id) WHERE project IS NOT NULL;
        -- The tasks that wait or waited: which of them wait still is counted from here
        -- alone, not by reading every task.
        CREATE INDEX task_by_wait ON task (wait_at) WHERE wait_at IS NOT NULL;
        """,
        """
        -- Counts that includeTotal reads instead of the tasks: by done, by project and by tag.
        -- Kept by the store's writing transactions (PostgresTaskStore+Counts.swift), each
        -- adding its net change once before it commits, not by a trigger on each task row.
        CREATE TABLE task_total (done boolean PRIMARY KEY, n bigint NOT NULL);
        CREATE TABLE project_total (project text COLLATE "C" PRIMARY KEY, n bigint NOT NULL);
        CREATE TABLE tag_total (tag text COLLATE "C" PRIMARY KEY, n bigint NOT NULL);
        INSERT INTO task_total (done, n) SELECT state, (SELECT count(*) FROM task WHERE done = state) FROM (VALUES (false), (true)) AS states (state);
        INSERT INTO project_total (project, n) SELECT project, count(*) FROM task WHERE project IS NOT NULL GROUP BY project;
        INSERT INTO tag_total (tag, n) SELECT tag, count(*) FROM task, unnest(tags) AS tag GROUP BY tag;
        -- The sorts by two keys, read in order (PostgresFetchPlan): by due date then priority;
        -- by priority then due date (a run for each priority); by project then due date, whose
        -- undated tasks come last in each project either way, which one index cannot hold
        -- both ways: the second index, read backwards, is the descending order.
        CREATE INDEX task_by_due_priority ON task (due_at, priority, id) WHERE due_at IS NOT NULL;
        CREATE INDEX task_by_priority_due ON task (priority, due_at, id) WHERE due_at IS NOT NULL;
        CREATE INDEX task_by_project_due ON task (project, due_at, id) WHERE project IS NOT NULL;
        CREATE INDEX task_by_project_due_desc ON task (project, due_at NULLS FIRST, id) WHERE project IS NOT NULL;
        """,
        """
        -- The tasks with a wait time (two in a hundred) by priority, then due date: a page of
        -- waiting tasks in that order (a run for each priority) walks them, not every task of
        -- a priority along task_by_priority_due. Only a task with a wait time writes a leaf of it.
        CREATE INDEX task_waiting_by_priority_due ON task (priority, due_at, id) WHERE wait_at IS NOT NULL;
        """,
        """
        -- How many of a task's dependencies are not done, as SQLite's schema 17 keeps it: the
        -- filter for blocked tasks reads a column, and task_blocked counts them (one in 75 at
        -- a million) without looking up every task's dependencies. Kept by triggers, whatever
        -- statement writes a task: its own count when it is inserted or its dependencies
        -- change, its dependents' when it becomes done or open again. A deleted task is first
        -- taken out of its dependents' dependencies (PostgresTaskStore+Writes.swift), which
        -- recounts them. A task inserted open that others already name (an import's, an
        -- undo's) is recounted for by the writer (`recountBlockers`): a trigger on every
        -- insert would look for dependents of every new task, which has none.
        ALTER TABLE task ADD COLUMN blocked_by integer NOT NULL DEFAULT 0;
        CREATE FUNCTION task_blockers(dependencies text[]) RETURNS integer LANGUAGE sql STABLE
            RETURN (SELECT count(*)::integer FROM task WHERE id = ANY(dependencies) AND NOT done);
        UPDATE task SET blocked_by = task_blockers(depends_on) WHERE depends_on <> '{}';
        CREATE FUNCTION task_count_blockers() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                NEW.blocked_by := task_blockers(NEW.depends_on);
                RETURN NEW;
            END
            $$;
        CREATE TRIGGER task_blockers_on_insert BEFORE INSERT ON task
            FOR EACH ROW WHEN (NEW.depends_on <> '{}') EXECUTE FUNCTION task_count_blockers();
        CREATE TRIGGER task_blockers_on_update BEFORE UPDATE OF depends_on ON task
            FOR EACH ROW WHEN (OLD.depends_on IS DISTINCT FROM NEW.depends_on) EXECUTE FUNCTION task_count_blockers();
        CREATE FUNCTION task_recount_dependents() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                -- In the lists' collation: an id's ("C") would keep the lookup out of the index.
                UPDATE task SET blocked_by = task_blockers(depends_on) WHERE depends_on @> ARRAY[NEW.id COLLATE "default"];
                RETURN NULL;
            END
            $$;
        CREATE TRIGGER task_dependents_on_done AFTER UPDATE OF done ON task
            FOR EACH ROW WHEN (OLD.done IS DISTINCT FROM NEW.done) EXECUTE FUNCTION task_recount_dependents();
        CREATE INDEX task_blocked ON task (done) WHERE blocked_by > 0;
        -- The blocked tasks by priority, then due date, as task_waiting_by_priority_due holds
        -- the waiting ones: with the column's statistics the planner read a run of them as
        -- every blocked task, sorted (a middle page 23–25 ms at a million).
        CREATE INDEX task_blocked_by_priority_due ON task (priority, due_at, id) WHERE blocked_by > 0;
        -- And by project, then due date, each way (as task_by_project_due and its _desc), and
        -- a project's undated ones by id, which its run reads after the dated ones (`due_at IS
        -- NULL` is no equality that lets an index of the due date give the order by id): checked
        -- along the primary key and the project indexes, the blocked tasks' pages by project,
        -- then due date, took 6–10 ms a first page and 10–21 ms a middle one at a million.
        CREATE INDEX task_blocked_by_project_due ON task (project, due_at, id) WHERE blocked_by > 0 AND project IS NOT NULL;
        CREATE INDEX task_blocked_by_project_due_desc ON task (project, due_at NULLS FIRST, id) WHERE blocked_by > 0 AND project IS NOT NULL;
        CREATE INDEX task_blocked_undated_by_project ON task (project, id) WHERE blocked_by > 0 AND due_at IS NULL AND project IS NOT NULL;
        -- Looked up on each completion: entries waiting in a pending list are each compared.
        ALTER INDEX task_by_dependency SET (fastupdate = off);
        """,
        """
        -- How many of each tag's tasks are open, kept beside their number: includeTotal with a
        -- tag and the open tasks (a tag's list) counted every task with the tag (179 ms at a
        -- million).
        ALTER TABLE tag_total ADD COLUMN open bigint NOT NULL DEFAULT 0;
        UPDATE tag_total SET open = counted.n
        FROM (SELECT tag, count(*) AS n FROM task, unnest(tags) AS tag WHERE NOT done GROUP BY tag) AS counted
        WHERE tag_total.tag = counted.tag;
        ALTER TABLE tag_total ALTER COLUMN open DROP DEFAULT;
        """,
        """
        -- How many of each project's tasks are open, kept beside their number: includeTotal
        -- with a project and the open tasks (a project's list) counted every task of it.
        ALTER TABLE project_total ADD COLUMN open bigint NOT NULL DEFAULT 0;
        UPDATE project_total SET open = counted.n
        FROM (SELECT project, count(*) AS n FROM task WHERE project IS NOT NULL AND NOT done GROUP BY project) AS counted
        WHERE project_total.project = counted.project;
        ALTER TABLE project_total ALTER COLUMN open DROP DEFAULT;
        """,
        """
        -- The text filter's trigrams (pg_trgm's GIN operator class, which answers LIKE '%…%'):
        -- without them every text filter read the tasks in the sort's order until a page was
        -- full or the tasks ran out (a needle in no task: 218 ms at a million; a count, 93 ms).
        -- The extension is made when the role may (it is trusted: a database owner may);
        -- without it there is no index, and the filter reads the tasks as before.
        DO $$
        DECLARE
            trigrams name;
        BEGIN
            IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'pg_trgm') THEN
                BEGIN
                    CREATE EXTENSION pg_trgm;
                EXCEPTION WHEN OTHERS THEN
                    RAISE NOTICE 'no pg_trgm (%): the text filter goes without an index', SQLERRM;
                END;
            END IF;
            SELECT extnamespace::regnamespace::name INTO trigrams FROM pg_extension WHERE extname = 'pg_trgm';
            IF trigrams IS NOT NULL THEN
                EXECUTE format('CREATE INDEX task_text_trigrams ON task USING gin (title_fold %1$I.gin_trgm_ops, notes_fold %1$I.gin_trgm_ops)',
                               trigrams);
            END IF;
        END
        $$;
        """,
        """
        -- Annotations and the start time, as SQLite's schema 41 keeps them: `annotations` holds
        -- a task's annotations in one text, each as its time in ms, U+001E, its text, joined by
        -- U+001F, in order of time ('' for none); `started_at` is set while the task is active.
        ALTER TABLE task ADD COLUMN annotations text NOT NULL DEFAULT '';
        ALTER TABLE task ADD COLUMN started_at bigint;
        """,
    ]

    /// Counts the tasks into the latest schema's kept counts afresh, for a program that
    /// writes tasks beside the store (postgres-bench's load).
    static let keptCountsFill = """
        DELETE FROM task_total; DELETE FROM project_total; DELETE FROM tag_total;
        INSERT INTO task_total (done, n) SELECT state, (SELECT count(*) FROM task WHERE done = state) FROM (VALUES (false), (true)) AS states (state);
        INSERT INTO project_total (project, n, open)
            SELECT project, count(*), count(*) FILTER (WHERE NOT done) FROM task WHERE project IS NOT NULL GROUP BY project;
        INSERT INTO tag_total (tag, n, open) SELECT tag, count(*), count(*) FILTER (WHERE NOT done) FROM task, unnest(tags) AS tag GROUP BY tag;
        """

    /// Any number, the same in every Taskline: migrations on one database wait for each other.
    private static let migrationLock: Int64 = 0x7461_736B_6C69_6E65

    /// Makes (when `create`) or upgrades the schema, or refuses the database. `name` is the
    /// redacted connection string, for messages.
    static func prepare(_ connection: PostgresConnection, name: String, create: Bool) throws {
        try connection.transaction(.readCommitted) {
            try connection.query("SELECT pg_advisory_xact_lock($1)", [.integer(migrationLock)])
            let present = Set(
                try connection.query(
                    """
                    SELECT c.relname FROM pg_class c
                    WHERE c.relname = ANY(string_to_array($1, ',')) AND pg_table_is_visible(c.oid)
                    """, [.text(tables.joined(separator: ","))]
                ).map { try $0.text("relname") })
            var current = 0
            if present.contains("taskline_schema") {
                current = try storedVersion(connection, name: name)
                if current > version {
                    throw StoreOpenError.newerSchema(path: name, version: current, supported: version)
                }
                let missing = tables.filter { !present.contains($0) }
                if !missing.isEmpty {
                    throw StoreOpenError.unexpectedObjects(path: name, objects: missing.map { "table \($0) is missing" })
                }
            } else if !present.isEmpty {
                throw StoreOpenError.foreignSchema(
                    path: name, detail: "it has tables named \(present.sorted().joined(separator: ", ")) that Taskline did not make")
            } else if !create {
                throw StoreOpenError.cannotOpen(path: name, detail: "it holds no Taskline tables (in its search_path)")
            }
            for step in current..<version {
                try connection.execute(migrations[step])
            }
            if current == 0 {
                try connection.run(
                    "INSERT INTO taskline_schema (version, database_id) VALUES ($1, $2)",
                    [.integer(Int64(version)), .integer(Int64.random(in: 1...Int64.max))])
            } else if current < version {
                try connection.run("UPDATE taskline_schema SET version = $1", [.integer(Int64(version))])
            }
        }
    }

    /// The version `taskline_schema` records; a table of that name that is not Taskline's is refused.
    private static func storedVersion(_ connection: PostgresConnection, name: String) throws -> Int {
        let columns = Set(
            try connection.query(
                """
                SELECT attname FROM pg_attribute WHERE attrelid = 'taskline_schema'::regclass AND attnum > 0 AND NOT attisdropped
                """
            ).map { try $0.text("attname") })
        guard columns == ["version", "database_id", "pruned_through"] else {
            throw StoreOpenError.foreignSchema(
                path: name, detail: "its table taskline_schema has the columns \(columns.sorted().joined(separator: ", "))")
        }
        let rows = try connection.query("SELECT version FROM taskline_schema")
        guard rows.count == 1 else {
            throw StoreOpenError.unexpectedObjects(path: name, objects: ["taskline_schema has \(rows.count) rows, not 1"])
        }
        return try rows[0].int("version")
    }
}
