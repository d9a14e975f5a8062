/// The graph that `dependsOn` makes, and the rules every store shares on it: which cycle a
/// write that would close one reports (1006), and which tasks lie on a cycle (`taskline check`).
package enum DependencyGraph {
    /// The cycle that task `task` closes by depending on the tasks `dependencies`, other
    /// tasks' dependencies being `dependenciesOf(task)` (asked once per task reached); nil
    /// when it closes none. A task is whatever the store knows it by, with its id. The
    /// tasks start with `task`; each depends on the next, the last on `task`. Of several
    /// cycles, the shortest; of several shortest, the first by code point, compared id by
    /// id. A breadth-first walk that takes each task's dependencies in code point order
    /// finds it (each task is reached first by the least of its shortest paths), in time
    /// linear in the tasks and dependencies reached.
    package static func shortestCycle<Task: Hashable>(
        through task: Task, dependingOn dependencies: [(task: Task, id: String)],
        dependenciesOf: (Task) throws -> [(task: Task, id: String)]
    ) rethrows -> [Task]? {
        // Each task reached → the task whose dependency it was found as.
        var cameFrom: [Task: Task] = [:]
        var queue: [Task] = []
        func reach(_ dependencies: [(task: Task, id: String)], from parent: Task) {
            for dependency in dependencies.sorted(by: { TaskRules.codePointOrder($0.id, $1.id) }) where cameFrom[dependency.task] == nil {
                cameFrom[dependency.task] = parent
                queue.append(dependency.task)
            }
        }
        reach(dependencies, from: task)
        var head = 0
        while cameFrom[task] == nil, head < queue.count {
            let current = queue[head]
            head += 1
            reach(try dependenciesOf(current), from: current)
        }
        guard var step = cameFrom[task] else { return nil }
        var backwards: [Task] = []
        while step != task {
            backwards.append(step)
            step = cameFrom[step]!
        }
        return [task] + backwards.reversed()
    }

    /// The tasks that lie on a cycle of `edges` (a task, and one it depends on): those whose
    /// dependencies lead back to them. Each is in a strongly connected component of more
    /// than one task, or depends on itself; Tarjan's algorithm, without recursion, finds
    /// them in time linear in the tasks and edges. In no particular order.
    package static func tasksOnCycles<Task: Hashable>(_ edges: [(task: Task, dependsOn: Task)]) -> [Task] {
        var number: [Task: Int] = [:]
        var tasks: [Task] = []
        func numbered(_ task: Task) -> Int {
            if let known = number[task] { return known }
            number[task] = tasks.count
            tasks.append(task)
            return tasks.count - 1
        }
        var successors: [[Int]] = []
        var dependsOnItself: [Bool] = []
        for edge in edges {
            let (from, to) = (numbered(edge.task), numbered(edge.dependsOn))
            while successors.count < tasks.count {
                successors.append([])
                dependsOnItself.append(false)
            }
            successors[from].append(to)
            if from == to { dependsOnItself[from] = true }
        }

        let count = tasks.count
        var discovered = [Int](repeating: -1, count: count)  // the order in which the walk reached each task
        var lowest = [Int](repeating: 0, count: count)  // the earliest task still on the stack it leads to
        var onStack = [Bool](repeating: false, count: count)
        var stack: [Int] = []
        var found: [Task] = []
        var reached = 0
        for root in 0..<count where discovered[root] < 0 {
            // The walk's own stack of (task, index of its next dependency to follow).
            var path = [(task: root, next: 0)]
            discovered[root] = reached
            lowest[root] = reached
            reached += 1
            stack.append(root)
            onStack[root] = true
            while let (node, next) = path.last {
                if next < successors[node].count {
                    path[path.count - 1].next += 1
                    let dependency = successors[node][next]
                    if discovered[dependency] < 0 {
                        discovered[dependency] = reached
                        lowest[dependency] = reached
                        reached += 1
                        stack.append(dependency)
                        onStack[dependency] = true
                        path.append((dependency, 0))
                    } else if onStack[dependency] {
                        lowest[node] = min(lowest[node], discovered[dependency])
                    }
                    continue
                }
                path.removeLast()
                if let parent = path.last?.task { lowest[parent] = min(lowest[parent], lowest[node]) }
                guard lowest[node] == discovered[node] else { continue }
                // `node` heads a component: the tasks above it on the stack.
                var component: [Int] = []
                repeat {
                    let member = stack.removeLast()
                    onStack[member] = false
                    component.append(member)
                } while component.last != node
                if component.count > 1 || dependsOnItself[node] { found += component.map { tasks[$0] } }
            }
        }
        return found
    }
}

/// An id as the protocol compares ids, by code point: String's `==` takes canonically
/// equivalent strings (`é` and `e` + U+0301) for one.
package struct ExactID: Hashable {
    package let text: String

    package init(_ text: String) { self.text = text }

    package static func == (a: ExactID, b: ExactID) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }

    package func hash(into hasher: inout Hasher) {
        if text.utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            for byte in text.utf8 { hasher.combine(byte) }
        }
    }
}
