@testable import TaskStore
import TestSupport
import Testing

/// The text filter over enough tasks that the index's choices differ: trigrams in nearly
/// every task (not worth asking the index), rare ones (asked), absent ones (nothing found).
/// Whatever it chooses, the answer must be exactly the tasks that contain the needle.
@Suite struct TextIndexChoiceTests {
    let directory = TemporaryDirectory()

    @Test func everyChoiceFindsExactlyTheTasksThatContainTheNeedle() async throws {
        let store = try makeStore(directory)
        let count = TextIndex.commonCount + 904
        let titles = (0..<count).map { "Common thing \($0)" + ($0 % 500 == 0 ? " rare \"quoted\"" : "") }
        for first in stride(from: 0, to: count, by: 1000) {
            let drafts = titles[first..<min(count, first + 1000)].map { TaskOperation.create(TaskDraft(title: $0)) }
            _ = try await store.apply(drafts, atomic: true)
        }
        for needle in ["common thing", "thing 1", "thing 4321", "ing 9", "rare \"quoted\"", "\"quoted", "thing 12 ", "zzz", "Thing 5000"] {
            let expected = titles.filter { $0.lowercased().contains(needle.lowercased()) }
            let page = try await store.fetch(TaskQuery(filter: TaskFilter(text: needle), limit: 50, includeTotal: true))
            #expect(page.total == expected.count, "needle \(needle)")
            #expect(page.tasks.map(\.title) == Array(expected.prefix(50)), "needle \(needle)")
        }
    }
}
