import CCrashVFS
import SQLite
import TaskModel
import TaskStore

/// What a store holds, in a few numbers: its tasks (every field of each, hashed, the hashes
/// summed so that order does not matter) and its newest change seq. Two stores with the
/// same fingerprint hold the same tasks and the same history length.
struct Fingerprint: Hashable, CustomStringConvertible {
    var tasks = 0
    var sum: UInt64 = 0
    var seq: Int64 = 0

    static let empty = Fingerprint()

    var description: String {
        "\(tasks) tasks, seq \(seq), hash \(String(sum, radix: 16))"
    }

    /// Reads the fingerprint of the store at `path`.
    init(path: String) throws {
        let database = try Database(path: path, mode: .readOnly)
        try database.cachedStatement(
            """
            SELECT id, title, notes, done, priority, tags, due, created_at, updated_at, completed_at, version FROM task
            """
        ).forEachRow { row in
            var hash = TaskHash()
            for column: Int32 in [0, 1, 2] { row.withUTF8(column) { hash.add($0) } }
            hash.add(row.int64(3))
            hash.add(row.int64(4))
            row.withUTF8(5) { hash.add($0) }
            if row.isNull(6) { hash.addNull() } else { row.withUTF8(6) { hash.add($0) } }
            hash.add(row.int64(7))
            hash.add(row.int64(8))
            if row.isNull(9) { hash.addNull() } else { hash.add(row.int64(9)) }
            hash.add(row.int64(10))
            add(hash.value)
        }
        seq = try database.integer("SELECT max(seq) FROM change") ?? 0
    }

    init() {}

    mutating func add(_ taskHash: UInt64) {
        tasks += 1
        sum &+= taskHash
    }

    mutating func remove(_ taskHash: UInt64) {
        tasks -= 1
        sum &-= taskHash
    }
}

/// The hash of one task's fields, the same whether read from a row or from a `TaskItem`.
struct TaskHash {
    private(set) var value: UInt64 = 0

    init() {}

    init(_ task: TaskItem) {
        for text in [task.id, task.title, task.notes] { add(text) }
        add(task.done ? 1 : 0)
        add(Int64(task.priority))
        add(task.tags.joined(separator: "\u{1F}"))
        if let due = task.due { add(due) } else { addNull() }
        add(task.createdAt)
        add(task.updatedAt)
        if let completed = task.completedAt { add(completed) } else { addNull() }
        add(task.version)
    }

    mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
        value = taskline_crash_hash(value, bytes.baseAddress, bytes.count)
    }

    mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { add($0) }
    }

    mutating func add(_ number: Int64) {
        withUnsafeBytes(of: number.littleEndian) { value = taskline_crash_hash(value ^ 0x1, $0.baseAddress, $0.count) }
    }

    mutating func addNull() {
        value = taskline_crash_hash(value ^ 0x2, nil, 0)
    }
}
