import PostgreSQL

/// Fills a fresh store's `task` table with `count` tasks made by PostgreSQL itself (one
/// `INSERT … SELECT` per batch), with the shares of taskline-bench's tasks: a third done,
/// a tenth per `t` tag and a seventh per `g` tag, half due on a day of 2027, a fifth each
/// without a project, in `Home`, `Home.Garage`, `Work.Alpha` and one of 97 others, one in
/// fifty depending on the task before it, one in a hundred waiting and one in a hundred
/// having waited. Each attribute is drawn from a hash of the task's number, independently.
/// Ids are time-ordered, as the server makes them, and task n was made n ms after 2025.
/// The change log is left empty: what is measured is reading the tasks.
enum PageLoad {
    static let batch = 100_000

    static func load(count: Int, into db: String, progress: (Int) -> Void) throws {
        let connection = try PostgresConnection(db)
        try connection.execute(functions)
        for first in stride(from: 0, to: count, by: batch) {
            try connection.run(insert, [.integer(Int64(first)), .integer(Int64(min(count, first + batch) - 1))])
            progress(min(count, first + batch))
        }
        // The store keeps its counts as it writes (PostgresStore's schemas 5, 8 and 9); rows written
        // here are counted as its migration counts them.
        try connection.execute(keptCounts)
        // What autovacuum would do in time: statistics for the planner, and the visibility
        // map that lets a count be read from an index alone.
        try connection.execute("VACUUM ANALYZE task")
    }

    private static let keptCounts = """
        DELETE FROM task_total; DELETE FROM project_total; DELETE FROM tag_total;
        INSERT INTO task_total (done, n) SELECT state, (SELECT count(*) FROM task WHERE done = state) FROM (VALUES (false), (true)) AS states (state);
        INSERT INTO project_total (project, n, open) SELECT project, count(*), count(*) FILTER (WHERE NOT done) FROM task WHERE project IS NOT NULL GROUP BY project;
        INSERT INTO tag_total (tag, n, open) SELECT tag, count(*), count(*) FILTER (WHERE NOT done) FROM task, unnest(tags) AS tag GROUP BY tag;
        """

    private static let functions = """
        CREATE FUNCTION pg_temp.bench_id(n bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
            SELECT format('%s-%s-7%s-8%s-%s', substr(h, 1, 8), substr(h, 9, 4), substr(r, 1, 3), substr(r, 4, 3), substr(r, 7, 12))
            FROM (SELECT lpad(to_hex(1735689600000 + n), 12, '0') AS h, md5(n::text) AS r) AS parts
        $$;
        CREATE FUNCTION pg_temp.bench_choice(n bigint, attribute int, choices int) RETURNS int LANGUAGE sql IMMUTABLE AS $$
            SELECT (hashint8(n * 64 + attribute) & 2147483647)::int % choices
        $$;
        """

    private static let insert = """
        INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, tags, due, due_at, project,
                          depends_on, wait, wait_at, meta, created_at, updated_at, completed_at, version)
        SELECT pg_temp.bench_id(n), title, lower(title), '', '', done, pg_temp.bench_choice(n, 7, 4),
               ARRAY['g' || pg_temp.bench_choice(n, 10, 7), 't' || pg_temp.bench_choice(n, 9, 10)],
               due, (extract(epoch FROM due::date) * 1000)::bigint,
               (ARRAY[NULL, 'Home', 'Home.Garage', 'Work.Alpha', 'Work.P' || pg_temp.bench_choice(n, 4, 97)])[pg_temp.bench_choice(n, 5, 5) + 1],
               CASE WHEN n % 50 = 1 THEN ARRAY[pg_temp.bench_id(n - 1)] ELSE '{}' END,
               wait, (extract(epoch FROM wait::date) * 1000)::bigint,
               '{}', created, created + pg_temp.bench_choice(n, 11, 1000000), CASE WHEN done THEN created END, 1
        FROM (
            SELECT n, 'Task ' || n || ' word' || n % 1000 AS title, pg_temp.bench_choice(n, 8, 3) = 0 AS done,
                   CASE WHEN pg_temp.bench_choice(n, 1, 2) = 0
                        THEN format('2027-%s-%s', lpad((pg_temp.bench_choice(n, 2, 12) + 1)::text, 2, '0'),
                                    lpad((pg_temp.bench_choice(n, 3, 28) + 1)::text, 2, '0')) END AS due,
                   (ARRAY['2099-01-01', '2020-01-01'])[pg_temp.bench_choice(n, 6, 100) + 1] AS wait,
                   1735689600000 + n AS created
            FROM generate_series($1::bigint, $2::bigint) AS n
        ) AS generated
        """
}
