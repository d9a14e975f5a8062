import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// What `taskline check` finds wrong with a recurring task in a SQLite file (the store
/// contract for recurring tasks is StoreContractTests').
@Suite struct RecurrenceStoreTests {
    let directory = TemporaryDirectory()

    @Test func checkReportsARecurringTaskWithoutASeries() async throws {
        let store = try makeStore(directory)
        let first = try await store.create(TaskDraft(title: "Water plants", due: "2026-12-03", recurrence: "FREQ=WEEKLY")).value
        await store.close()
        let path = directory.file("tasks.sqlite")
        #expect(try TaskStore.check(path: path).isSound)
        try Database(path: path).run("UPDATE task SET series_id = NULL WHERE id = ?", [.text(first.id)])
        let report = try TaskStore.check(path: path)
        #expect(report.ruleProblems == ["task \(first.id): it recurs but has no seriesId"])
        try Database(path: path).run("UPDATE task SET series_id = id, recurrence = 'FREQ=SECONDLY' WHERE id = ?", [.text(first.id)])
        #expect(try TaskStore.check(path: path).ruleProblems.first?.contains("recurrence.rule") == true)
    }
}
