import CCrashVFS
import SQLite
import Synchronization
import TaskModel
import TaskStore
import TestSupport

/// A seeded run of the store through every path that writes: one-task creates, updates and
/// deletes; an atomic apply large enough to spill the page cache to the WAL, whose updates
/// then change pages already spilled, while another connection reads; an apply that spills
/// and then fails and rolls back; checkpoints, automatic and explicit; and the close, which
/// checkpoints and removes the WAL. After each operation it tells `points` the state the
/// store must now hold.
struct Workload {
    /// The notes of the large tasks: with the folded copy, about 120 KB of overflow pages each.
    static let largeNotesLength = 60_000
    /// Tasks in each large apply: 8 MiB of page cache (StoreFile) spills at 57 to 64 of them.
    static let largeApplyCount = 72
    static let failingApplyCount = 72
    /// The segments of the text index to merge (FTS5's `usermerge`, schema 39), and the
    /// tasks that make one (`TextIndex.pendingLimit`).
    static let textSegments = 16
    static let textSegmentTasks = 128

    let options: Options
    let points: CrashPoints
    private var random: SplitMix64
    private var tasks: [String: TaskItem] = [:]
    private var state = Fingerprint.empty
    private var createdCount = 0
    private(set) var problems: [String] = []

    init(options: Options, points: CrashPoints) {
        self.options = options
        self.points = points
        random = SplitMix64(seed: options.seed)
    }

    mutating func run() async throws {
        points.begin("open")
        let clock = StepClock()
        let store = try TaskStore(
            path: points.databasePath, options: StoreOptions(durability: options.durability),
            clock: { clock.next() })
        points.acknowledged(state, commit: false)

        for round in 0..<options.scale {
            try await smallWrites(24, store: store, round: round)
            try await checkpoint(store)

            // Large enough to spill: the first tasks' pages go to the WAL before the commit,
            // and the updates at the end change them again, so the commit writes them anew.
            var operations = (0..<Self.largeApplyCount).map { _ in TaskOperation.create(largeDraft()) }
            for case .create(let draft) in operations.prefix(8) {
                operations.append(.update(id: draft.id!, changes: TaskChanges(notes: largeNotes(), priority: 3), ifVersion: 1))
            }
            let overwrites = taskline_crash_vfs_counters().log_overwrites
            // Another process reads meanwhile, from a snapshot before the apply: the automatic
            // checkpoint after its commit can copy nothing back, so the commit is the last
            // thing written to the WAL when the apply returns.
            let reader = try Database(path: points.databasePath, mode: .readOnly)
            try reader.execute("BEGIN")
            _ = try reader.integer("SELECT count(*) FROM task")
            try await apply("a large atomic apply", operations, store: store)
            try reader.execute("COMMIT")
            reader.close()
            if taskline_crash_vfs_counters().log_overwrites == overwrites {
                problems.append("the large apply wrote no page of the WAL twice: it did not spill, make it larger")
            }
            let largeIDs = operations.prefix(Self.largeApplyCount).map { operation -> String in
                guard case .create(let draft) = operation else { preconditionFailure("the large apply starts with creates") }
                return draft.id!
            }

            try await smallWrites(8, store: store, round: round)

            // Spills, then fails on its last operation: all of it is undone.
            var failing = (0..<Self.failingApplyCount).map { _ in TaskOperation.create(largeDraft()) }
            failing.append(.update(id: "missing-\(round)", changes: TaskChanges(title: "never"), ifVersion: nil))
            let writes = taskline_crash_vfs_counters().writes
            try await apply("an atomic apply that fails after spilling", failing, store: store, failsAt: failing.count - 1)
            if taskline_crash_vfs_counters().writes == writes {
                problems.append("the failing apply wrote nothing before it failed: it did not spill, make it larger")
            }

            try await smallWrites(6, store: store, round: round)
            try await apply("deleting the large tasks", largeIDs.filter { tasks[$0] != nil }.map { .delete(id: $0, ifVersion: nil) }, store: store)

            // A segment of the text index a batch (a write indexes the texts waiting once
            // there are 128 of them), as many as a level holds before a merge step merges it.
            for _ in 0..<Self.textSegments {
                try await apply("a batch of creates", (0..<Self.textSegmentTasks).map { _ in .create(smallDraft()) }, store: store)
            }
            if try await !mergeTextIndex(store) {
                problems.append("no merge step merged anything: make the text index more segments")
            }
            try await checkpoint(store)
            try await smallWrites(6, store: store, round: round)
        }

        points.begin("close")
        await store.close()
        points.acknowledged(state, commit: false)
    }

    // MARK: - Operations

    private mutating func smallWrites(_ count: Int, store: TaskStore, round: Int) async throws {
        for _ in 0..<count {
            let roll = random.next() % 10
            if tasks.isEmpty || roll < 5 {
                let draft = smallDraft()
                try await write("a one-task create", store: store) { try await store.create(draft).value }
            } else if roll < 8 {
                let id = pickID()
                let changes = smallChanges()
                try await write("a one-task update", store: store) { try await store.update(id: id, changes: changes).value }
            } else {
                let id = pickID()
                points.begin("a one-task delete")
                _ = try await store.delete(id: id)
                forget(id)
                try await acknowledge(store)
            }
        }
    }

    private mutating func write(_ name: String, store: TaskStore, _ body: () async throws -> TaskItem) async throws {
        points.begin(name)
        remember(try await body())
        try await acknowledge(store)
    }

    private mutating func apply(_ name: String, _ operations: [TaskOperation], store: TaskStore, failsAt: Int? = nil) async throws {
        points.begin(name)
        do {
            for result in try await store.apply(operations, atomic: true) {
                switch try result.get().result {
                case .task(let task): remember(task)
                case .deleted(let id): forget(id)
                }
            }
            guard failsAt == nil else { throw WorkloadError("\(name) did not fail") }
        } catch TaskStoreError.operationFailed(let index, _) where index == failsAt {}
        try await acknowledge(store)
    }

    /// The steps a server runs when idle, one after another until one finds nothing to
    /// merge; whether any merged.
    private mutating func mergeTextIndex(_ store: TaskStore) async throws -> Bool {
        var steps = 0
        while true {
            points.begin("a merge step of the text index")
            let merged = try await store.mergeTextIndexStep()
            try await acknowledge(store)
            if !merged { return steps > 0 }
            steps += 1
        }
    }

    private mutating func checkpoint(_ store: TaskStore) async throws {
        points.begin("a checkpoint")
        try await store.checkpoint()
        points.acknowledged(state, commit: false)
    }

    private mutating func acknowledge(_ store: TaskStore) async throws {
        state.seq = try await store.currentSeq()
        points.acknowledged(state, commit: true)
    }

    private mutating func remember(_ task: TaskItem) {
        if let old = tasks.updateValue(task, forKey: task.id) { state.remove(TaskHash(old).value) }
        state.add(TaskHash(task).value)
    }

    private mutating func forget(_ id: String) {
        if let old = tasks.removeValue(forKey: id) { state.remove(TaskHash(old).value) }
    }

    // MARK: - Seeded content

    private static let words = [
        "buy", "milk", "call", "Ana", "review", "the", "draft", "fix", "leak", "plan", "trip",
        "pay", "rent", "walk", "dog", "read", "book", "send", "invoice", "clean", "garage",
    ]
    private static let tags = ["home", "work", "errand", "urgent", "later", "q3", "garden", "finance"]

    private mutating func words(_ count: Int) -> String {
        (0..<count).map { _ in Self.words[Int(random.next() % UInt64(Self.words.count))] }.joined(separator: " ")
    }

    private mutating func newID() -> String {
        createdCount += 1
        return "task-\(options.seed)-\(createdCount)"
    }

    private mutating func pickID() -> String {
        let ids = tasks.keys.sorted()
        return ids[Int(random.next() % UInt64(ids.count))]
    }

    private mutating func smallDraft() -> TaskDraft {
        let tagCount = Int(random.next() % 3)
        return TaskDraft(
            id: newID(), title: words(1 + Int(random.next() % 6)), notes: words(Int(random.next() % 30)),
            done: random.next() % 5 == 0, priority: Int(random.next() % 4),
            tags: (0..<tagCount).map { _ in Self.tags[Int(random.next() % UInt64(Self.tags.count))] },
            due: random.next() % 3 == 0 ? "2026-0\(1 + random.next() % 9)-1\(random.next() % 10)" : nil)
    }

    private mutating func smallChanges() -> TaskChanges {
        switch random.next() % 5 {
        case 0: TaskChanges(title: words(3))
        case 1: TaskChanges(notes: words(Int(random.next() % 40)))
        case 2: TaskChanges(done: random.next() % 2 == 0)
        case 3: TaskChanges(tags: [Self.tags[Int(random.next() % UInt64(Self.tags.count))]])
        default: TaskChanges(priority: Int(random.next() % 4), due: .some(nil))
        }
    }

    private mutating func largeDraft() -> TaskDraft {
        TaskDraft(id: newID(), title: words(4), notes: largeNotes(), tags: ["large"])
    }

    /// Distinct for each task at its start, then a seeded phrase repeated: few distinct
    /// trigrams, so the text index stays small.
    private mutating func largeNotes() -> String {
        let head = words(12) + " \(random.next()) "
        let phrase = words(10) + ". "
        var notes = head + String(repeating: phrase, count: Self.largeNotesLength / phrase.utf8.count + 1)
        notes.removeLast(notes.utf8.count - Self.largeNotesLength)
        return notes
    }
}

/// The store's clock: one millisecond further at each reading, so a run repeats exactly.
final class StepClock: Sendable {
    private let now = Mutex<Int64>(1_767_225_600_000)

    func next() -> Int64 {
        now.withLock { now in
            now += 1
            return now
        }
    }
}

struct WorkloadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
