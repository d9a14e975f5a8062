import Glibc
import SQLite

public enum BackupError: Error, Sendable, CustomStringConvertible {
    case destinationExists(path: String)
    case cannotWrite(path: String, detail: String)

    public var description: String {
        switch self {
        case .destinationExists(let path): "\(path) exists already; a backup never overwrites a file"
        case .cannotWrite(let path, let detail): "cannot write \(path): \(detail)"
        }
    }
}

extension TaskStore {
    /// Copies the database into a new file at `destination` with SQLite's online backup API,
    /// `pagesPerStep` pages at a time, calling `progress` after each step.
    ///
    /// The copy is one snapshot, taken when the call starts: every commit made before it is
    /// in the copy, none made after. All the steps read that same snapshot (see
    /// `Database.backup`), so writers, in this process or others, go on meanwhile and never
    /// make the copy start over. The file is written under a temporary name beside
    /// `destination`, with mode 0600, synced, and only then given its name, which must not
    /// exist: a half-made backup never has the name of a good one. The copy is in rollback
    /// journal mode, one self-contained file that opens on read-only media too.
    public func backup(
        to destination: String, pagesPerStep: Int32 = 1024,
        progress: ((_ copiedPages: Int, _ totalPages: Int) -> Void)? = nil
    ) throws {
        guard access(destination, F_OK) != 0 else { throw BackupError.destinationExists(path: destination) }
        let temporary = destination + ".partial-\(getpid())"
        do {
            try StoreFile.createEmptyFile(at: temporary)
        } catch {
            throw BackupError.cannotWrite(path: destination, detail: "\(error)")
        }
        // Once linked, the temporary name is only a second name of the finished copy.
        defer { unlink(temporary) }
        try translatingSQLiteErrors {
            let copy = try Database(path: temporary, mode: .readWrite)
            defer { copy.close() }
            try database.readTransaction {
                _ = try database.integer("SELECT count(*) FROM sqlite_schema")  // the snapshot starts here
                try database.backup(into: copy, pagesPerStep: pagesPerStep) { progress?($0.copiedPages, $0.totalPages) }
            }
            // The pages copied say WAL, and a WAL-mode file is read through a -shm file that
            // read-only media cannot give it. In rollback mode the copy is whole by itself and
            // opens anywhere; a server that opens it for writing switches it back to WAL.
            try copy.execute("PRAGMA journal_mode = DELETE")
        }
        try Self.sync(temporary, destination: destination)
        // link() fails when the name exists, where rename() would replace it.
        guard link(temporary, destination) == 0 else {
            throw BackupError.cannotWrite(path: destination, detail: String(cString: strerror(errno)))
        }
        try Self.sync(Self.folder(of: destination), destination: destination)
    }

    private static func sync(_ path: String, destination: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        defer { if fd >= 0 { Glibc.close(fd) } }
        guard fd >= 0, fsync(fd) == 0 else {
            throw BackupError.cannotWrite(path: destination, detail: String(cString: strerror(errno)))
        }
    }

    private static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }
}
