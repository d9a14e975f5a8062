/// One change group: the changes of one write request, one `tasks/apply`, one undo or one
/// redo, which `tasks/undo` and `tasks/redo` revert as a whole.
public struct ChangeGroup: Sendable, Hashable {
    public enum Kind: String, Sendable {
        /// A write request or an apply.
        case write
        /// The reversal of a write or of a redo.
        case undo
        /// The reversal of an undo.
        case redo
    }

    /// Its first change's seq, which names the group.
    public var firstSeq: Int64
    public var lastSeq: Int64
    public var kind: Kind
    /// Written by the store that reports it (the same connection, or the command line).
    public var own: Bool
    /// When its first change was logged, in ms since the epoch.
    public var at: Int64

    public init(firstSeq: Int64, lastSeq: Int64, kind: Kind, own: Bool, at: Int64) {
        self.firstSeq = firstSeq
        self.lastSeq = lastSeq
        self.kind = kind
        self.own = own
        self.at = at
    }
}

/// Whose groups `undo` and `redo` look at.
public enum UndoScope: String, Sendable, CaseIterable {
    /// The store's own origin's: this connection's, or the command line's.
    case connection
    /// Every writer's.
    case database
}

/// What an undo or a redo did.
public struct Reversal: Sendable, Hashable {
    /// The group it reverted.
    public var group: ChangeGroup
    /// The group's tasks as the reversal left them.
    public var tasks: [TaskItem]
    /// The ids of the group's tasks that the reversal left absent.
    public var deleted: [String]
    /// The changes the reversal committed, in seq order.
    public var changes: [TaskChange]

    public init(group: ChangeGroup, tasks: [TaskItem], deleted: [String], changes: [TaskChange]) {
        self.group = group
        self.tasks = tasks
        self.deleted = deleted
        self.changes = changes
    }
}

/// Who writes through a store: its groups carry it, and scope `connection` means its groups.
public enum WriteOrigin {
    /// The command line's people commands, which undo and redo their own changes across runs.
    public static let commandLine: Int64 = 0

    /// A new origin for one connection: random, so that no two connections share one.
    public static func unique() -> Int64 {
        Int64.random(in: 1...Int64.max)
    }
}
