import CSQLite
import Glibc
import ProcessSetup
import TaskStore
import Testing

/// `ProcessSetup` configures SQLite as Taskline runs it, and nothing beneath it. Each test
/// runs in a fresh process: SQLite takes the settings only before it initializes.
@Suite struct ProcessSetupTests {
    /// Made before the first store opens, the settings take: SQLite keeps no memory
    /// statistics (`SQLITE_CONFIG_MEMSTATUS`), and the system's own VFS stays the default.
    @Test func settingsMadeBeforeTheFirstStoreTake() async {
        await #expect(processExitsWith: .success) {
            ProcessSetup.configureLibraries()
            let store = try TaskStore(path: ":memory:")
            await store.close()
            guard sqlite3_memory_used() == 0 else { exit(1) }
            guard let vfs = sqlite3_vfs_find(nil), String(cString: vfs.pointee.zName) == "unix" else { exit(2) }
        }
    }

    /// A store configures nothing of the process: opened without the settings, it runs on
    /// SQLite's defaults, which keep memory statistics.
    @Test func aStoreAloneLeavesSQLitesDefaults() async {
        await #expect(processExitsWith: .success) {
            let store = try TaskStore(path: ":memory:")
            guard sqlite3_memory_used() > 0 else { exit(1) }
            await store.close()
        }
    }
}
