import CSQLite
import Logging

/// Taskline's process-wide settings for the libraries it runs on: the C library's and
/// SQLite's (CSQLite's shim), made at the start of a process, before SQLite initializes
/// (it refuses them afterwards). `taskline`'s main and the power-loss harness call it, so
/// that both run the libraries alike. Failing costs speed, not correctness (the libraries
/// then run with their defaults), so a failure is logged with its code and the process goes on.
public enum ProcessSetup {
    /// Applies the settings; once per process, however often it is called.
    public static func configureLibraries() { _ = done }

    private static let done: Void = {
        let configured = taskline_sqlite_configure_library()
        if configured == SQLITE_MISUSE {
            Log.warning(
                "SQLite was initialized before the process configured it (SQLite error \(configured)): its library settings stay as they were then")
        } else if configured != SQLITE_OK {
            Log.warning("SQLite's library settings were refused (SQLite error \(configured)): running with its defaults")
        }
    }()
}
