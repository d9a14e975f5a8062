import CSQLite
import Logging

/// Taskline's storage policy for the SQLite library, applied once per process before the
/// store's first connection: the library settings of CSQLite's shim. Failing costs speed, not
/// correctness (SQLite then runs with its defaults), so a failure is logged with its code and
/// the store goes on.
enum StorageSetup {
    static func ensure() { _ = done }

    private static let done: Void = {
        let configured = taskline_sqlite_configure_library()
        if configured == SQLITE_MISUSE {
            Log.warning(
                "SQLite was initialized before the store configured it (SQLite error \(configured)): its library settings stay as they were then")
        } else if configured != SQLITE_OK {
            Log.warning("SQLite's library settings were refused (SQLite error \(configured)): running with its defaults")
        }
    }()
}
