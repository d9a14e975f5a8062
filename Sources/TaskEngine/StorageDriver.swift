import TaskModel

/// What the engine asks of a store's database: primitives that read and write rows inside
/// the write transaction the engine opened through `writeTransaction`, each with the store's
/// SQL and its database's quirks only. What to check, in which order, and what each condition
/// answers is the engine's, in this protocol's extensions; both stores conform, SQLite
/// (`TaskStore`) and PostgreSQL (`PostgresTaskStore`).
///
/// An actor's protocol: the engine's functions run isolated to the store that calls them,
/// on its executor, with no hop between store and engine.
package protocol StorageDriver: Actor {
    /// How a write addresses a task's row: SQLite's integer key, PostgreSQL's id.
    associatedtype RowKey
    /// A change group being written: what `logged` and `snapshot` mark their rows with.
    associatedtype Group

    /// Now, in ms since the epoch: the time a write stamps.
    func now() -> Int64

    // MARK: Transactions

    /// Runs `body` in a write transaction; database errors come out as `TaskStoreError`s.
    /// `large`: it may write more rows than a page cache usually holds (`largeWrite`
    /// operations or more, an undo).
    func writeTransaction<T>(large: Bool, _ body: () throws -> T) throws -> T
    /// Runs `body` in a savepoint of the caller's transaction: an error it throws undoes only
    /// what it did.
    func savepoint<T>(_ body: () throws -> T) throws -> T
    /// Runs `body` inside the caller's transaction as one change group of this store's.
    func recordingGroup<T>(_ body: (Group) throws -> T) throws -> T
    /// Task `id` as committed, read outside any transaction; database errors as in
    /// `writeTransaction`.
    func committedTask(id: String) throws -> TaskItem?

    // MARK: Rows

    /// Task `id` and its row's key.
    func loadForWrite(id: String) throws -> (key: RowKey, task: TaskItem)?
    /// Inserts `task`'s row (`dueAt`, `waitAt`: its due date and wait time in ms); nil when
    /// its id is taken. Its dependencies are `writeDependencies`'.
    func insert(_ task: TaskItem, dueAt: Int64?, waitAt: Int64?) throws -> RowKey?
    /// Row `key`, just inserted, depends on the tasks `requested` (as the request sent them,
    /// `field` naming them); an unknown one is refused, naming its place (`field[2]`).
    func writeDependencies(of key: RowKey, requested: [String], field: String) throws
    /// Gives row `key`, which holds `current`, `task`'s fields but its dependencies.
    func replace(_ key: RowKey, with task: TaskItem, dueAt: Int64?, waitAt: Int64?, current: TaskItem) throws
    /// Row `key` depends on the tasks `requested` and no others; an unknown one, or one that
    /// would close a cycle (`DependencyGraph.shortestCycle`), is refused.
    func replaceDependencies(of key: RowKey, requested: [String], field: String) throws
    /// Deletes row `key`, with its dependencies.
    func delete(_ key: RowKey) throws
    /// The tasks that depend on row `key`, with their keys, in id order.
    func dependents(of key: RowKey) throws -> [(key: RowKey, task: TaskItem)]
    /// Removes every dependency on row `key`; the dependents' rows are `replace`d next.
    func dropDependencies(on key: RowKey) throws
    /// Records that row `key` made the occurrence `successor`, unless the one it made
    /// before still exists: false then. Of several writers completing one occurrence,
    /// exactly one is told true.
    func claimSuccessor(of key: RowKey, successor: String) throws -> Bool

    // MARK: The change log

    /// Keeps row `key` as it is before group `group` changes it; once per task and group.
    func snapshot(_ key: RowKey, group: Group) throws
    /// The same for every task that depends on row `key`.
    func snapshotDependents(of key: RowKey, group: Group) throws
    /// The change the write just made to task `id` logged as one of group `group`'s, with
    /// its seq; `task`: the task after it (nil for a deletion).
    func logged(_ kind: TaskChange.Kind, id: String, version: Int64, task: TaskItem?, group: Group) throws -> TaskChange
}

extension StorageDriver {
    /// How many operations make an apply `large`: past a few hundred, their pages no
    /// longer fit SQLite's usual cache.
    package static var largeWrite: Int { 256 }

    func logged(_ kind: TaskChange.Kind, task: TaskItem, group: Group) throws -> TaskChange {
        try logged(kind, id: task.id, version: task.version, task: task, group: group)
    }
}
