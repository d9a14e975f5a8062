/// A page of the change log: `tasks/changes`.
public struct ChangePage: Sendable, Hashable {
    public var changes: [TaskChange]
    /// Where the next call should start: the last change's seq, or `since` when there was none.
    public var seq: Int64
    public var hasMore: Bool

    public init(changes: [TaskChange], seq: Int64, hasMore: Bool) {
        self.changes = changes
        self.seq = seq
        self.hasMore = hasMore
    }
}
