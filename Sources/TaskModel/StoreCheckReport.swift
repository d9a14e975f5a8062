/// What a store's check found (`TaskStore.check`, `PostgresTaskStore.check`).
public struct StoreCheckReport: Sendable {
    public struct Counts: Sendable, Hashable {
        public var tasks = 0
        public var doneTasks = 0
        /// Task–tag pairs.
        public var taggings = 0
        public var distinctTags = 0
        public var changes = 0
        /// The newest `seq` ever handed out.
        public var newestSeq: Int64 = 0

        public init() {}
    }

    public var path: String
    public var schemaVersion = 0
    public var supportedSchemaVersion: Int
    /// Schema objects Taskline did not make at this schema version, made otherwise, or
    /// missing (see `Schema.unexpectedObjects`).
    public var unexpectedObjects: [String] = []
    /// What `PRAGMA integrity_check` reported; empty when it said "ok".
    public var integrityProblems: [String] = []
    /// Why the store has no such check of its files to run; nil where it ran.
    public var integrityNotChecked: String?
    /// What `PRAGMA foreign_key_check` reported.
    public var foreignKeyProblems: [String] = []
    /// Rows that break the task rules, or whose derived columns disagree with them: the first
    /// ones, and how many in all.
    public var ruleProblems: [String] = []
    public var ruleProblemCount = 0
    /// Nil for a new database that has no schema yet.
    public var counts: Counts?

    public init(path: String, supportedSchemaVersion: Int) {
        self.path = path
        self.supportedSchemaVersion = supportedSchemaVersion
    }

    public var isSound: Bool {
        unexpectedObjects.isEmpty && integrityProblems.isEmpty && foreignKeyProblems.isEmpty && ruleProblemCount == 0
    }
}

extension StoreCheckReport {
    /// Notes a task rule that a row breaks: the first `maxListed` in detail, every one counted.
    package mutating func rule(_ problem: String, maxListed: Int) {
        ruleProblemCount += 1
        if ruleProblems.count < maxListed { ruleProblems.append(problem) }
    }

    /// What is wrong with the numbering of a change log whose changes run from `oldest` (nil
    /// when it is empty) to `newest`, having been pruned through `prunedThrough`, which the
    /// store keeps as `prunedThroughName`.
    package static func seqProblems(prunedThrough: Int64, prunedThroughName: String, oldest: Int64?, newest: Int64) -> [String] {
        var problems: [String] = []
        if prunedThrough != 0 && !TaskRules.seqs.contains(prunedThrough) {
            problems.append("\(prunedThroughName) is \(prunedThrough), outside 0 to \(TaskRules.seqs.upperBound)")
        } else if newest < prunedThrough {
            problems.append("the change log's newest seq is \(newest), below the \(prunedThrough) pruned: seqs would repeat")
        }
        if let oldest, !TaskRules.seqs.contains(oldest) || !TaskRules.seqs.contains(newest) {
            problems.append("the change log's seqs run from \(oldest) to \(newest), outside 1 to \(TaskRules.seqs.upperBound): writes would fail")
        }
        return problems
    }
}
