import Synchronization

/// A count that tasks and threads add to.
public final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    public var value: Int { count.load(ordering: .relaxed) }

    public init() {}

    public func add() { count.add(1, ordering: .relaxed) }
}
