import CSQLite

extension Database {
    public enum CheckpointMode: Sendable {
        /// Copies what it can without waiting for readers or writers.
        case passive
        /// Waits for readers and writers (up to the busy timeout), copies everything and
        /// empties the WAL file.
        case truncate

        var code: Int32 {
            switch self {
            case .passive: SQLITE_CHECKPOINT_PASSIVE
            case .truncate: SQLITE_CHECKPOINT_TRUNCATE
            }
        }
    }

    /// Copies committed pages from the WAL back into the database file. Returns how many
    /// frames the WAL holds and how many of them are now copied. Throws `SQLITE_BUSY` when
    /// another connection is checkpointing, or (`truncate`) when readers or writers kept it
    /// from finishing.
    @discardableResult
    public func checkpoint(_ mode: CheckpointMode) throws -> (walFrames: Int, copiedFrames: Int) {
        let sql = "sqlite3_wal_checkpoint_v2(\(mode))"
        try checkOpen(sql)
        var walFrames: Int32 = 0
        var copiedFrames: Int32 = 0
        let result = sqlite3_wal_checkpoint_v2(handle, nil, mode.code, &walFrames, &copiedFrames)
        guard result == SQLITE_OK else { throw SQLiteError(resultCode: result, connection: handle, sql: sql) }
        return (Int(walFrames), Int(copiedFrames))
    }

    /// Calls `hook` on the committing thread after each commit in WAL mode, with the number
    /// of frames the WAL now holds. It replaces SQLite's automatic checkpoint on this
    /// connection (`PRAGMA wal_autocheckpoint` installs a hook of its own), so the caller
    /// takes over deciding when to checkpoint.
    public func onCommit(walFrames hook: @escaping (Int) -> Void) {
        let box = CommitHook(hook)
        commitHook = box
        sqlite3_wal_hook(handle, { context, _, _, frames in
            Unmanaged<CommitHook>.fromOpaque(context!).takeUnretainedValue().hook(Int(frames))
            return SQLITE_OK
        }, Unmanaged.passUnretained(box).toOpaque())
    }
}

final class CommitHook {
    let hook: (Int) -> Void

    init(_ hook: @escaping (Int) -> Void) {
        self.hook = hook
    }
}
