import CSQLite

extension Database {
    /// How far a backup has gone, after each step.
    public struct BackupProgress: Sendable, Hashable {
        public var copiedPages: Int
        public var totalPages: Int
    }

    /// Copies this whole database into `destination` with SQLite's online backup API,
    /// `pagesPerStep` pages at a time (-1: all in one step), calling `progress` after each step.
    /// A lock another connection holds is waited for as the connection that needs it says
    /// (`setBusyTimeout`), and is then an error (`SQLITE_BUSY`), not waited for again.
    ///
    /// Each step reads under a shared lock. When another connection commits between two steps,
    /// SQLite starts the copy over, so under a steady write load a copy in small steps might
    /// never finish: call this inside `readTransaction`, after a first read (a deferred
    /// transaction takes its snapshot then; a step in a transaction that has not read yet
    /// still ends its own). The transaction then holds one snapshot across all the steps; in
    /// WAL mode, writers go on meanwhile.
    public func backup(into destination: Database, pagesPerStep: Int32, progress: ((BackupProgress) -> Void)? = nil) throws {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw SQLiteError(resultCode: sqlite3_errcode(destination.handle), connection: destination.handle)
        }
        var result: Int32
        repeat {
            result = sqlite3_backup_step(backup, pagesPerStep)
            if result == SQLITE_OK || result == SQLITE_DONE {
                let total = Int(sqlite3_backup_pagecount(backup))
                progress?(BackupProgress(copiedPages: total - Int(sqlite3_backup_remaining(backup)), totalPages: total))
            }
        } while result == SQLITE_OK
        let finish = sqlite3_backup_finish(backup)
        if result != SQLITE_DONE { throw SQLiteError(resultCode: result, connection: destination.handle) }
        if finish != SQLITE_OK { throw SQLiteError(resultCode: finish, connection: destination.handle) }
    }
}
