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

/// The tags filter reads a rare tag's tasks from task_tag and checks a common one task by
/// task, in the task's own list of tags, where "mmo" is inside "common": both must give exactly the tasks that have the tags, in order, page after page,
/// with the done filter beside them.
@Suite struct TagFilterChoiceTests {
    let directory = TemporaryDirectory()

    @Test func rareAndCommonTagsGiveTheSamePages() async throws {
        let store = try makeStore(directory)
        let count = FetchPlan.rareTagCount + 300
        var expected: [String: [String]] = [:]
        var drafts: [TaskOperation] = []
        for index in 0..<count {
            var tags = ["common"]
            if index % 97 == 0 { tags.append("rare") }
            if index % 2 == 0 { tags.append("even") }
            // Common tags inside another tag's text: only the whole tag may match.
            if index % 5 != 0 { tags.append("commo") }
            if index % 4 != 0 { tags.append("mmo") }
            let title = "task \(index)"
            drafts.append(.create(TaskDraft(title: title, done: index % 3 == 0, tags: tags)))
            for tag in tags { expected[tag, default: []].append(title) }
        }
        for first in stride(from: 0, to: count, by: 1000) {
            _ = try await store.apply(Array(drafts[first..<min(count, first + 1000)]), atomic: true)
        }
        for tags in [["rare"], ["common"], ["rare", "common"], ["even", "rare"], ["nowhere"], ["common", "nowhere"],
                     ["commo"], ["mmo"], ["mmo", "commo"], ["mm"]] {
            // By creation time the first tag's taggings are read in order (schema 10); by
            // title, along the title index with each tag checked.
            for (sort, descending) in [(SortKey.Field.createdAt, false), (.createdAt, true), (.title, false)] {
                for done in [nil, true, false] as [Bool?] {
                    var matching = drafts.compactMap { operation -> String? in
                        guard case .create(let draft) = operation, Set(tags).isSubset(of: draft.tags),
                              done == nil || draft.done == done else { return nil }
                        return draft.title
                    }
                    if descending { matching.reverse() }
                    if sort == .title { matching.sort() }
                    var seen: [String] = []
                    var cursor: String?
                    repeat {
                        let page = try await store.fetch(TaskQuery(filter: TaskFilter(done: done, tags: tags),
                                                                   sort: [SortKey(field: sort, descending: descending)], limit: 200,
                                                                   cursor: cursor, includeTotal: true))
                        #expect(page.total == matching.count, "tags \(tags), done \(String(describing: done)), \(sort)")
                        seen += page.tasks.map(\.title)
                        cursor = page.nextCursor
                    } while cursor != nil
                    #expect(seen == matching, "tags \(tags), done \(String(describing: done)), \(sort) \(descending)")
                }
            }
        }
        #expect(expected["rare"]!.count < FetchPlan.rareTagCount)
        #expect(["common", "commo", "mmo"].allSatisfy { expected[$0]!.count >= FetchPlan.rareTagCount })
    }
}
