/// One entry of the change log about a task: one step of its history of versions.
public struct LoggedChange: Sendable, Hashable {
    public var seq: Int64
    public var kind: TaskChange.Kind
    public var version: Int64
    /// Milliseconds since the epoch.
    public var at: Int64

    public init(seq: Int64, kind: TaskChange.Kind, version: Int64, at: Int64) {
        self.seq = seq
        self.kind = kind
        self.version = version
        self.at = at
    }
}
