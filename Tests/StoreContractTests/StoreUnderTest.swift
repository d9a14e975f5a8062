import PostgreSQL
import PostgresStore
import SQLite
import StoreServing
import TaskModel
import TaskStore
import TestSupport
import Testing

/// A fresh database of one store kind for one test case, and the stores opened on it: one,
/// or more as several servers are on one database. Outside scripts/with-postgres a
/// PostgreSQL case ends at once, cancelled (reported as passed), with a warning saying why.
struct StoreUnderTest {
    let kind: StoreKind
    let database: TestDatabase
    let clock: ManualClock
    /// How far the clock moves at each reading, in milliseconds.
    let step: Int64

    init(_ kind: StoreKind, clock: ManualClock = ManualClock(), step: Int64 = 1) throws {
        if kind == .postgresql, let reason = Cluster.unavailable {
            Issue.record(Comment(rawValue: "the PostgreSQL case is skipped: " + reason), severity: .warning)
            try Test.cancel()
        }
        self.kind = kind
        database = try TestDatabase(kind)
        self.clock = clock
        self.step = step
    }

    /// A store on the database; `origin` names whose change groups are its own.
    func open(origin: Int64 = WriteOrigin.unique()) throws -> any ServedStore & CommandLineStoring {
        let (clock, step) = (self.clock, self.step)
        return switch kind {
        case .sqlite:
            try TaskStore(path: database.argument, options: StoreOptions(durability: .normal), origin: origin, clock: { clock.read(step: step) })
        case .postgresql:
            try PostgresTaskStore(connectionString: database.argument, origin: origin, clock: { clock.read(step: step) })
        }
    }
}

extension StoreUnderTest {
    /// Runs `sql` on the database as another program would: `sqlite` on a SQLite file,
    /// `postgresql` on a PostgreSQL schema, each written in its database's dialect.
    func execute(sqlite: String, postgresql: String) throws {
        switch kind {
        case .sqlite: try Database(path: database.argument).execute(sqlite)
        case .postgresql: try PostgresConnection(database.argument).execute(postgresql)
        }
    }

    /// What `taskline check` finds in the database.
    func check() throws -> StoreCheckReport {
        switch kind {
        case .sqlite: try TaskStore.check(path: database.argument)
        case .postgresql: try PostgresTaskStore.check(connectionString: database.argument)
        }
    }
}

/// A fresh store of `kind`, alone on its database.
func openStore(_ kind: StoreKind, clock: ManualClock = ManualClock()) throws -> any TaskStoring {
    try StoreUnderTest(kind, clock: clock).open()
}

/// Two stores on one fresh database of `kind`, as two servers are.
func twoStores(_ kind: StoreKind) throws -> (any TaskStoring, any TaskStoring) {
    let database = try StoreUnderTest(kind)
    return (try database.open(), try database.open())
}

extension TaskStoring {
    /// Whether a task with `id` exists.
    func exists(_ id: String) throws -> Bool {
        try !fetch(TaskQuery(filter: TaskFilter(ids: [id]))).tasks.isEmpty
    }

    func changes(since: Int64) throws -> ChangePage { try changes(since: since, limit: 1000) }

    func undo() throws -> Reversal? { try undo(scope: .connection, force: false) }
    func redo() throws -> Reversal? { try redo(scope: .connection, force: false) }

    /// Every task, as `exportTasks` reads them: oldest first.
    func exported() throws -> [TaskItem] {
        var tasks: [TaskItem] = []
        try exportTasks { tasks.append(contentsOf: $0) }
        return tasks
    }
}
