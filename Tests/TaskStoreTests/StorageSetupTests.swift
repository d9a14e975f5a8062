import CSQLite
import Glibc
import TaskStore
import Testing

/// The store sets up SQLite as Taskline runs it before its first connection, and nothing
/// beneath it: in a fresh process, opening a store leaves the system's own VFS the default.
@Suite struct StorageSetupTests {
    @Test func openingAStoreLeavesSQLitesOwnVFSTheDefault() async {
        await #expect(processExitsWith: .success) {
            let store = try TaskStore(path: ":memory:")
            await store.close()
            guard let vfs = sqlite3_vfs_find(nil), String(cString: vfs.pointee.zName) == "unix" else {
                exit(1)
            }
        }
    }
}
