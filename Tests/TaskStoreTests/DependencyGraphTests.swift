import TaskModel
import TestSupport
import Testing

/// The graph rules against their definitions, worked out the slow way on random small graphs.
@Suite struct DependencyGraphTests {
    /// A random graph of up to 7 tasks (single letters, some ids around `é`, whose canonically
    /// equivalent spellings are different ids) with about two dependencies each.
    /// (A list, not a dictionary: a Swift dictionary takes those two spellings for one key.)
    typealias Graph = [(id: String, dependencies: [String])]

    static func graph(_ random: inout SplitMix64) -> Graph {
        let ids = ["a", "b", "c", "d", "\u{E9}", "e\u{301}", "z"].shuffled(using: &random).prefix(Int.random(in: 1...7, using: &random))
        return ids.map { id in (id, ids.filter { _ in Int.random(in: 0..<7, using: &random) < 2 }) }
    }

    static func dependencies(of id: String, in graph: Graph) -> [String] {
        graph.first { $0.id.utf8.elementsEqual(id.utf8) }?.dependencies ?? []
    }

    /// Every cycle through `task` when it depends on `dependencies`, by trying every simple path.
    static func cycles(through task: String, dependingOn dependencies: [String], in graph: Graph) -> [[String]] {
        var found: [[String]] = []
        func walk(_ path: [String], next: [String]) {
            for id in next {
                if id.utf8.elementsEqual(task.utf8) {
                    found.append(path)
                } else if !path.contains(where: { $0.utf8.elementsEqual(id.utf8) }) {
                    walk(path + [id], next: Self.dependencies(of: id, in: graph))
                }
            }
        }
        walk([task], next: dependencies)
        return found
    }

    static func precedes(_ a: [String], _ b: [String]) -> Bool {
        a.count != b.count ? a.count < b.count : a.lexicographicallyPrecedes(b) { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
    }

    @Test func theCycleReportedIsTheShortestAndOfThoseTheFirstByCodePoint() {
        var random = SplitMix64(seed: 52)
        for round in 0..<2000 {
            let graph = Self.graph(&random)
            let task = graph.randomElement(using: &random)!.id
            let dependencies = graph.map(\.id).filter { _ in Bool.random(using: &random) }.shuffled(using: &random)
            var asked: [String] = []
            let known = { (ids: [String]) in ids.map { (task: ExactID($0), id: $0) } }
            let reported = DependencyGraph.shortestCycle(through: ExactID(task), dependingOn: known(dependencies)) { task in
                asked.append(task.text)
                return known(Self.dependencies(of: task.text, in: graph).shuffled(using: &random))
            }?.map(\.text)
            let expected = Self.cycles(through: task, dependingOn: dependencies, in: graph).min(by: Self.precedes)
            #expect(
                reported?.map { Array($0.unicodeScalars) } == expected?.map { Array($0.unicodeScalars) },
                "round \(round): \(graph), \(task) → \(dependencies)")
            #expect(Set(asked.map { Array($0.utf8) }).count == asked.count, "round \(round): a task asked for twice")
        }
    }

    @Test func theTasksOnCyclesAreThoseTheirDependenciesLeadBackTo() {
        var random = SplitMix64(seed: 54)
        for round in 0..<2000 {
            let graph = Self.graph(&random)
            let edges = graph.flatMap { task in task.dependencies.map { (task: ExactID(task.id), dependsOn: ExactID($0)) } }
                .shuffled(using: &random)
            let found = DependencyGraph.tasksOnCycles(edges).map(\.text)
            let expected = graph.map(\.id).filter { !Self.cycles(through: $0, dependingOn: Self.dependencies(of: $0, in: graph), in: graph).isEmpty }
            #expect(Set(found.map { Array($0.utf8) }) == Set(expected.map { Array($0.utf8) }), "round \(round): \(graph)")
            #expect(Set(found.map { Array($0.utf8) }).count == found.count, "round \(round): a task listed twice")
        }
    }
}
