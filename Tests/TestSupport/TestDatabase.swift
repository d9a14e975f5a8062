/// The stores a server runs on, for the tests that run on each.
public enum StoreKind: String, CaseIterable, Sendable {
    case sqlite
    case postgresql
}

/// A fresh, empty database of either store, named as `taskline --db` takes it: a file in a
/// folder of its own, removed with this value, or a new schema in the test database of
/// scripts/with-postgres (`TASKLINE_TEST_POSTGRES`), the connection string setting its
/// search_path. Several servers given the same `argument` share one database. Schemas stay
/// until the throwaway cluster goes.
public final class TestDatabase: Sendable {
    public let store: StoreKind
    /// What `--db` takes.
    public let argument: String
    private let directory: TemporaryDirectory?

    public init(_ store: StoreKind) throws {
        self.store = store
        switch store {
        case .sqlite:
            let directory = TemporaryDirectory()
            self.directory = directory
            argument = directory.file("tasks.sqlite")
        case .postgresql:
            directory = nil
            argument = try Cluster.freshSchema(prefix: "e2e_")
        }
    }
}
