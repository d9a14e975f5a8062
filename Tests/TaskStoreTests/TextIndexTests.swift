import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

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

/// Trigrams each in half the tasks can meet in a few: "alpha delta" is in one task of 500
/// here, while every trigram of it is in thousands of "alpha beta …" or "gamma delta …".
/// Asked for together they narrow the needle to those few, where a scan in sort order would
/// read every task; together in thousands a page leaves them out, and a count reads them.
@Suite struct CommonTrigramsTests {
    let directory = TemporaryDirectory()

    @Test func commonTrigramsThatMeetInFewTasksAreAskedForTogether() async throws {
        let store = try makeStore(directory)
        let half = TextIndex.commonCount + 100
        let titles = (0..<2 * half).map { $0 % 500 == 0 ? "alpha delta \($0)" : $0 < half ? "alpha beta \($0)" : "gamma delta \($0)" }
        for first in stride(from: 0, to: titles.count, by: 1000) {
            let drafts = titles[first..<min(titles.count, first + 1000)].map { TaskOperation.create(TaskDraft(title: $0)) }
            _ = try await store.apply(drafts, atomic: true)
        }
        let database = try Database(path: directory.file("tasks.sqlite"))
        try database.writeTransaction { try TextIndex.indexPending(in: database) }

        #expect(try TextIndex.candidates(for: "alpha delta", in: database)?.few == true)
        // Asked for by the trigrams that hold each of its characters, not by all nine.
        #expect(try TextIndex.candidates(for: "alpha delta", in: database)?.match == #""alp" AND "ha " AND "del" AND "lta""#)
        #expect(try TextIndex.candidates(for: "alpha beta", in: database)?.few == false)
        // Too many for a page: alone, counted as a phrase in the index; with another
        // filter, few enough for a count to read them from the index.
        let plan = try FetchPlan(filter: TaskFilter(text: "alpha beta"), sort: [SortKey(field: .title)], now: 0, database: database)
        #expect(try plan.count(in: database).sql == TextIndex.countSQL)
        let withDone = try FetchPlan(filter: TaskFilter(done: false, text: "alpha beta"), sort: [SortKey(field: .title)], now: 0, database: database)
        #expect(try withDone.count(in: database).sql.contains(TextIndex.source))
        // In creation order the page reads task_by_done's open tasks in order; the count
        // still starts from the candidates, each task found by its key.
        let openInCreationOrder = try FetchPlan(
            filter: TaskFilter(done: false, text: "alpha beta"), sort: [SortKey(field: .createdAt)],
            now: 0, database: database)
        let openCount = try openInCreationOrder.count(in: database)
        var steps: [String] = []
        try database.cachedStatement("EXPLAIN QUERY PLAN " + openCount.sql).forEachRow(openCount.values) { steps.append($0.text(3)) }
        #expect(steps.contains { $0.hasPrefix("SCAN task_text VIRTUAL TABLE") }, "\(steps)")
        #expect(
            steps.contains { $0.hasPrefix("SEARCH task USING INTEGER PRIMARY KEY") } && !steps.contains { $0.contains("task_by_done") },
            "\(steps)")
        #expect(try database.integer(openCount.sql, openCount.values) == Int64(titles.filter { $0.contains("alpha beta") }.count))
        for needle in ["alpha delta", "alpha beta", "a delta 1", "ha delta 8"] {
            let expected = titles.filter { $0.contains(needle) }
            for sort in [SortKey(field: .title), SortKey(field: .createdAt, descending: true)] {
                let page = try await store.fetch(TaskQuery(filter: TaskFilter(text: needle), sort: [sort], limit: 50, includeTotal: true))
                #expect(page.total == expected.count, "needle \(needle)")
                let ordered = sort.field == .title ? expected.sorted() : expected.reversed()
                #expect(page.tasks.map(\.title) == Array(ordered.prefix(50)), "needle \(needle), \(sort.field)")
            }
        }

        // A text that waits to be indexed is counted as it is now: a new one, a changed one
        // whose old text the index still holds, and a deleted one's, which it holds too.
        let firstTwo = try await store.fetch(TaskQuery(filter: TaskFilter(text: "alpha beta"), limit: 2)).tasks
        _ = try await store.update(id: firstTwo[0].id, changes: TaskChanges(title: "gamma"))
        _ = try await store.delete(id: firstTwo[1].id)
        _ = try await store.add("alpha beta, new")
        _ = try await store.add("alpha bet")
        let count = titles.filter { $0.contains("alpha beta") }.count - 1
        for filter in [TaskFilter(text: "alpha beta"), TaskFilter(done: false, text: "alpha beta")] {
            let page = try await store.fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true))
            #expect(page.total == count, "\(filter)")
        }
        #expect(try database.integer("SELECT count(*) FROM task_text_pending") == 3)
        #expect(try database.integer("SELECT count(*) FROM task_text_stale") == 2)
    }
}

/// A common needle whose tasks sort late: "zzz item …" titles, one in twelve, after tens of
/// thousands of "aaa item …" ones, and due a year after them. Along the titles, or the due
/// dates, the scan runs out of its time budget before its page is full, and the page
/// comes from the index's candidates; by creation time it finds its tasks at once. Either
/// way, every page is the one the order gives, with other filters beside the text and at
/// an offset too.
@Suite struct LateTextTests {
    let directory = TemporaryDirectory()

    @Test func aScanThatFindsItsTasksLateGivesTheSamePagesFromTheIndex() async throws {
        let store = try makeStore(directory)
        let titles = (0..<60_000).map { $0 % 12 == 0 ? "zzz item \($0)" : "aaa item \($0)" }
        let drafts = titles.indices.map { index in
            let day = index % 28 + 1
            let year = titles[index].hasPrefix("zzz") ? 2031 : 2030
            return TaskDraft(title: titles[index], due: "\(year)-01-\(day < 10 ? "0" : "")\(day)")
        }
        for first in stride(from: 0, to: drafts.count, by: 2000) {
            _ = try await store.apply(drafts[first..<first + 2000].map { TaskOperation.create($0) }, atomic: true)
        }
        let database = try Database(path: directory.file("tasks.sqlite"))
        try database.writeTransaction { try TextIndex.indexPending(in: database) }

        let byTitle = try FetchPlan(filter: TaskFilter(text: "zzz item"), sort: [SortKey(field: .title)], now: 0, database: database)
        let candidates = try #require(byTitle.commonTextCandidates)
        #expect(try TextIndex.reading(candidates, in: database) == .cheap)
        let run = byTitle.pageRuns(after: nil)[0]
        let error = #expect(throws: SQLiteError.self) {
            try database.withTimeBudget(TextIndex.scanTime) { try database.cachedStatement(run.sql).forEachRow(run.values + [.integer(51)]) { _ in } }
        }
        #expect(error?.resultCode.primary == .interrupt)
        // The plan made again reads the candidates, and still counts the needle as a phrase.
        let fromIndex = try FetchPlan(
            filter: TaskFilter(text: "zzz item"), sort: [SortKey(field: .title)], now: 0, database: database,
            textFromIndex: candidates)
        #expect(fromIndex.commonTextCandidates == nil)
        #expect(try fromIndex.count(in: database).sql == TextIndex.countSQL)

        let matching = titles.filter { $0.hasPrefix("zzz") }
        for sort in [SortKey(field: .title), SortKey(field: .title, descending: true), SortKey(field: .createdAt)] {
            let expected = sort.field == .createdAt ? matching : sort.descending ? matching.sorted().reversed() : matching.sorted()
            var seen: [String] = []
            var cursor: String?
            for _ in 0..<3 {
                let page = try await store.fetch(
                    TaskQuery(filter: TaskFilter(text: "zzz item"), sort: [sort], limit: 100, cursor: cursor, includeTotal: true))
                #expect(page.total == matching.count)
                seen += page.tasks.map(\.title)
                cursor = page.nextCursor
            }
            #expect(seen == Array(expected.prefix(300)), "\(sort)")
        }

        // By due date, in a due window, open: the candidates are where the page starts,
        // each task found by its key, with the window's bound and the filters' values after.
        var all: [TaskItem] = []
        var cursor: String?
        repeat {
            let page = try await store.fetch(TaskQuery(filter: TaskFilter(text: "zzz item"), limit: TaskQuery.maxLimit, cursor: cursor))
            all += page.tasks
            cursor = page.nextCursor
        } while cursor != nil
        let byDue = all.sorted { ($0.due ?? "", $0.id) < ($1.due ?? "", $1.id) }.map(\.title)
        let filter = TaskFilter(done: false, text: "zzz item", dueAfter: "2030-01-01")
        var seen: [String] = []
        cursor = nil
        for _ in 0..<3 {
            let page = try await store.fetch(TaskQuery(filter: filter, sort: [SortKey(field: .due)], limit: 100, cursor: cursor, includeTotal: true))
            #expect(page.total == matching.count)
            seen += page.tasks.map(\.title)
            cursor = page.nextCursor
        }
        #expect(seen == Array(byDue.prefix(300)))
        let atOffset = try await store.fetch(TaskQuery(filter: filter, sort: [SortKey(field: .due)], limit: 10, offset: 2000))
        #expect(atOffset.tasks.map(\.title) == Array(byDue[2000..<2010]))
    }
}

/// The tags filter reads a rare tag's tasks from task_tag and checks a common one task by
/// task, in the task's own list of tags, where "mmo" is inside "common": both must give exactly the tasks that have the tags, in order, page after page,
/// with the done filter beside them.
@Suite struct TagFilterChoiceTests {
    let directory = TemporaryDirectory()

    @Test func rareAndCommonTagsGiveTheSamePages() async throws {
        let store = try makeStore(directory)
        let count = FetchPlan.fewTasks + 300
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
        for tags in [
            ["rare"], ["common"], ["rare", "common"], ["even", "rare"], ["nowhere"], ["common", "nowhere"],
            ["commo"], ["mmo"], ["mmo", "commo"], ["mm"],
        ] {
            // By creation time the first tag's taggings are read in order; by
            // title, along the title index with each tag checked.
            for (sort, descending) in [(SortKey.Field.createdAt, false), (.createdAt, true), (.title, false)] {
                for done in [nil, true, false] as [Bool?] {
                    var matching = drafts.compactMap { operation -> String? in
                        guard case .create(let draft) = operation, Set(tags).isSubset(of: draft.tags),
                            done == nil || draft.done == done
                        else { return nil }
                        return draft.title
                    }
                    if descending { matching.reverse() }
                    if sort == .title { matching.sort() }
                    var seen: [String] = []
                    var cursor: String?
                    repeat {
                        let page = try await store.fetch(
                            TaskQuery(
                                filter: TaskFilter(done: done, tags: tags),
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
        #expect(expected["rare"]!.count < FetchPlan.fewTasks)
        #expect(["common", "commo", "mmo"].allSatisfy { expected[$0]!.count >= FetchPlan.fewTasks })
    }
}

/// New and changed texts wait in task_text_pending, and the texts they replace or a deletion
/// removes wait in task_text_stale; both reach the trigram index in batches
/// (TextIndex.indexPending). Whether a task's text is pending or indexed, the text filter finds exactly
/// the tasks that contain the needle; and once all is indexed, FTS5's own check finds the
/// index equal to the tasks' texts (a 'delete' of texts never indexed, or of other texts
/// than those indexed, would break it).
@Suite struct PendingTextTests {
    let directory = TemporaryDirectory()

    @Test func pendingAndIndexedTextsAreFoundAlikeAndTheIndexStaysExact() async throws {
        let store = try makeStore(directory)
        let words = ["alpha", "bravo", "charlie", "delta"]
        var titles: [String: String] = [:]
        var random: UInt64 = 42
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        func check(_ when: String) async throws {
            for needle in ["alpha", "bravo 1", "charlie 7", "delta", "zulu"] {
                let expected = titles.filter { $0.value.contains(needle) }.count
                let page = try await store.fetch(TaskQuery(filter: TaskFilter(text: needle), limit: 1, includeTotal: true))
                #expect(page.total == expected, "\(needle), \(when)")
            }
        }
        let waitingSQL = "SELECT (SELECT count(*) FROM task_text_pending), (SELECT count(*) FROM task_text_stale)"
        let waitingTexts = {
            try Database(path: directory.file("tasks.sqlite")).cachedStatement(waitingSQL).firstRow { ($0.int(0), $0.int(1)) } ?? (0, 0)
        }
        var sawPending = false
        var sawStale = false
        var sawFlush = false
        for step in 0..<700 {
            let ids = Array(titles.keys)
            let roll = next(10)
            switch ids.isEmpty ? 0 : roll {
            case 0..<6:
                let title = "\(words[next(4)]) \(next(100))"
                let task = try await store.add(title)
                titles[task.id] = title
            case 6..<9:
                let id = ids[next(ids.count)]
                let title = "\(words[next(4)]) \(next(100))"
                _ = try await store.update(id: id, changes: TaskChanges(title: title))
                titles[id] = title
            default:
                let id = ids[next(ids.count)]
                _ = try await store.delete(id: id)
                titles[id] = nil
            }
            let (pending, stale) = try waitingTexts()
            #expect(pending + stale < TextIndex.pendingLimit)
            if pending > 0 { sawPending = true }
            if stale > 0 { sawStale = true }
            if pending + stale == 0 && step > 0 { sawFlush = true }
            if step % 50 == 0 { try await check("step \(step), \(pending) pending, \(stale) stale") }
        }
        #expect(sawPending && sawStale && sawFlush)
        try await check("at the end")

        let other = try Database(path: directory.file("tasks.sqlite"))
        try other.writeTransaction { try TextIndex.indexPending(in: other) }
        try await check("all indexed")
        try other.run("INSERT INTO task_text (task_text, rank) VALUES ('integrity-check', 1)")
    }
}

/// Another program that inserts tasks with plain SQL leaves their texts waiting (the
/// triggers queue them; only Taskline indexes): the store indexes them when it opens.
@Suite struct WaitingTextsFromOtherWritersTests {
    let directory = TemporaryDirectory()

    @Test func areIndexedWhenTheStoreOpens() async throws {
        _ = try makeStore(directory)
        let other = try Database(path: directory.file("tasks.sqlite"))
        try other.writeTransaction {
            for index in 0..<(TextIndex.pendingLimit + 10) {
                try other.run(
                    """
                    INSERT INTO task (id, title, title_fold, notes, notes_fold, done, priority, created_at, updated_at, version)
                    VALUES (?, ?, ?, '', '', 0, 0, 1, 1, 1)
                    """, [.text("other-\(index)"), .text("Other \(index)"), .text("other \(index)")])
            }
        }
        let waiting = "SELECT count(*) FROM task_text_pending"
        #expect(try other.integer(waiting) == Int64(TextIndex.pendingLimit + 10))

        let store = try makeStore(directory)
        #expect(try other.integer(waiting) == 0)
        let page = try await store.fetch(TaskQuery(filter: TaskFilter(text: "other 99"), limit: 50, includeTotal: true))
        #expect(page.tasks.map(\.id) == ["other-99"])
        try other.run("INSERT INTO task_text (task_text, rank) VALUES ('integrity-check', 1)")
    }
}

/// Whether a common needle's candidates are read from the index: always when fewer than
/// `cheapCandidates`; after a second try of the scan, on a budget of what reading them
/// costs, when fewer than a quarter of the tasks; never when more.
@Suite struct CandidateReadingTests {
    @Test func candidatesAreReadUnlessAQuarterOfTheTasksOrMore() {
        let cheap = TextIndex.cheapCandidates
        #expect(TextIndex.reading(candidates: cheap - 1, of: 100 * cheap) == .cheap)
        #expect(TextIndex.reading(candidates: cheap - 1, of: cheap) == .cheap)
        #expect(TextIndex.reading(candidates: cheap, of: cheap) == .tooDear)
        #expect(TextIndex.reading(candidates: cheap, of: 4 * cheap) == .tooDear)
        #expect(TextIndex.reading(candidates: cheap, of: 4 * cheap + 4) == .dear(TextIndex.candidateReadTime * cheap))
        #expect(TextIndex.reading(candidates: 250_000, of: 1_000_000) == .tooDear)
        #expect(TextIndex.reading(candidates: 110_989, of: 1_000_000) == .dear(.nanoseconds(500 * 110_989)))
    }
}

/// A needle of one or two characters has no trigram, but the index pads each text with two
/// U+0001, so every occurrence of such a needle begins one of its trigrams: when the
/// trigrams that begin with it are few, they name its tasks; otherwise a scan finds them.
/// Either way the answer is exactly the tasks that hold the needle: at the start, inside or
/// at the end of a title or of the notes, a title of one character, a text waiting to be
/// indexed, one taken out; and a needle with U+0001 in it, which the padding could fake.
@Suite struct ShortNeedleTests {
    let directory = TemporaryDirectory()

    @Test func aShortNeedleIsFoundFromTheTrigramsThatBeginWithIt() async throws {
        let store = try makeStore(directory)
        var drafts = (0..<(TextIndex.commonCount + 500)).map { TaskDraft(title: "Common task \($0)") }
        drafts += [
            TaskDraft(title: "qz at the start"), TaskDraft(title: "inside aqzb"), TaskDraft(title: "ends in qz"),
            TaskDraft(title: "q"), TaskDraft(title: "QZ shouted"), TaskDraft(title: "in the notes", notes: "a line\nthat ends in qz"),
            TaskDraft(title: "notes of two", notes: "qz"), TaskDraft(title: "a control in the notes", notes: "a\u{1}b"),
            TaskDraft(title: "ends in a padding-like pair", notes: "z\u{1}\u{1}"),
        ]
        for first in stride(from: 0, to: drafts.count, by: 1000) {
            _ = try await store.apply(drafts[first..<min(drafts.count, first + 1000)].map { TaskOperation.create($0) }, atomic: true)
        }
        let database = try Database(path: directory.file("tasks.sqlite"))
        try database.writeTransaction { try TextIndex.indexPending(in: database) }

        #expect(try TextIndex.candidates(for: "qz", in: database)?.few == true)
        // The terms in the order of their bytes: U+0001, then the space, then "b".
        #expect(try TextIndex.candidates(for: "qz", in: database)?.match == #""qz\#u{1}" OR "qz " OR "qzb""#)
        #expect(try TextIndex.candidates(for: "zq", in: database)?.match == #""zq""#)
        #expect(try TextIndex.candidates(for: "k", in: database) == nil)
        #expect(try TextIndex.candidates(for: "a\u{1}", in: database) == nil)
        #expect(try TextIndex.candidates(for: "\u{1}", in: database) == nil)

        var texts: [String: (String, String)] = [:]
        try database.cachedStatement("SELECT id, title, notes FROM task").forEachRow { texts[$0.text(0)] = ($0.text(1), $0.text(2)) }
        func check(_ when: String) async throws {
            for needle in ["qz", "q", "z", "zq", "b", "QZ", "k", "7", "\u{1}", "a\u{1}", "\u{1}\u{1}", "é"] {
                let folded = needle.lowercased()
                let expected = texts.filter { $0.value.0.lowercased().contains(folded) || $0.value.1.lowercased().contains(folded) }
                for sort in [SortKey(field: .createdAt), SortKey(field: .title)] {
                    let page = try await store.fetch(TaskQuery(filter: TaskFilter(text: needle), sort: [sort], limit: 50, includeTotal: true))
                    #expect(page.total == expected.count, "\(needle.unicodeScalars.map(\.value)), \(when)")
                    let found = Set(page.tasks.map(\.id))
                    #expect(
                        found.isSubset(of: Set(expected.keys)) && found.count == min(50, expected.count),
                        "\(needle.unicodeScalars.map(\.value)), \(sort.field), \(when)")
                }
            }
        }
        try await check("all indexed")

        // A changed text whose old one the index still holds, a deleted one's, a new one.
        let start = try await store.fetch(TaskQuery(filter: TaskFilter(text: "qz at"), limit: 1)).tasks[0]
        _ = try await store.update(id: start.id, changes: TaskChanges(title: "no longer"))
        texts[start.id] = ("no longer", "")
        let end = try await store.fetch(TaskQuery(filter: TaskFilter(text: "ends in qz"), limit: 1)).tasks[0]
        _ = try await store.delete(id: end.id)
        texts[end.id] = nil
        let new = try await store.add("new qz")
        texts[new.id] = ("new qz", "")
        #expect(try database.integer("SELECT count(*) FROM task_text_pending") == 2)
        #expect(try database.integer("SELECT count(*) FROM task_text_stale") == 2)
        try await check("texts waiting")

        try database.writeTransaction { try TextIndex.indexPending(in: database) }
        try await check("indexed again")
        // The index holds exactly the padded texts of task_text_source.
        try database.run("INSERT INTO task_text (task_text, rank) VALUES ('integrity-check', 1)")
    }
}
