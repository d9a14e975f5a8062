import TaskModel
import TestSupport
import Testing

/// Short ids on each store: the same answers on every store (`CommandLineStoring`).
@Suite struct ShortIDContractTests {
    @Test(arguments: StoreKind.allCases)
    func shortIDsAreTheShortestUniqueStartsOfKeys(kind: StoreKind) async throws {
        let store = try StoreUnderTest(kind).open()
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

    @Test(arguments: StoreKind.allCases)
    func aStartOfAShortIDFindsItsTask(kind: StoreKind) async throws {
        let store = try StoreUnderTest(kind).open()
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
    @Test(arguments: StoreKind.allCases)
    func serverMadeIdsGetShortIDsThatStay(kind: StoreKind) async throws {
        let store = try StoreUnderTest(kind).open()
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
