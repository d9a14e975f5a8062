import TaskModel
import TestSupport
import Testing

@testable import TaskStore

/// Short ids for people: git's rule, on the random end of time-ordered ids.
@Suite struct ShortIDTests {
    let directory = TemporaryDirectory()

    func key(_ id: String) -> String {
        String(String.UnicodeScalarView(ShortID.key(of: id)))
    }

    @Test func theKeyOfAVersion7UUIDIsItsLastGroupAndOfAnyOtherIdTheWholeId() {
        #expect(key("0193a4b2-1c3d-7abc-8def-c1e9a3f5aaaa") == "c1e9a3f5aaaa")
        #expect(key("zzzzzzzz-zzzz-7zzz-zzzz-zzzzzzzzzzzz") == "zzzzzzzzzzzz", "the shape decides")
        #expect(key("éééééééé-éééé-7ééé-éééé-éééééééééééé") == "éééééééééééé", "characters, not bytes")
        #expect(key("0193a4b2-1c3d-4abc-8def-c1e9a3f5aaaa") == "0193a4b2-1c3d-4abc-8def-c1e9a3f5aaaa")
        #expect(key("0193a4b2-1c3d-7abc-8def-c1e9a3f5aaaaa") == "0193a4b2-1c3d-7abc-8def-c1e9a3f5aaaaa")
        #expect(key("0193a4b2-1c3d-7abc-8defxc1e9a3f5aaaa") == "0193a4b2-1c3d-7abc-8defxc1e9a3f5aaaa")
        #expect(key("77") == "77")
    }

    /// The SQL the lookups filter with computes the same keys as `key(of:)`.
    @Test func theSQLKeyIsTheSwiftKey() async throws {
        let store = try makeStore(directory)
        let ids = [
            "0193a4b2-1c3d-7abc-8def-c1e9a3f5aaaa", "zzzzzzzz-zzzz-7zzz-zzzz-zzzzzzzzzzzz",
            "éééééééé-éééé-7ééé-éééé-éééééééééééé", "0193a4b2-1c3d-4abc-8def-c1e9a3f5aaaa",
            "0193a4b2-1c3d-7abc-8def-c1e9a3f5aaaaa", "0193a4b2-1c3d-7abc-8defxc1e9a3f5aaaa",
            "0193a4b2-1c3d-7abc-8def-c1e9a3f5aaa", "[???????-????-7???-????-????????????", "77", TaskItem.newID(),
        ]
        for id in ids { try await store.add("t", id: id) }
        let keys = try await store.keysBySQL()
        #expect(keys.count == ids.count)
        for (id, sqlKey) in keys { #expect(sqlKey == key(id), "\(id)") }
    }

    @Test func shortIDsAreTheShortestUniqueStartsOfKeys() async throws {
        let store = try makeStore(directory)
        let a = "0193a4b2-1c3d-7000-8000-c1e9a3f5aaaa"
        let b = "0193a4b2-1c3e-7000-8000-c1e9a3f5bbbb"
        let c = "0193a4b2-1c3f-7000-8000-d1e9a3f5cccc"
        let d = "c1e9a3f0-0000-4000-8000-000000000000"
        let e = "0193a4b2-1c40-7000-8000-eeeeeeeeeeee"
        let f = "0193a4b2-1c41-7000-8000-eeeeeeeeeeee"
        let g = "0193a4b2-1c3d-4000-8000-c1e9a3f5aaab"  // a's key 24 characters in, but not a version-7 id
        let expected = [
            g: "0193a4b",
            a: "c1e9a3f5a", b: "c1e9a3f5b",  // their keys share 8 characters
            c: "d1e9a3f",
            d: "c1e9a3f0",  // its whole id shares 7 characters with a's and b's keys
            e: e, f: f,  // one key: only the whole id tells them apart
            "77": "77", "abcdefgh-1": "abcdefgh-1", "abcdefgh-2": "abcdefgh-2", "zzzzzzzzzz": "zzzzzzz",
        ]
        for id in expected.keys { try await store.add("t", id: id) }
        let listed = try await store.shortIDs(for: expected.keys)
        // Past `mostHeads` heads (ids no task has count too), every crowded id instead.
        let absent = (0..<ShortIDs.mostHeads).map { String($0, radix: 16) + "-absent" }
        let everyCrowded = try await store.shortIDs(for: Array(expected.keys) + absent)
        #expect(ShortIDs.heads(of: Array(expected.keys) + absent) == nil)
        for (id, short) in expected {
            #expect(try await store.shortID(for: id) == short, "\(id)")
            #expect(listed.shortID(for: id) == short, "\(id), from the list's pass")
            #expect(everyCrowded.shortID(for: id) == short, "\(id), from every crowded id")
        }
    }

    /// The heads a store looks for: each once, padded to a power of two with the last.
    @Test func theHeadsOfIdsArePaddedToAPowerOfTwo() {
        #expect(ShortIDs.heads(of: []) == [])
        #expect(ShortIDs.heads(of: ["0193a4b2-1c3d-7000-8000-c1e9a3f5aaaa", "0193a4b2-1c3e-7000-8000-c1e9a3f5bbbb"]) == ["c1e9a3f"])
        let three = ShortIDs.heads(of: ["77", "abcdefgh-1", "zzzzzzzzzz", "yyyyyyyy"]) ?? []
        #expect(three.count == 4 && Set(three) == ["abcdefg", "zzzzzzz", "yyyyyyy"] && three[3] == three[2])
        #expect(ShortIDs.heads(of: ["77", "abcdefg"]) == [], "a key of 7 characters or fewer is its own short id: no pass")
        #expect(ShortIDs.heads(of: (0..<ShortIDs.mostHeads).map { "\($0)-long-id" })?.count == ShortIDs.mostHeads)
    }

    @Test func aStartOfAShortIDFindsItsTask() async throws {
        let store = try makeStore(directory)
        let a = "0193a4b2-1c3d-7000-8000-c1e9a3f5aaaa"
        let b = "0193a4b2-1c3e-7000-8000-c1e9a3f5bbbb"
        let d = "c1e9a3f0-0000-4000-8000-000000000000"
        for id in [a, b, d, "77", "abcdefgh-1", "abcdefgh-2", "zzzzzzzzzz", "éé\u{10FFFF}x"] { try await store.add("t", id: id) }
        #expect(try await store.resolveID("c1e9a3f5a") == a)
        #expect(try await store.resolveID("c1e9a3f5bbbb") == b, "a longer start of the key")
        #expect(try await store.resolveID(b) == b)
        #expect(try await store.resolveID("c1e9a3f0") == d)
        #expect(try await store.resolveID("zzzz") == "zzzzzzzzzz")
        #expect(try await store.resolveID("77") == "77", "a whole id, however short")
        #expect(try await store.resolveID("abcdefgh-2") == "abcdefgh-2")
        #expect(try await store.resolveID("éé\u{10FFFF}x") == "éé\u{10FFFF}x")
        await #expect(throws: ShortID.LookupError.ambiguous(given: "c1e9", candidates: [a, b, d])) { try await store.resolveID("c1e9") }
        await #expect(throws: ShortID.LookupError.ambiguous(given: "abcd", candidates: ["abcdefgh-1", "abcdefgh-2"])) {
            try await store.resolveID("abcd")
        }
        await #expect(throws: ShortID.LookupError.notFound(given: "0193a4b2"), "the time a version-7 id starts with is not its key") {
            try await store.resolveID("0193a4b2")
        }
        await #expect(throws: ShortID.LookupError.tooShort(given: "zz")) { try await store.resolveID("zz") }
        await #expect(throws: ShortID.LookupError.notFound(given: "abce")) { try await store.resolveID("abce") }
    }

    /// Tasks the server names, made one after another: each keeps the 7-character short id
    /// it got, which git-style starts of time-ordered ids would not.
    @Test func serverMadeIdsGetShortIDsThatStay() async throws {
        let store = try makeStore(directory)
        var first: [String: String] = [:]
        for number in 0..<200 {
            let task = try await store.add("task \(number)")
            first[task.id] = try await store.shortID(for: task.id)
        }
        let all = try await store.shortIDs(for: first.keys)
        for (id, short) in first {
            #expect(short.count == ShortID.minimumLength)
            #expect(all.shortID(for: id) == short)
            #expect(try await store.resolveID(short) == id)
        }
    }
}

extension TaskStore {
    /// Each task's id with its key as `ShortID.keySQL` computes it.
    func keysBySQL() throws -> [(String, String)] {
        var keys: [(String, String)] = []
        try database.cachedStatement("SELECT id, \(ShortID.keySQL) FROM task").forEachRow { keys.append(($0.text(0), $0.text(1))) }
        return keys
    }
}
