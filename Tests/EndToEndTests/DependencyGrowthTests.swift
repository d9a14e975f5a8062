import Foundation
import TestSupport
import Testing

/// The dependency checks stay linear in the tasks they reach, on both stores: a walk over
/// paths takes about an hour on a ladder of 40 tasks (its paths grow as the Fibonacci
/// numbers), and a check that builds every reachable pair minutes on a chain of 10,000.
/// Each finishes here in well under a second; the bounds (the server's answer within 10 s,
/// `taskline check` within 30 s) only guard against that growth coming back.
@Suite struct DependencyGrowthTests {
    static func id(_ number: Int) -> String { String(format: "t%05d", number) }

    /// Creates tasks 1…`count`, task n depending on the tasks `dependencies(n)`, 1,000 to a `tasks/apply`.
    static func create(_ count: Int, on server: ServerProcess, dependencies: (Int) -> [Int]) throws {
        for first in stride(from: 1, through: count, by: 1000) {
            let operations = (first...min(count, first + 999)).map { number in
                let ids = dependencies(number).map { #""\#(id($0))""# }.joined(separator: ",")
                return #"{"create":{"id":"\#(id(number))","title":"\#(id(number))","dependsOn":[\#(ids)]}}"#
            }
            let answer = try server.call(first, "tasks/apply", #"{"operations":[\#(operations.joined(separator: ","))]}"#)
            try #require(answer["result"] != nil, "\(answer)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aLadderOf40IsCheckedInTime(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument], framing: .ndjson)
        try server.initialize(#"{"initializationOptions":{"notifications":false}}"#)
        try Self.create(40, on: server) { number in [number - 1, number - 2].filter { $0 >= 1 } }
        #expect(try server.call(90, "tasks/create", #"{"id":"top","title":"top"}"#)["result"] != nil)

        let above = try server.call(91, "tasks/update", #"{"id":"top","changes":{"dependsOn":["t00040","t00039"]}}"#)
        #expect(above["result"]?["dependsOn"] == ["t00039", "t00040"], "\(above)")
        // Of the many shortest ways back, the first by code point: down two at a time.
        let cycle = try server.call(92, "tasks/update", #"{"id":"t00001","changes":{"dependsOn":["t00040"]}}"#)
        let expected = [Self.id(1)] + stride(from: 40, through: 2, by: -2).map(Self.id)
        #expect(cycle["error"]?["data"]?["cycle"] == .array(expected.map { .string($0) }), "\(cycle)")
        #expect(try server.call(93, "shutdown")["result"] == .null)
    }

    @Test(arguments: StoreKind.allCases)
    func aChainOf10000IsCheckedInTime(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument], framing: .ndjson)
        try server.initialize(#"{"initializationOptions":{"notifications":false}}"#)
        try Self.create(10_000, on: server) { number in number > 1 ? [number - 1] : [] }
        #expect(try server.call(90, "shutdown")["result"] == .null)
        server.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(server.waitForExit() == 0)

        let check = try runTaskline(["check", "--db", database.argument], timeout: 30)
        #expect(check.status == 0, "\(check.output)\(check.stderr)")
    }

    /// An import checks its records' dependencies once they are all in: one walk over the
    /// graph, and a walk for each record only where that one finds a cycle.
    @Test(arguments: StoreKind.allCases)
    func anImportOfAChainOf10000IsCheckedInTime(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let records = (1...10_000).map { number in
            #"{"id":"\#(Self.id(number))","title":"t","dependsOn":[\#(number > 1 ? "\"\(Self.id(number - 1))\"" : "")]}"#
        }
        let chain = try runTaskline(["import", "-", "--db", database.argument], stdin: Data(records.joined(separator: "\n").utf8), timeout: 120)
        #expect(chain.status == 0, "\(chain.stderr)")

        let cycle = try runTaskline(
            ["import", "-", "--db", database.argument],
            stdin: Data(
                """
                {"id":"a","title":"a","dependsOn":["b"]}
                {"id":"b","title":"b","dependsOn":["c", "t10000"]}
                {"id":"c","title":"c","dependsOn":["a"]}
                """.utf8))
        #expect(cycle.status == 1)
        #expect(cycle.stderr.contains("line 3: dependsOn would close a dependency cycle: c → a → b → c"), "\(cycle.stderr)")
    }
}
