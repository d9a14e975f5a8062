import Foundation
import PostgreSQL
@testable import PostgresStore
import TaskModel
import Testing

/// The text filter on PostgreSQL: a needle is found literally (LIKE's wildcards and its
/// escape character are text like any other) in titles and notes, whatever their case, and
/// read from the trigram index (schema 10) where the database has pg_trgm.
@Suite(Cluster.available) struct PostgresTextFilterTests {
    @Test func aNeedleIsFoundLiterallyInTitlesAndNotes() async throws {
        let store = try Cluster.store()
        let titles = ["100% sure", "1000 sure", "a_b", "axb", #"back\slash"#, "back slash", "Ünïcode Needle", "plain"]
        _ = try await store.apply(titles.map { .success(.create(TaskDraft(title: $0))) }, atomic: true)
        _ = try await store.perform(.create(TaskDraft(title: "noted", notes: "the NEEDLE is here")))
        let needles: [(String, Set<String>)] = [
            ("0%", ["100% sure"]), ("%", ["100% sure"]), ("a_b", ["a_b"]), ("_", ["a_b"]), (#"k\s"#, [#"back\slash"#]),
            (#"\"#, [#"back\slash"#]), ("needle", ["Ünïcode Needle", "noted"]), ("ÜNÏ", ["Ünïcode Needle"]), ("zzz", []),
        ]
        for (needle, expected) in needles {
            let page = try await store.fetch(TaskQuery(filter: TaskFilter(text: needle), limit: 100, includeTotal: true))
            #expect(Set(page.tasks.map(\.title)) == expected, "needle \(needle)")
            #expect(page.total == expected.count, "needle \(needle)")
        }
    }

    /// Where pg_trgm is, a needle's tasks are read from the index rather than from every
    /// task (the planner's choice with sequential scans off: the index serves the filter).
    @Test func theTrigramIndexServesTheFilterWherePgTrgmIs() async throws {
        let db = try Cluster.freshSchema()
        let store = try Cluster.store(db)
        _ = try await store.apply((0..<500).map { .success(.create(TaskDraft(title: "Task \($0)", notes: $0 == 7 ? "a rare word" : ""))) }, atomic: true)
        let connection = try PostgresConnection(db)
        let hasTrigrams = try !connection.query("SELECT FROM pg_extension WHERE extname = 'pg_trgm'").isEmpty
        let index = try connection.query("SELECT indexdef FROM pg_indexes WHERE indexname = 'task_text_trigrams' AND schemaname = current_schema()")
        #expect(index.count == (hasTrigrams ? 1 : 0))
        guard hasTrigrams else { return }
        try connection.execute("ANALYZE task; SET enable_seqscan = off")
        for filter in [TaskFilter(text: "rare"), TaskFilter(done: false, text: "task 42")] {
            let count = try PostgresFetchPlan(query: TaskQuery(filter: filter), now: 0, connection: connection).count
            let plan = try connection.query("EXPLAIN " + count.sql, count.values).map { try $0.text("QUERY PLAN") }
            #expect(plan.contains { $0.contains("task_text_trigrams") }, "\(filter): \(plan)")
        }
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "RARE"), limit: 10, includeTotal: true)).total == 1)
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "task 42"), limit: 20, includeTotal: true)).total == 11)
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
