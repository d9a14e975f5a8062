import CSQLite
import Glibc
import TaskStore
import Testing

/// The store sets up SQLite as Taskline runs it before its first connection: in a fresh
/// process (other tests here register the WAL buffer themselves), opening a store leaves
/// the WAL buffer as the default VFS, over the system's own.
@Suite struct StorageSetupTests {
    @Test func openingAStoreRegistersTheWALBuffer() async {
        await #expect(processExitsWith: .success) {
            let store = try TaskStore(path: ":memory:")
            await store.close()
            guard let vfs = sqlite3_vfs_find(nil), String(cString: vfs.pointee.zName) == "taskline-wal-buffer" else {
                exit(1)
            }
        }
    }
}
