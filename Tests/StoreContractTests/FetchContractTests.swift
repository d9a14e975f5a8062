import TaskModel
import TestSupport
import Testing

/// Reads on each store: sorts and their tie-breakers, filters, invalid queries, limit,
/// offset and totals, and cursors that neither skip nor repeat.
@Suite struct FetchContractTests {
    /// Five tasks created one millisecond apart, with ids in creation order (ids break ties).
    func seeded(_ kind: StoreKind) async throws -> any TaskStoring {
        let store = try openStore(kind)
        try await store.add("Charlie", notes: "100% done", done: true, priority: 1, tags: ["work"], due: "2026-12-03", id: "t1")
        try await store.add("alpha", notes: "under_score", priority: 3, tags: ["home", "work"], id: "t2")
        try await store.add("Bravo", priority: 2, tags: ["home"], due: "2026-12-01T10:00:00Z", id: "t3")
        try await store.add("delta ÄÖÜ", done: true, due: "2026-12-02T00:00:00+02:00", id: "t4")
        try await store.add("Echo", priority: 2, id: "t5")
        return store
    }

    @Test(arguments: StoreKind.allCases)
    func defaultIsOldestFirst(kind: StoreKind) async throws {
        let store = try await seeded(kind)
        #expect(try await store.titles(TaskQuery()) == ["Charlie", "alpha", "Bravo", "delta ÄÖÜ", "Echo"])
    }

    @Test(
        arguments: StoreKind.allCases,
        [
            (SortKey(field: .createdAt, descending: true), ["Echo", "delta ÄÖÜ", "Bravo", "alpha", "Charlie"]),
            (SortKey(field: .title), ["alpha", "Bravo", "Charlie", "delta ÄÖÜ", "Echo"]),
            (SortKey(field: .title, descending: true), ["Echo", "delta ÄÖÜ", "Charlie", "Bravo", "alpha"]),
            // delta's due is 2026-12-01T22:00Z: after Bravo's, before Charlie's. No due: last either way.
            (SortKey(field: .due), ["Bravo", "delta ÄÖÜ", "Charlie", "alpha", "Echo"]),
            (SortKey(field: .due, descending: true), ["Charlie", "delta ÄÖÜ", "Bravo", "Echo", "alpha"]),
        ])
    func sortsBy(kind: StoreKind, sort: (key: SortKey, expected: [String])) async throws {
        let (key, expected) = sort
        let store = try await seeded(kind)
        #expect(try await store.titles(TaskQuery(sort: [key])) == expected)
    }

    @Test(arguments: StoreKind.allCases)
    func prioritySortBreaksTiesByID(kind: StoreKind) async throws {
        let store = try openStore(kind)
        for (title, id) in [("p2-b", "b"), ("p3", "z"), ("p2-a", "a"), ("p0", "m")] {
            try await store.add(title, priority: title == "p3" ? 3 : title == "p0" ? 0 : 2, id: id)
        }
        #expect(try await store.titles(TaskQuery(sort: [SortKey(field: .priority, descending: true)])) == ["p3", "p2-b", "p2-a", "p0"])
        #expect(try await store.titles(TaskQuery(sort: [SortKey(field: .priority)])) == ["p0", "p2-a", "p2-b", "p3"])
        // Mixed directions: priority descending, then title ascending.
        let mixed = [SortKey(field: .priority, descending: true), SortKey(field: .title)]
        #expect(try await store.titles(TaskQuery(sort: mixed)) == ["p3", "p2-a", "p2-b", "p0"])
    }

    @Test(arguments: StoreKind.allCases)
    func filters(kind: StoreKind) async throws {
        let store = try await seeded(kind)
        #expect(try await store.titles(TaskQuery(filter: TaskFilter(done: true))) == ["Charlie", "delta ÄÖÜ"])
        #expect(try await store.titles(TaskQuery(filter: TaskFilter(done: false))) == ["alpha", "Bravo", "Echo"])
        #expect(try await store.titles(TaskQuery(filter: TaskFilter(tags: ["home", "work"]))) == ["alpha"])
        #expect(try await store.titles(TaskQuery(filter: TaskFilter(tags: ["home"]))) == ["alpha", "Bravo"])
        #expect(try await store.titles(TaskQuery(filter: TaskFilter(text: "BRAV"))) == ["Bravo"])
        #expect(try await store.titles(TaskQuery(filter: TaskFilter(text: "äöü"))) == ["delta ÄÖÜ"])
        #expect(try await store.titles(TaskQuery(filter: TaskFilter(text: "%"))) == ["Charlie"])
        #expect(try await store.titles(TaskQuery(filter: TaskFilter(text: "_"))) == ["alpha"])
        #expect(try await store.titles(TaskQuery(filter: TaskFilter(text: "a%"))) == [])
        #expect(
            try await store.titles(TaskQuery(filter: TaskFilter(dueBefore: "2026-12-03", dueAfter: "2026-12-01T10:00:00Z"))) == [
                "Bravo", "delta ÄÖÜ",
            ])
        #expect(try await store.titles(TaskQuery(filter: TaskFilter(dueBefore: "2026-12-01T10:00:00Z"))) == [])
        let ids = try await store.fetch(TaskQuery()).tasks.map(\.id)
        #expect(try await store.titles(TaskQuery(filter: TaskFilter(ids: [ids[4], ids[0], "missing"]))) == ["Charlie", "Echo"])
        #expect(try await store.titles(TaskQuery(filter: TaskFilter(ids: []))) == [])
        #expect(try await store.titles(TaskQuery(filter: TaskFilter(done: false, tags: ["home"], text: "a"))) == ["alpha", "Bravo"])
    }

    @Test(arguments: StoreKind.allCases)
    func invalidQueriesNameTheField(kind: StoreKind) async throws {
        let store = try await seeded(kind)
        #expect(await invalidField { _ = try await store.fetch(TaskQuery(limit: 0)) } == "limit")
        #expect(await invalidField { _ = try await store.fetch(TaskQuery(limit: 1001)) } == "limit")
        #expect(await invalidField { _ = try await store.fetch(TaskQuery(offset: -1)) } == "offset")
        #expect(await invalidField { _ = try await store.fetch(TaskQuery(sort: [])) } == "sort")
        #expect(
            await invalidField { _ = try await store.fetch(TaskQuery(sort: [SortKey(field: .due), SortKey(field: .due, descending: true)])) }
                == "sort[1].field")
        #expect(await invalidField { _ = try await store.fetch(TaskQuery(filter: TaskFilter(tags: ["bad tag"]))) } == "filter.tags[0]")
        #expect(await invalidField { _ = try await store.fetch(TaskQuery(filter: TaskFilter(dueBefore: "x"))) } == "filter.dueBefore")
        #expect(await invalidField { _ = try await store.fetch(TaskQuery(cursor: "zz")) } == "cursor")
        let page = try await store.fetch(TaskQuery(limit: 2))
        let cursor = try #require(page.nextCursor)
        #expect(await invalidField { _ = try await store.fetch(TaskQuery(cursor: cursor, offset: 1)) } == "offset")
        #expect(await invalidField { _ = try await store.fetch(TaskQuery(sort: [SortKey(field: .title)], cursor: cursor)) } == "cursor")
    }

    @Test(arguments: StoreKind.allCases)
    func limitOffsetAndTotal(kind: StoreKind) async throws {
        let store = try await seeded(kind)
        let page = try await store.fetch(TaskQuery(filter: TaskFilter(done: false), limit: 2, offset: 1, includeTotal: true))
        #expect(page.tasks.map(\.title) == ["Bravo", "Echo"])
        #expect(page.total == 3)
        #expect(page.nextCursor == nil)
        #expect(try await store.fetch(TaskQuery()).total == nil)
    }

    @Test(
        arguments: StoreKind.allCases,
        [
            [SortKey(field: .createdAt)],
            [SortKey(field: .title, descending: true)],
            [SortKey(field: .due)],
            [SortKey(field: .due, descending: true)],
            [SortKey(field: .priority, descending: true), SortKey(field: .createdAt)],
            [SortKey(field: .updatedAt)],
        ])
    func cursorPagingNeitherSkipsNorRepeatsWhileOthersWrite(kind: StoreKind, sort: [SortKey]) async throws {
        let store = try openStore(kind)
        var original: Set<String> = []
        for index in 0..<40 {
            let due = index % 3 == 0 ? nil : "2026-12-\(10 + index % 7)"
            original.insert(try await store.add("task \(index % 9)", priority: index % 4, due: due).id)
        }
        var deleted: Set<String> = []
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try await store.fetch(TaskQuery(sort: sort, limit: 7, cursor: cursor))
            seen += page.tasks.map(\.id)
            cursor = page.nextCursor
            pages += 1
            // Between pages: delete a task not reached yet and one already seen, and add one.
            for victim in [
                original.subtracting(seen).subtracting(deleted).sorted().first,
                seen.first { !deleted.contains($0) },
            ].compactMap({ $0 }) {
                _ = try await store.delete(id: victim)
                deleted.insert(victim)
            }
            _ = try await store.add("new \(pages)", priority: pages % 4)
        } while cursor != nil
        #expect(Set(seen).count == seen.count, "a task was returned twice")
        let skipped = original.subtracting(deleted).subtracting(seen)
        #expect(skipped.isEmpty, "tasks that existed throughout were skipped")
        #expect(pages >= 4)
    }

    @Test(arguments: StoreKind.allCases)
    func tagsComeBackSortedByCodePoint(kind: StoreKind) async throws {
        let store = try openStore(kind)
        let task = try await store.add("t", tags: ["b", "B", "a", "é", "Z"])
        #expect(task.tags == ["B", "Z", "a", "b", "é"])
        #expect(try await store.get(id: task.id).tags == task.tags)
    }

    @Test(arguments: StoreKind.allCases)
    func pagesFollowTheSortWithCursorsAndFilters(kind: StoreKind) async throws {
        let store = try openStore(kind)
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
}

/// Pages in creation order, open and done tasks interleaved, by cursor and by offset.
@Suite struct CreationOrderContractTests {
    /// 24 tasks created three to a millisecond, ids out of creation order within each
    /// millisecond, open and done interleaved. Returns the store and the ids in
    /// `(createdAt, id)` order.
    func seeded(_ kind: StoreKind) async throws -> (any TaskStoring, [String]) {
        let clock = ManualClock()
        let store = try StoreUnderTest(kind, clock: clock, step: 0).open()
        var created: [(millisecond: Int, id: String)] = []
        for index in 0..<24 {
            if index % 3 == 0 { clock.set(1_780_000_000_000 + Int64(index)) }
            let id = "t\((index * 7) % 24 + 10)"
            try await store.add("task \(index)", done: index % 2 == 1 || index % 5 == 0, id: id)
            created.append((index / 3, id))
        }
        return (store, created.sorted { ($0.millisecond, $0.id) < ($1.millisecond, $1.id) }.map(\.id))
    }

    @Test(arguments: StoreKind.allCases, [false, true])
    func cursorPagesFollowCreationOrderAcrossOpenAndDone(kind: StoreKind, descending: Bool) async throws {
        let (store, ordered) = try await seeded(kind)
        let expected = descending ? Array(ordered.reversed()) : ordered
        let sort = [SortKey(field: .createdAt, descending: descending)]
        #expect(try await store.idsPagedByCursor(sort: sort, limit: 5, atMost: expected.count) == expected)
        let window = try await store.fetch(TaskQuery(sort: sort, limit: 6, offset: 7))
        #expect(window.tasks.map(\.id) == Array(expected[7..<13]))
        // A second key after createdAt is merged on too (all priorities are 0; the id
        // breaks ties in the last key's direction).
        let twoKeys = try await store.fetch(TaskQuery(sort: sort + [SortKey(field: .priority, descending: descending)], limit: 24))
        #expect(twoKeys.tasks.map(\.id) == expected)
    }

    /// An offset into the merge of the open and the done tasks is found from the open task
    /// at its share of the offset, then stepped forwards or backwards: with the done tasks
    /// bunched (first, in the middle, last) that guess misses by many tasks either way, and
    /// every offset still lands where the order says.
    @Test(arguments: StoreKind.allCases, [false, true])
    func offsetsIntoTheMergeLandWhereverTheDoneTasksAre(kind: StoreKind, descending: Bool) async throws {
        let clock = ManualClock()
        let store = try openStore(kind, clock: clock)
        var ordered: [String] = []
        for index in 0..<90 {
            clock.set(1_780_000_000_000 + Int64(index))
            let id = "t\(index + 100)"
            try await store.add("task \(index)", done: index < 20 || (40..<50).contains(index) || index >= 80, id: id)
            ordered.append(id)
        }
        let expected = descending ? Array(ordered.reversed()) : ordered
        let sort = [SortKey(field: .createdAt, descending: descending)]
        for offset in 0...91 {
            let window = try await store.fetch(TaskQuery(sort: sort, limit: 3, offset: offset))
            #expect(window.tasks.map(\.id) == Array(expected.dropFirst(offset).prefix(3)), "offset \(offset)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func exportFollowsCreationOrder(kind: StoreKind) async throws {
        let (store, ordered) = try await seeded(kind)
        #expect(try await store.exported().map(\.id) == ordered)
    }

    /// The plan SQLite makes: both runs read in order from task_by_done, nothing sorted.
}

/// Pages by due date descending: the dated tasks, then the undated ones.
@Suite struct DueDescendingContractTests {
    /// 30 tasks: due dates on five days (six tasks a day, so ties), a third undated, and
    /// priorities and titles that disagree with creation order.
    func seeded(_ kind: StoreKind) async throws -> (any TaskStoring, [TaskItem]) {
        let store = try openStore(kind)
        var tasks: [TaskItem] = []
        for index in 0..<30 {
            let due = index % 3 == 0 ? nil : "2026-12-1\(index % 5)"
            tasks.append(try await store.add("task \((index * 11) % 30)", priority: (index * 7) % 4, due: due))
        }
        return (store, tasks)
    }

    /// `tasks` in the order of `sort` (fields `due`, `priority`, `title`), as the protocol
    /// defines it: undated last in either direction, ties broken by id in the last key's direction.
    func ordered(_ tasks: [TaskItem], by sort: [SortKey]) -> [String] {
        func compare(_ a: TaskItem, _ b: TaskItem, _ key: SortKey) -> Bool? {
            switch key.field {
            case .due:
                switch (a.due, b.due) {
                case (nil, nil): return nil
                case (nil, _): return false
                case (_, nil): return true
                case (let x?, let y?): return x == y ? nil : (x < y) != key.descending
                }
            case .priority: return a.priority == b.priority ? nil : (a.priority < b.priority) != key.descending
            case .title: return a.title == b.title ? nil : (a.title.lowercased() < b.title.lowercased()) != key.descending
            default: preconditionFailure("not used here")
            }
        }
        return tasks.sorted { a, b in
            for key in sort { if let before = compare(a, b, key) { return before } }
            return (a.id < b.id) != sort.last!.descending
        }.map(\.id)
    }

    @Test(
        arguments: StoreKind.allCases,
        [
            [SortKey(field: .due, descending: true)],
            [SortKey(field: .due, descending: true), SortKey(field: .priority)],
            [SortKey(field: .due, descending: true), SortKey(field: .title, descending: true)],
        ])
    func pagesFollowTheOrderAcrossDatedAndUndated(kind: StoreKind, sort: [SortKey]) async throws {
        let (store, tasks) = try await seeded(kind)
        let expected = ordered(tasks, by: sort)
        #expect(try await store.idsPagedByCursor(sort: sort, limit: 4, atMost: expected.count) == expected)
        // Windows before, across and after the last dated task (the 20th).
        for offset in [0, 5, 17, 19, 20, 23, 29, 30, 40] {
            let window = try await store.fetch(TaskQuery(sort: sort, limit: 6, offset: offset))
            #expect(window.tasks.map(\.id) == Array(expected.dropFirst(offset).prefix(6)), "offset \(offset)")
            #expect((window.nextCursor != nil) == (offset + 6 < expected.count), "offset \(offset)")
        }
        // A page that ends on the last dated task leads to the undated ones.
        let dated = try await store.fetch(TaskQuery(sort: sort, limit: 20))
        #expect(dated.tasks.map(\.id) == Array(expected.prefix(20)))
        let undated = try await store.fetch(TaskQuery(sort: sort, limit: 20, cursor: dated.nextCursor))
        #expect(undated.tasks.map(\.id) == Array(expected.dropFirst(20)))
        #expect(undated.nextCursor == nil)
        // A due range holds no undated task.
        let ranged = try await store.fetch(TaskQuery(filter: TaskFilter(dueAfter: "2026-12-12"), sort: sort, limit: 100))
        #expect(ranged.tasks.map(\.id) == expected.filter { id in tasks.first { $0.id == id }!.due.map { $0 >= "2026-12-12" } ?? false })
    }
}

/// The text filter: a substring of the title or the notes, whatever its case, taken literally.
@Suite struct TextFilterContractTests {
    @Test(arguments: StoreKind.allCases)
    func findsSubstringsWithTheIndexAndWithoutIt(kind: StoreKind) async throws {
        let store = try openStore(kind)
        try await store.add("Ärger mit dem Öl", notes: "Straße \"gesperrt\"", id: "a")
        try await store.add("plain", notes: "nothing here", id: "b")
        for (needle, expected) in [
            ("ärger", ["a"]), ("ÖL", ["a"]), ("\"gesperrt\"", ["a"]), ("ss", []), ("ß", ["a"]),
            ("e", ["a", "b"]), ("here", ["b"]), ("nothing here", ["b"]), ("xyz", []), ("", ["a", "b"]),
        ] {
            #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: needle))).tasks.map(\.id) == expected, "needle \(needle)")
        }
    }

    /// The index folds the way the filter does: whatever Swift's lowercasing makes of a text
    /// (İ becomes i + U+0307, longer than it was) is what the index holds and is searched for.
    @Test(arguments: StoreKind.allCases)
    func theIndexAgreesWithTheFilterOnEveryCharacter(kind: StoreKind) async throws {
        let store = try openStore(kind)
        try await store.add("İstanbul ΣΑΣ", notes: "say \"q\"\u{301} here", id: "a")
        for needle in ["İstanbul", "istanbul", "i\u{307}stanbul", "ΣΑΣ", "σασ", "\"q\"\u{301}", "q\"\u{301} h"] {
            let found = try await store.fetch(TaskQuery(filter: TaskFilter(text: needle))).tasks.map(\.id)
            let expected = "İstanbul ΣΑΣ say \"q\"\u{301} here".lowercased().contains(needle.lowercased()) ? ["a"] : []
            #expect(found == expected, "needle \(needle.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        _ = try await store.update(id: "a", changes: TaskChanges(title: "plain"))
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "İstanbul"))).tasks.isEmpty)
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "PLAIN"))).tasks.map(\.id) == ["a"])
    }

    @Test(arguments: StoreKind.allCases)
    func followsUpdatesAndDeletes(kind: StoreKind) async throws {
        let store = try openStore(kind)
        try await store.add("before", id: "a")
        _ = try await store.update(id: "a", changes: TaskChanges(title: "after"))
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "before"))).tasks.isEmpty)
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "after"))).tasks.count == 1)
        _ = try await store.delete(id: "a")
        #expect(try await store.fetch(TaskQuery(filter: TaskFilter(text: "after"))).tasks.isEmpty)
    }

    /// LIKE's wildcards and its escape character are text like any other.
    @Test(arguments: StoreKind.allCases)
    func aNeedleIsFoundLiterallyInTitlesAndNotes(kind: StoreKind) async throws {
        let store = try openStore(kind)
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
}
