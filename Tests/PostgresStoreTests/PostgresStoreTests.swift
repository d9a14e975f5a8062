import Foundation
import PostgreSQL
import PostgresStore
import TaskModel
import TestSupport
import Testing

@Suite(Cluster.available) struct PostgresStoreTests {

    /// A server hears another's commit through NOTIFY, and not its own.
    @Test func anotherWritersCommitWakesTheListener() async throws {
        let connectionString = try Cluster.freshSchema()
        let listening = try Cluster.store(connectionString)
        let other = try Cluster.store(connectionString)
        let wakeUps = Counter()
        try await listening.watchExternalChanges { wakeUps.add() }
        _ = try await listening.perform(.create(TaskDraft(title: "own")))
        try await Task.sleep(for: .milliseconds(200))  // a window for a wake-up that must not come
        #expect(try await listening.hasExternalChanges() == false)
        #expect(wakeUps.value == 0)

        _ = try await other.perform(.create(TaskDraft(title: "theirs")))
        let deadline = ContinuousClock.now + .seconds(10)
        while wakeUps.value == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(wakeUps.value == 1)
        #expect(try await listening.hasExternalChanges())
        #expect(try await listening.hasExternalChanges() == false)
    }

    /// Its server processes ended (as by a restart): until the store has opened its
    /// connection again, by itself, requests are answered with a retryable 1004; then writes
    /// go through, and the listener reconnects and reports, so that its owner reads what it
    /// may have missed, then hears other writers again.
    @Test func aStoreWhoseConnectionsAreLostReconnects() async throws {
        let connectionString = try Cluster.freshSchema()
        let victim = "victim_\(UInt32.random(in: 0...UInt32.max))"
        let store = try Cluster.store(connectionString + " application_name=\(victim)")
        let other = try Cluster.store(connectionString)
        let wakeUps = Counter()
        try await store.watchExternalChanges { wakeUps.add() }
        let terminated = try PostgresConnection(connectionString).query(
            """
            SELECT count(pg_terminate_backend(pid, 30000)) AS n FROM pg_stat_activity WHERE application_name = $1
            """, [.text(victim)])[0].int("n")
        #expect(terminated == 2)

        var created: OperationOutcome?
        // Tried again until the store is back, however long that takes here.
        let deadline = ContinuousClock.now + .seconds(60)
        while created == nil, ContinuousClock.now < deadline {
            do {
                created = try await store.perform(.create(TaskDraft(title: "goes")))
            } catch TaskStoreError.storage(let failure) where failure.kind == .unreachable && failure.retryable {
                #expect(failure.message.contains("unreachable"))
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(created?.change?.seq == 1)

        try await Self.wait(until: { wakeUps.value >= 1 })
        #expect(try await store.hasExternalChanges())
        let before = wakeUps.value
        _ = try await other.perform(.create(TaskDraft(title: "theirs")))
        try await Self.wait(until: { wakeUps.value > before })
        #expect(try await store.hasExternalChanges())
        #expect(try await store.changes(since: 1, limit: 10).changes.map(\.seq) == [2])
    }

    private static func wait(until condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition(), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func aSchemaNewerThanTheBinaryOrTablesNotTaskinesAreRefused() async throws {
        let newer = try Cluster.freshSchema()
        let id = try await Cluster.store(newer).databaseID()
        #expect(try await Cluster.store(newer).databaseID() == id)  // opened again, not made again
        try PostgresConnection(newer).execute("UPDATE taskline_schema SET version = 99")
        #expect {
            try Cluster.store(newer)
        } throws: { error in
            guard case StoreOpenError.newerSchema(_, 99, _) = error else { return false }
            return true
        }

        let foreign = try Cluster.freshSchema()
        try PostgresConnection(foreign).execute("CREATE TABLE task (n int)")
        #expect {
            try Cluster.store(foreign)
        } throws: { error in
            guard case StoreOpenError.foreignSchema = error else { return false }
            return true
        }
        // Refused without a change: no table of Taskline's was made.
        #expect(try PostgresConnection(foreign).query("SELECT to_regclass('change_log') IS NULL AS absent")[0].bool("absent"))
    }

    /// A writer waits for another's transaction no longer than the lock timeout, then fails
    /// with 1004 naming PostgreSQL's lock_not_available.
    @Test func aWriterWaitsForTheCounterNoLongerThanTheLockTimeout() async throws {
        let connectionString = try Cluster.freshSchema()
        let store = try PostgresTaskStore(connectionString: connectionString, lockTimeoutMilliseconds: 200)
        let holder = try PostgresConnection(connectionString)
        try holder.execute("BEGIN; SELECT seq FROM change_counter FOR UPDATE")
        let started = ContinuousClock.now
        await #expect {
            try await store.perform(.create(TaskDraft(title: "waits")))
        } throws: { error in
            guard case TaskStoreError.storage(let failure) = error, failure.kind == .busy, failure.retryable else { return false }
            return failure.message.contains("55P03")
        }
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        try holder.execute("ROLLBACK")
        #expect(try await store.perform(.create(TaskDraft(title: "goes"))).change?.seq == 1)
    }
}
