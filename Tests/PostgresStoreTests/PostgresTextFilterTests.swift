import Foundation
import PostgreSQL
import TaskModel
import TestSupport
import Testing

@testable import PostgresStore

/// The text filter on PostgreSQL: a needle is found literally (LIKE's wildcards and its
/// escape character are text like any other) in titles and notes, whatever their case, and
/// read from the trigram index (schema 10) where the database has pg_trgm.
@Suite(Cluster.available) struct PostgresTextFilterTests {

    /// Where pg_trgm is, a needle's tasks are read from the index rather than from every
    /// task (the planner's choice with sequential scans off: the index serves the filter).
    @Test func theTrigramIndexServesTheFilterWherePgTrgmIs() async throws {
        let db = try Cluster.freshSchema()
        let store = try Cluster.store(db)
        _ = try await store.apply(
            (0..<500).map { .success(.create(TaskDraft(title: "Task \($0)", notes: $0 == 7 ? "a rare word" : ""))) }, atomic: true)
        let connection = try PostgresConnection(db)
        let hasTrigrams = try !connection.query("SELECT FROM pg_extension WHERE extname = 'pg_trgm'").isEmpty
        let index = try connection.query("SELECT indexdef FROM pg_indexes WHERE indexname = 'task_text_trigrams' AND schemaname = current_schema()")
        #expect(index.count == (hasTrigrams ? 1 : 0))
        guard hasTrigrams else { return }
        try connection.execute("ANALYZE task; SET enable_seqscan = off")
        // The filter's condition as a plan that does not read the tasks' row ids first writes it.
        for filter in [TaskFilter(text: "rare"), TaskFilter(done: false, text: "task 42")] {
            let count = try PostgresFetchPlan(query: TaskQuery(filter: filter), now: 0, connection: connection, textIndexed: false).count
            let plan = try connection.query("EXPLAIN " + count.sql, count.values).map { try $0.text("QUERY PLAN") }
            #expect(plan.contains { $0.contains("task_text_trigrams") }, "\(filter): \(plan)")
        }
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "RARE"), limit: 10, includeTotal: true)).total == 1)
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "task 42"), limit: 20, includeTotal: true)).total == 11)
    }

    /// pg_trgm's trigrams are of words, runs of letters and digits: a needle with three in a
    /// row gives the index one to look up, one without gives it none.
    @Test func aNeedleGivesTheIndexATrigramWhenItHasThreeLettersOrDigitsInARow() {
        for needle in ["ask 99", "zzz", "é9x", "a-bcd"] { #expect(PostgresFetchPlan.hasTrigram(needle), "\(needle)") }
        for needle in ["ab", "a b c", "%%%", "k 9", "ab-cd"] { #expect(!PostgresFetchPlan.hasTrigram(needle), "\(needle)") }
    }

    /// A needle whose tasks all sort after the others by title: one the planner expects in
    /// few tasks is read from among those the trigram index finds, and under every sort
    /// each page is the one the order gives.
    @Test func aNeedleOfFewTasksIsReadFromTheIndexUnderEverySort() async throws {
        let db = try Cluster.freshSchema()
        let store = try Cluster.store(db)
        let titles = (0..<3000).map { $0 % 12 == 0 ? "zzz item \($0)" : "aaa item \($0)" }
        _ = try await store.apply(
            titles.enumerated().map { index, title in
                .success(
                    .create(
                        TaskDraft(
                            title: title, due: index % 3 == 0 ? nil : "2030-01-\(index % 19 + 10)",
                            project: index % 5 == 0 ? nil : "P\(index % 7)")))
            }, atomic: true)
        let connection = try PostgresConnection(db)
        try connection.execute("ANALYZE task")
        let indexed = try connection.query("SELECT to_regclass('task_text_trigrams') IS NOT NULL AS indexed")[0].bool("indexed")
        // A page reads from among the text's tasks, by their row ids, in one query (the
        // tasks with a due date or a project, then those without, are two runs otherwise); a
        // count has the text's condition.
        let rowIDs = "task.ctid = ANY("
        try connection.transaction(.repeatableRead) {
            for sort in [SortKey(field: .due), SortKey(field: .project, descending: true)] {
                let query = TaskQuery(filter: TaskFilter(done: false, text: "zzz item"), sort: [sort], limit: 50)
                let plan = try PostgresFetchPlan(query: query, now: 0, connection: connection, textIndexed: indexed)
                #expect(plan.runs.allSatisfy { $0.sql.contains(rowIDs) } == indexed, "\(sort)")
                #expect(plan.runs.count == (indexed ? 1 : 2), "\(sort): sorted in one query from the text's tasks, else in runs")
                #expect(!plan.count.sql.contains(rowIDs) && plan.count.sql.contains("LIKE"), "\(sort)")
            }
            // Not a needle without three letters or digits in a row: the index has nothing for it.
            let twoLetters = try PostgresFetchPlan(
                query: TaskQuery(filter: TaskFilter(text: "k 9"), limit: 50), now: 0, connection: connection,
                textIndexed: indexed)
            #expect(!twoLetters.count.sql.contains(rowIDs))
        }

        for sort in [
            SortKey(field: .title), SortKey(field: .title, descending: true), SortKey(field: .createdAt), SortKey(field: .due),
            SortKey(field: .due, descending: true), SortKey(field: .project, descending: true),
        ] {
            var all: [TaskItem] = []
            var cursor: String?
            repeat {
                let page = try await store.fetch(TaskQuery(sort: [sort], limit: TaskQuery.maxLimit, cursor: cursor))
                all += page.tasks
                cursor = page.nextCursor
            } while cursor != nil
            let expected = all.filter { $0.title.hasPrefix("zzz") }.map(\.id)
            var seen: [String] = []
            cursor = nil
            repeat {
                let page = try await store.fetch(
                    TaskQuery(filter: TaskFilter(text: "zzz item"), sort: [sort], limit: 100, cursor: cursor, includeTotal: true))
                #expect(page.total == expected.count)
                seen += page.tasks.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == expected, "\(sort)")
        }
    }

    /// A role that may not make pg_trgm, in a database without it, gets no index: the schema
    /// is made all the same, and the filter reads the tasks.
    @Test func withoutPgTrgmTheFilterReadsTheTasks() async throws {
        let environment = ProcessInfo.processInfo.environment
        let admin = try #require(environment["TASKLINE_TEST_POSTGRES_ADMIN"])
        let base = try #require(Cluster.connectionString)
        let name = "no_trgm_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        // Made by the superuser: the store's role may connect, and create nothing but in its schema.
        try PostgresConnection(admin).execute("CREATE DATABASE \(name)")
        defer { _ = try? PostgresConnection(admin).execute("DROP DATABASE \(name) WITH (FORCE)") }
        try PostgresConnection(admin + " dbname=\(name)").execute("CREATE SCHEMA store AUTHORIZATION taskline")
        let db = base + " dbname=\(name) options='-c search_path=store'"
        let store = try PostgresTaskStore(connectionString: db)
        _ = try await store.apply(["a rare word", "plain", "50% off"].map { .success(.create(TaskDraft(title: $0))) }, atomic: true)
        let connection = try PostgresConnection(db)
        #expect(try connection.query("SELECT FROM pg_extension WHERE extname = 'pg_trgm'").isEmpty)
        #expect(try connection.query("SELECT FROM pg_indexes WHERE indexname = 'task_text_trigrams'").isEmpty)
        #expect(try connection.query("SELECT version FROM taskline_schema")[0].int("version") == PostgresSchema.version)
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "RARE"), limit: 10)).tasks.map(\.title) == ["a rare word"])
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "%"), limit: 10)).tasks.map(\.title) == ["50% off"])
    }
}
