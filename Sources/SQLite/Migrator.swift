/// Brings a database's schema up to date, one numbered step at a time.
///
/// The schema version lives in `PRAGMA user_version`. Each migration runs in its own write
/// transaction together with the bump of `user_version`, so a crash leaves the schema at
/// exactly one of the versions, never between two.
public struct Migrator: Sendable {
    public struct Migration: Sendable {
        public let version: Int
        public let apply: @Sendable (Database) throws -> Void
        public init(version: Int, apply: @escaping @Sendable (Database) throws -> Void) {
            self.version = version
            self.apply = apply
        }
    }

    public let migrations: [Migration]

    public init(_ migrations: [Migration]) {
        precondition(migrations.map(\.version) == Array(1...migrations.count), "migrations must be numbered 1, 2, 3, …")
        self.migrations = migrations
    }

    /// The version the last migration reaches.
    public var latestVersion: Int { migrations.count }

    public func migrate(_ database: Database) throws {
        for migration in migrations {
            guard try database.userVersion() < migration.version else { continue }
            try database.writeTransaction {
                // Another process may have migrated while we waited for the write lock.
                guard try database.userVersion() < migration.version else { return }
                try migration.apply(database)
                try database.setUserVersion(migration.version)
            }
        }
    }
}
