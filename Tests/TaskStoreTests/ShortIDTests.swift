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

    /// The heads a store looks for: each once, padded to a power of two with the last.
    @Test func theHeadsOfIdsArePaddedToAPowerOfTwo() {
        #expect(ShortIDs.heads(of: []) == [])
        #expect(ShortIDs.heads(of: ["0193a4b2-1c3d-7000-8000-c1e9a3f5aaaa", "0193a4b2-1c3e-7000-8000-c1e9a3f5bbbb"]) == ["c1e9a3f"])
        let three = ShortIDs.heads(of: ["77", "abcdefgh-1", "zzzzzzzzzz", "yyyyyyyy"]) ?? []
        #expect(three.count == 4 && Set(three) == ["abcdefg", "zzzzzzz", "yyyyyyy"] && three[3] == three[2])
        #expect(ShortIDs.heads(of: ["77", "abcdefg"]) == [], "a key of 7 characters or fewer is its own short id: no pass")
        #expect(ShortIDs.heads(of: (0..<ShortIDs.mostHeads).map { "\($0)-long-id" })?.count == ShortIDs.mostHeads)
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
