import TaskModel
import TestSupport
import Testing

/// Recurring tasks on each store: the next occurrence made when one is completed, exactly
/// once, in the same transaction; the rules a recurring task keeps.
@Suite struct RecurrenceContractTests {
    func recurring(_ store: any TaskStoring, rule: String = "FREQ=WEEKLY;BYDAY=MO,TH", due: String = "2026-12-03") async throws -> TaskItem {
        try await store.create(
            TaskDraft(
                title: "Water plants", notes: "the big ones", priority: 2, tags: ["home", "plants"],
                due: due, project: "Home.Garden", dependsOn: [], wait: "2026-12-01",
                meta: #"{"editor":1}"#, recurrence: rule)
        ).value
    }

    func complete(_ store: any TaskStoring, _ id: String, done: Bool = true) async throws -> OperationOutcome {
        try await store.perform(.update(id: id, changes: TaskChanges(done: done), ifVersion: nil))
    }

    func all(_ store: any TaskStoring) async throws -> [TaskItem] {
        Array(try await store.fetch(TaskQuery(sort: [SortKey(field: .due)], limit: 1000)).tasks)
    }

    @Test(arguments: StoreKind.allCases)
    func completingARecurringTaskCreatesItsNextOccurrenceInTheSameWrite(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let first = try await recurring(store)
        #expect(first.seriesId == first.id)
        let outcome = try await complete(store, first.id)
        #expect(outcome.task?.done == true)
        let created = try #require(outcome.otherChanges.first)
        #expect(outcome.otherChanges.count == 1 && created.kind == .created)
        #expect(outcome.changes.map(\.seq) == [created.seq, created.seq + 1])
        let next = try #require(created.task)
        #expect(next.id != first.id && !next.done && next.version == 1)
        #expect(next.title == first.title && next.notes == first.notes && next.priority == 2 && next.tags == ["home", "plants"])
        #expect(next.project == "Home.Garden" && next.recurrence == "FREQ=WEEKLY;BYDAY=MO,TH" && next.seriesId == first.id)
        #expect(next.due == "2026-12-07")
        // Neither the dependencies, the wait time nor clients' own data carry over.
        #expect(next.dependsOn.isEmpty && next.wait == nil && next.meta == TaskItem.emptyMeta)
        #expect(try await store.get(id: next.id) == next)
        #expect(try await all(store).count == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func aReopenedOccurrenceCompletedAgainMakesNoSecondSuccessor(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let first = try await recurring(store)
        let successor = try #require(try await complete(store, first.id).otherChanges.first?.task)
        let reopened = try await complete(store, first.id, done: false)
        #expect(reopened.otherChanges.isEmpty && reopened.task?.done == false)
        #expect(try await store.get(id: successor.id) == successor)  // reopening deletes nothing
        let again = try await complete(store, first.id)
        #expect(again.otherChanges.isEmpty && again.task?.done == true)
        #expect(try await all(store).map(\.id) == [first.id, successor.id])
        // Once its successor is gone (deleted, or an undone completion), it makes one anew.
        _ = try await store.delete(id: successor.id)
        _ = try await complete(store, first.id, done: false)
        let remade = try #require(try await complete(store, first.id).otherChanges.first?.task)
        #expect(remade.id != successor.id && remade.due == successor.due)
        _ = try await complete(store, first.id, done: false)
        #expect(try await complete(store, first.id).otherChanges.isEmpty)
        #expect(try await all(store).map(\.id) == [first.id, remade.id])
    }

    @Test(arguments: StoreKind.allCases)
    func oneApplyCompletingReopeningAndCompletingMakesOneSuccessor(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let first = try await recurring(store)
        let operations: [TaskOperation] = [true, false, true].map { .update(id: first.id, changes: TaskChanges(done: $0), ifVersion: nil) }
        let results = try await store.apply(operations, atomic: true).map { try $0.get() }
        #expect(results.map(\.otherChanges.count) == [1, 0, 0])
        #expect(try await all(store).count == 2)
        // An atomic apply that fails takes the successor back with the completion.
        let second = try #require(results[0].otherChanges.first?.task)
        let failing: [TaskOperation] = [
            .update(id: second.id, changes: TaskChanges(done: true), ifVersion: nil), .delete(id: "missing", ifVersion: nil),
        ]
        await #expect(throws: TaskStoreError.self) { _ = try await store.apply(failing, atomic: true) }
        #expect(try await all(store).count == 2)
        #expect(try await store.get(id: second.id).done == false)
    }

    @Test(arguments: StoreKind.allCases)
    func countCountsEveryOccurrenceAndUntilEndsTheSeries(kind: StoreKind) async throws {
        let store = try openStore(kind)
        var task = try await recurring(store, rule: "FREQ=DAILY;COUNT=3", due: "2026-12-30T08:00:00+01:00")
        var dues: [String] = []
        while true {
            dues.append(task.due!)
            guard let next = try await complete(store, task.id).otherChanges.first?.task else { break }
            task = next
        }
        #expect(dues == ["2026-12-30T08:00:00+01:00", "2026-12-31T08:00:00+01:00", "2027-01-01T08:00:00+01:00"])
        #expect(task.recurrence == "FREQ=DAILY;COUNT=1")
        let until = try await recurring(store, rule: "FREQ=MONTHLY;UNTIL=20270131", due: "2026-12-31")
        let last = try #require(try await complete(store, until.id).otherChanges.first?.task)
        #expect(last.due == "2027-01-31")
        #expect(try await complete(store, last.id).otherChanges.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func endingTheRecurrenceKeepsTheSeriesAndMakesNoSuccessor(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let first = try await recurring(store)
        let ended = try await store.update(id: first.id, changes: TaskChanges(recurrence: .some(nil))).value
        #expect(ended.recurrence == nil && ended.seriesId == first.id)
        #expect(try await complete(store, first.id).otherChanges.isEmpty)
        // A task that starts recurring starts a series of its own, and may lose its due then.
        let plain = try await store.create(TaskDraft(title: "plain", due: "2026-12-01")).value
        #expect(plain.seriesId == nil && plain.recurrence == nil)
        let started = try await store.update(id: plain.id, changes: TaskChanges(recurrence: "FREQ=YEARLY")).value
        #expect(started.seriesId == plain.id)
        let stopped = try await store.update(id: plain.id, changes: TaskChanges(due: .some(nil), recurrence: .some(nil))).value
        #expect(stopped.due == nil && stopped.recurrence == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func aRecurringTaskKeepsItsDueAndARuleTasklineReads(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let first = try await recurring(store)
        let undated = try await store.create(TaskDraft(title: "undated")).value
        #expect(await invalidField { _ = try await store.create(TaskDraft(title: "x", recurrence: "FREQ=DAILY")) } == "recurrence")
        #expect(
            await invalidField { _ = try await store.create(TaskDraft(title: "x", due: "2026-12-01", recurrence: "FREQ=HOURLY")) }
                == "recurrence.rule")
        await #expect(
            throws: TaskStoreError.invalid(
                field: "changes.due", reason: "must not be null while the task recurs: set recurrence to null to end the series")
        ) {
            try await store.update(id: first.id, changes: TaskChanges(due: .some(nil)))
        }
        #expect(
            await invalidField { _ = try await store.update(id: undated.id, changes: TaskChanges(recurrence: "FREQ=DAILY")) } == "changes.recurrence")
        #expect(
            await invalidField {
                _ = try await store.update(id: first.id, changes: TaskChanges(due: .some(nil), recurrence: "FREQ=DAILY"))
            } == "changes.recurrence")
        #expect(
            await invalidField {
                _ = try await store.update(id: first.id, changes: TaskChanges(recurrence: "FREQ=DAILY;INTERVAL=0"))
            } == "changes.recurrence.rule")
        let located = try await store.apply([.update(id: first.id, changes: TaskChanges(due: .some(nil)), ifVersion: nil)], atomic: false)
        #expect(located.first.flatMap { try? $0.get() } == nil)
        if case .failure(.invalid(let field, _)) = located.first { #expect(field == "operations[0].update.changes.due") }
        #expect(try await store.get(id: first.id) == first)
    }
}
