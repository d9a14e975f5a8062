import TestSupport
import Testing

extension TestDatabase {
    /// A fresh database for a test case of `store`. Outside scripts/with-postgres a
    /// PostgreSQL case ends at once, cancelled, with a warning that says why: a cancelled
    /// case alone is reported as passed.
    static func fresh(_ store: StoreKind) throws -> TestDatabase {
        if store == .postgresql, let reason = Cluster.unavailable {
            Issue.record(Comment(rawValue: "the PostgreSQL case is skipped: " + reason), severity: .warning)
            try Test.cancel()
        }
        return try TestDatabase(store)
    }
}
