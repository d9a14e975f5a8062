import Dispatch
import Logging
import SQLite
import Synchronization

/// Copies the store's WAL into the database file on a thread of its own, over a connection
/// of its own, so that a large commit that fills the WAL answers without waiting for the
/// copy.
///
/// SQLite's automatic checkpoint runs in the committing call once the WAL holds 1,000
/// frames: it copies every frame into the database file and syncs the WAL before and the
/// file after. A write of a thousand tasks spread over a large file fills more by itself,
/// so each paid for a whole checkpoint before its answer
/// (docs/decisions/0024-checkpoint-policy-by-commit-size.md). SQLite runs a checkpoint beside the writes and reads of other connections
/// ("Application-Initiated Checkpoints" in its WAL documentation), and a checkpoint cut
/// short by a crash or power loss leaves the WAL to be copied again.
///
/// A small commit (fewer than `smallCommitPages`: a create, an edit) checkpoints itself
/// once the WAL holds `frames`, as SQLite's automatic checkpoint would at a quarter of the
/// rate: one such commit in hundreds waits for the copy, where a thread copying beside the
/// commits would take its time from every one of them on a machine whose cores the server
/// and its client keep busy (docs/decisions/0024-checkpoint-policy-by-commit-size.md).
/// A large commit (an undo of a large group, a batch of an import) asks this thread
/// instead, up to `maximumFrames`, where any commit checkpoints itself: reversals back to
/// back then wait for the file's sync once in several rather than every second one.
///
/// A checkpoint copies the frames the WAL holds when it starts; the WAL starts over only
/// when a write finds all of them copied.
///
/// The connection is used only on `queue`; it is opened by `init`, so that a file this
/// process cannot open twice leaves the store with SQLite's automatic checkpoint.
final class Checkpointer: @unchecked Sendable {  // @unchecked: `connection` is the queue's alone, `askedAt` the store's
    /// The WAL's size at which a small commit checkpoints itself, and the frames by which
    /// large commits grow the WAL between requests for a checkpoint here: four times
    /// SQLite's own threshold (`wal_autocheckpoint`), so that a page written again and
    /// again is copied and the file synced a quarter as often.
    static let frames = 4000
    /// A commit that wrote fewer pages is a small one (`committed`).
    static let smallCommitPages = 1000
    /// The WAL's size at which any commit checkpoints itself, however many frames it wrote:
    /// large commits in a row that outrun the copies wait for them somewhere, and here
    /// once in several reversals rather than every second one.
    static let maximumFrames = 32_000

    private let queue = DispatchQueue(label: "taskline.checkpoint")
    private let connection: Database
    /// A checkpoint is queued and has not started: another request adds nothing.
    private let queued = Atomic<Bool>(false)

    init(path: String) throws {
        connection = try Database(path: path, mode: .readWrite)
        // Whatever the library's default: at any level but OFF, a checkpoint syncs the WAL
        // before it copies a frame and the file before the WAL can start over.
        try connection.execute("PRAGMA synchronous = FULL")
        // A connection finds the WAL in its first read, and a checkpoint before it copies
        // nothing. The header's cookie is read without the schema.
        _ = try connection.userVersion()
    }

    /// The WAL's size when a checkpoint was last asked for, and after the last commit.
    /// Read and written only on the store's connection's thread (`committed`,
    /// `requestIfBehind`).
    private var askedAt = 0
    private var committedAt = 0

    /// What the store's connection does after a commit that wrote `written` pages and left
    /// `frames` frames in the WAL: returns true when it checkpoints itself; after a large
    /// commit, asks for a checkpoint here once the WAL holds `Checkpointer.frames` more
    /// than when it last asked (one per commit would keep the queue copying and syncing a
    /// few frames at a time).
    func committed(frames: Int, written: Int) -> Bool {
        // The WAL holds only this commit's frames: it started over, so whatever it holds
        // has not been asked for.
        if frames <= written { askedAt = 0 }
        committedAt = frames
        if written < Self.smallCommitPages { return frames >= Self.frames }
        if frames >= Self.maximumFrames { return true }
        if frames >= askedAt + Self.frames {
            askedAt = frames
            request()
        }
        return false
    }

    /// Asks for a checkpoint of what the commits since the last request left, if anything:
    /// for a store that has had nothing to do for a while (`TaskStore`), so that a writer
    /// that stops leaves no frames uncopied until it writes again. On the store's
    /// connection's thread, as `committed`.
    func requestIfBehind() {
        guard committedAt > askedAt else { return }
        askedAt = committedAt
        request()
    }

    /// Queues a checkpoint, unless one is queued already. One that is running copies only
    /// the frames it found, so a request made meanwhile queues the next.
    private func request() {
        guard !queued.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            queued.store(false, ordering: .releasing)
            do {
                try connection.checkpointPassively()
            } catch {
                Log.debug("a checkpoint failed: \(error)")
            }
        }
    }

    /// Waits for the checkpoints asked for so far.
    func finish() {
        queue.sync {}
    }

    /// Waits for the checkpoints asked for so far, then closes the connection.
    func stop() {
        queue.sync { connection.close() }
    }
}
