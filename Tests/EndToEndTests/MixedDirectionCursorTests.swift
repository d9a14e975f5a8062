import Foundation
import JSON
import TestSupport
import Testing

/// `tasks/fetch` sorted by keys in opposite directions and paged by cursor, through the real
/// binary, against the order computed apart from Taskline: by Python, as the protocol
/// (§5) defines it, with one stable sort per key from the last key to the first (Python's
/// sort keeps ties in place, also in reverse) after one by id in the last key's direction.
@Suite struct MixedDirectionCursorTests {
    static let oracle = #"""
        import json, sys
        from datetime import datetime, timezone

        def instant(text):
            if len(text) == 10:
                return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)
            return datetime.fromisoformat(text.replace("Z", "+00:00"))

        data = json.load(sys.stdin)
        orders = []
        for sort in data["sorts"]:
            tasks = sorted(data["tasks"], key=lambda t: t["id"].encode(), reverse=sort[-1]["order"] == "desc")
            for key in reversed(sort):
                field, descending = key["field"], key["order"] == "desc"
                if field == "due":  # tasks without due last, in either order
                    dated = sorted((t for t in tasks if t["due"] is not None), key=lambda t: instant(t["due"]), reverse=descending)
                    tasks = dated + [t for t in tasks if t["due"] is None]
                elif field == "title":
                    tasks = sorted(tasks, key=lambda t: t["title"].lower(), reverse=descending)
                else:
                    tasks = sorted(tasks, key=lambda t: t[field], reverse=descending)
            orders.append([t["id"] for t in tasks])
        print(json.dumps(orders))
        """#

    static let sorts: [String] = [
        #"[{"field":"priority","order":"desc"},{"field":"title"}]"#,
        #"[{"field":"title"},{"field":"due","order":"desc"}]"#,
        #"[{"field":"due"},{"field":"priority","order":"desc"}]"#,
        #"[{"field":"due","order":"desc"},{"field":"title","order":"asc"}]"#,
        #"[{"field":"title","order":"desc"},{"field":"priority"}]"#,
        #"[{"field":"priority"},{"field":"due","order":"desc"},{"field":"title"}]"#,
    ]

    @Test(arguments: StoreKind.allCases)
    func pagesFollowTheOrderComputedApart(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument])
        try server.initialize(#"{"initializationOptions":{"notifications":false}}"#)
        // Ties on every key: titles that are equal lowercased, one instant written three
        // ways, four priorities; ids chosen so their order is not the order of creation.
        let titles = ["apple", "Apple", "banana", "BANANA", "cherry", "Banana split"]
        let dues: [String?] = [
            nil, "2026-12-10", "2026-12-09T23:00:00Z", "2026-12-10T05:00:00+06:00", "2026-12-09T23:00:00-00:00", nil, "2027-01-02",
        ]
        var tasks: [JSON] = []
        var state: UInt32 = 7
        for index in 0..<34 {
            state = state &* 1_103_515_245 &+ 12_345
            let id = String(state >> 8, radix: 16) + "-\(index)"
            let task: JSON = [
                "id": .string(id), "title": .string(titles[index * 5 % titles.count]),
                "priority": .integer(Int64(index * 3 % 4)), "due": dues[index % dues.count].map(JSON.string) ?? .null,
            ]
            let created = try server.call(index + 1, "tasks/create", JSONWriter.string(task))
            #expect(created["result"]?["id"] == .string(id), "\(created)")
            tasks.append(task)
        }
        let expected = try Self.ordersByOracle(tasks: tasks)
        #expect(expected.count == Self.sorts.count && expected.allSatisfy { Set($0).count == tasks.count })

        var requestID = 100
        for (sort, order) in zip(Self.sorts, expected) {
            var seen: [String] = []
            var cursor: String?
            repeat {
                requestID += 1
                let params = #"{"sort":\#(sort),"limit":4"# + (cursor.map { #","cursor":"\#($0)""# } ?? "") + "}"
                let page = try server.call(requestID, "tasks/fetch", params)
                let result = try #require(page["result"], "\(page)")
                seen += result["tasks"]?.arrayValue?.map { $0["id"]?.stringValue ?? "" } ?? []
                cursor = result["nextCursor"]?.stringValue
            } while cursor != nil && seen.count <= tasks.count
            #expect(seen == order, "sort \(sort)")
        }
    }

    static func ordersByOracle(tasks: [JSON]) throws -> [[String]] {
        let sorts = try sorts.map { try JSONParser.parse(Array($0.utf8)) }.map { keys in
            JSON.array(
                (keys.arrayValue ?? []).map { key in
                    ["field": key["field"] ?? .null, "order": key["order"] ?? .string("asc")]
                })
        }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", oracle]
        let input = Pipe.closedOnExec()
        let output = Pipe.closedOnExec()
        process.standardInput = .pipe(input)
        process.standardOutput = .pipe(output)
        try process.run()
        input.fileHandleForWriting.write(Data(JSONWriter.bytes(["tasks": .array(tasks), "sorts": .array(sorts)])))
        try input.fileHandleForWriting.close()
        let text = try output.fileHandleForReading.readAll()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let orders = try JSONParser.parse(Array(text).filter { $0 != 0x0A })
        return (orders.arrayValue ?? []).map { ($0.arrayValue ?? []).map { $0.stringValue ?? "" } }
    }
}
