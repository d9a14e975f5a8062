import Foundation
import PostgreSQL
import PostgresStore
import Synchronization
import TaskModel
import Testing

@Suite(Cluster.available) struct PostgresStoreTests {
    @Test func createsReadsUpdatesAndDeletesWithTheChangeLog() async throws {
        let store = try Cluster.store()
        let created = try #require(try await store.perform(.create(TaskDraft(title: "Write", tags: ["b", "a"], due: "2026-12-01"))).task)
        #expect(created.version == 1)
        #expect(created.tags == ["a", "b"])
        #expect(try await store.get(id: created.id) == created)

        let updated = try #require(
            try await store.perform(.update(id: created.id, changes: TaskChanges(title: "Rewrite", done: true), ifVersion: 1)).task)
        #expect(updated.version == 2)
        #expect(updated.completedAt != nil)
        #expect(try await store.get(id: created.id) == updated)

        // An update that changes nothing logs nothing.
        let same = try await store.perform(.update(id: created.id, changes: TaskChanges(title: "Rewrite"), ifVersion: nil))
        #expect(same.change == nil)

        await #expect(throws: TaskStoreError.versionConflict(current: updated)) {
            try await store.perform(.update(id: created.id, changes: TaskChanges(title: "Late"), ifVersion: 1))
        }
        await #expect(throws: TaskStoreError.versionConflict(current: updated)) {
            try await store.perform(.delete(id: created.id, ifVersion: 1))
        }
        await #expect(throws: TaskStoreError.alreadyExists(id: created.id)) {
            try await store.perform(.create(TaskDraft(id: created.id, title: "Again")))
        }
        _ = try await store.perform(.delete(id: created.id, ifVersion: 2))
        await #expect(throws: TaskStoreError.notFound(id: created.id)) { try await store.get(id: created.id) }

        let page = try await store.changes(since: 0, limit: 100)
        #expect(page.changes.map(\.seq) == [1, 2, 3])
        #expect(page.changes.map(\.kind) == [.created, .updated, .deleted])
        #expect(page.changes.allSatisfy { $0.task == nil })  // the task is deleted now
        #expect(page.seq == 3 && !page.hasMore)
        #expect(try await store.currentSeq() == 3)
        #expect(try await store.changes(since: 1, limit: 1).changes.map(\.seq) == [2])
        #expect(try await store.changes(since: 1, limit: 1).hasMore)
        await #expect(throws: TaskStoreError.invalid(field: "since", reason: "is ahead of this database, whose newest seq is 3")) {
            try await store.changes(since: 4, limit: 10)
        }
    }

    @Test func anAtomicApplyIsAllOrNothingAndOtherwiseEachFailsAlone() async throws {
        let store = try Cluster.store()
        let operations: [Result<TaskOperation, TaskStoreError>] = [
            .success(.create(TaskDraft(id: "one", title: "One"))),
            .success(.update(id: "missing", changes: TaskChanges(title: "x"), ifVersion: nil)),
        ]
        await #expect(throws: TaskStoreError.operationFailed(index: 1, error: .notFound(id: "missing"))) {
            try await store.apply(operations, atomic: true)
        }
        #expect(try await store.currentSeq() == 0)
        await #expect(throws: TaskStoreError.notFound(id: "one")) { try await store.get(id: "one") }

        let results = try await store.apply(operations, atomic: false)
        #expect((try? results[0].get()) != nil)
        #expect(results[1] == .failure(.notFound(id: "missing")))
        #expect(try await store.currentSeq() == 1)
        #expect(try await store.get(id: "one").title == "One")
    }

    @Test func dependenciesAreCheckedAndADeletedTaskLeavesItsDependents() async throws {
        let store = try Cluster.store()
        _ = try await store.perform(.create(TaskDraft(id: "a", title: "A")))
        _ = try await store.perform(.create(TaskDraft(id: "b", title: "B", dependsOn: ["a"])))
        await #expect(throws: TaskStoreError.invalid(field: "dependsOn[1]", reason: "no task has the id nope")) {
            try await store.perform(.create(TaskDraft(title: "C", dependsOn: ["a", "nope"])))
        }
        await #expect(throws: TaskStoreError.dependencyCycle(ids: ["a", "b"])) {
            try await store.perform(.update(id: "a", changes: TaskChanges(dependsOn: ["b"]), ifVersion: nil))
        }
        await #expect(throws: TaskStoreError.dependencyCycle(ids: ["a"])) {
            try await store.perform(.update(id: "a", changes: TaskChanges(dependsOn: ["a"]), ifVersion: nil))
        }
        let outcome = try await store.perform(.delete(id: "a", ifVersion: nil))
        #expect(outcome.otherChanges.map(\.id) == ["b"])
        #expect(outcome.changes.map(\.seq) == [3, 4])
        let b = try await store.get(id: "b")
        #expect(b.dependsOn.isEmpty && b.version == 2)
    }

    /// Two stores, each its own connection and thread, write at once while a third reads the
    /// log as it grows: every seq is handed out once, and a reader never finds one below what
    /// it has seen committing later (commit order).
    @Test func seqHasNoGapsAndFollowsCommitOrderWithConcurrentWriters() async throws {
        let connectionString = try Cluster.freshSchema()
        let writers = try (0..<2).map { _ in try Cluster.store(connectionString) }
        let reader = try Cluster.store(connectionString)
        let perWriter = 60
        let done = Counter()
        async let readSeqs: [Int64] = {
            var seen: [Int64] = []
            var last: Int64 = 0
            // Until the writers are done and all is read, or a writer failed and gave up.
            let deadline = ContinuousClock.now + .seconds(120)
            while done.value < writers.count || last < Int64(writers.count * perWriter), ContinuousClock.now < deadline {
                let page = try await reader.changes(since: last, limit: 1000)
                seen += page.changes.map(\.seq)
                last = page.seq
            }
            return seen
        }()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, writer) in writers.enumerated() {
                group.addTask {
                    for number in 0..<perWriter {
                        if number % 3 == 2 {
                            // A group of two changes, and one that rolls back and hands out none.
                            _ = try await writer.performEach([
                                .create(TaskDraft(title: "w\(index) \(number)")),
                                .update(id: "missing", changes: TaskChanges(title: "x"), ifVersion: nil),
                            ])
                        } else {
                            _ = try await writer.perform(.create(TaskDraft(title: "w\(index) \(number)")))
                        }
                    }
                    done.add()
                }
            }
            try await group.waitForAll()
        }
        let total = Int64(writers.count * perWriter)
        #expect(try await readSeqs == Array(1...total))
        #expect(try await reader.currentSeq() == total)
        #expect(try await reader.fetch(TaskQuery(limit: 1000, includeTotal: true)).total == Int(total))
    }

    @Test func pagesFollowTheSortWithCursorsAndFilters() async throws {
        let store = try Cluster.store()
        for number in 0..<25 {
            _ = try await store.perform(
                .create(
                    TaskDraft(
                        title: "Task \(number)", priority: number % 3, tags: number % 2 == 0 ? ["even"] : [],
                        due: number % 4 == 0 ? nil : "2026-12-\(10 + number % 7)", project: number % 5 == 0 ? "Home.Garage" : "Work")))
        }
        let sort = [SortKey(field: .due, descending: true), SortKey(field: .priority)]
        var cursor: String?
        var paged: [TaskItem] = []
        repeat {
            let page = try await store.fetch(TaskQuery(sort: sort, limit: 7, cursor: cursor))
            paged += page.tasks
            cursor = page.nextCursor
        } while cursor != nil
        let whole = Array(try await store.fetch(TaskQuery(sort: sort, limit: 100)).tasks)
        #expect(paged == whole)
        #expect(whole.count == 25)
        // Undated tasks come last, in either order.
        #expect(whole.suffix(7).allSatisfy { $0.due == nil })
        #expect(whole.prefix(18).allSatisfy { $0.due != nil })
        #expect(zip(whole.prefix(18), whole.prefix(18).dropFirst()).allSatisfy { $0.due! >= $1.due! })

        let filtered = try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["even"], project: "Home"), limit: 100, includeTotal: true))
        #expect(filtered.tasks.map(\.title).sorted() == ["Task 0", "Task 10", "Task 20"])
        #expect(filtered.total == 3)
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "TASK 1"), limit: 100)).tasks.count == 11)
        await #expect(throws: TaskStoreError.invalid(field: "cursor", reason: "not a cursor from a fetch with this sort")) {
            try await store.fetch(TaskQuery(limit: 7, cursor: try await store.fetch(TaskQuery(sort: sort, limit: 7)).nextCursor))
        }
    }

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

    /// Completing a recurring task creates its next occurrence, once.
    @Test func completingARecurringTaskMakesItsNextOccurrenceOnce() async throws {
        let store = try Cluster.store()
        let weekly = try #require(
            try await store.perform(.create(TaskDraft(title: "Bins", due: "2026-12-01", recurrence: "FREQ=WEEKLY;COUNT=3"))).task)
        #expect(weekly.seriesId == weekly.id)
        let done = try await store.perform(.update(id: weekly.id, changes: TaskChanges(done: true), ifVersion: nil))
        let next = try #require(done.otherChanges.first?.task)
        #expect(done.changes.map(\.seq) == [2, 3])
        #expect(next.due == "2026-12-08" && next.recurrence == "FREQ=WEEKLY;COUNT=2" && next.seriesId == weekly.id && !next.done)
        _ = try await store.perform(.update(id: weekly.id, changes: TaskChanges(done: false), ifVersion: nil))
        #expect(try await store.perform(.update(id: weekly.id, changes: TaskChanges(done: true), ifVersion: nil)).otherChanges.isEmpty)
        await #expect(
            throws: TaskStoreError.invalid(
                field: "changes.due", reason: "must not be null while the task recurs: set recurrence to null to end the series")
        ) {
            try await store.perform(.update(id: next.id, changes: TaskChanges(due: .some(nil)), ifVersion: nil))
        }
        #expect(try await store.fetch(TaskQuery(limit: 10)).tasks.count == 2)
    }

    @Test func dueRemindersAreClaimedOnce() async throws {
        let connectionString = try Cluster.freshSchema()
        let first = try Cluster.store(connectionString)
        let second = try Cluster.store(connectionString)
        _ = try await first.perform(.create(TaskDraft(id: "r", title: "Call", remindAt: "2026-01-01T00:00:00Z")))
        _ = try await first.perform(.create(TaskDraft(id: "later", title: "Later", remindAt: "2099-01-01T00:00:00Z")))
        let now = Timestamp.now()
        let claimed = try await first.claimDueReminders(now: now)
        #expect(claimed.tasks.map(\.id) == ["r"])
        #expect(claimed.next == Timestamp.parse("2099-01-01T00:00:00Z"))
        #expect(try await second.claimDueReminders(now: now).tasks.isEmpty)
        // Reopened, it is due again.
        _ = try await first.perform(.update(id: "r", changes: TaskChanges(done: true), ifVersion: nil))
        _ = try await first.perform(.update(id: "r", changes: TaskChanges(done: false), ifVersion: nil))
        #expect(try await second.claimDueReminders(now: now).tasks.map(\.id) == ["r"])
    }
}

/// A count that tasks and threads add to.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func add() { count.add(1, ordering: .relaxed) }
}
