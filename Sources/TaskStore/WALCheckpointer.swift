#if canImport(Glibc)
import Glibc
#endif
import Logging
import SQLite
import Synchronization

/// Copies most of the WAL back into the database file on a thread of its own, so that no
/// write waits for all of it.
///
/// Left to itself, SQLite checkpoints in the connection that commits once the WAL passes
/// 1,000 pages, and that one commit waits while the whole WAL is copied and synced. A task
/// insert writes some 30 pages, so every 33rd create paid for it: one-task commits took
/// 0.3 ms at the median and 17–22 ms at the 99th percentile (sqlite-baseline, 100k tasks).
/// SQLite's WAL documentation suggests the split used here ("Application-Initiated
/// Checkpoints"): the store's connection reports each commit's WAL size, and once the WAL
/// holds `threshold` pages this thread, with a connection of its own, copies it with
/// passive checkpoints, which wait for no one.
///
/// The WAL starts over from its beginning only when a commit finds all of it copied, and
/// commits keep appending while the thread copies: on its own the thread never quite
/// catches up, and the WAL grew to 15,000 pages in a lock-step run. So the thread copies
/// again while that shortens what is left, then hands the rest (the pages of the last few
/// commits) to the committing connection, whose next commit copies it: a few milliseconds
/// once per cycle instead of twenty. The commit after that starts the WAL over.
final class WALCheckpointer {
    let threshold: Int
    /// Past this many pages a commit copies the WAL itself, whatever the thread is doing,
    /// as SQLite would have (writes outrunning the thread, a reader holding old pages).
    let limit: Int
    private let shared: Shared
    /// Write end of the thread's wake-up pipe: a byte starts a cycle, closing it ends the thread.
    private var wakeFD: Int32
    /// Read end of a pipe the thread closes once its connection is closed.
    private var doneFD: Int32
    /// The WAL's size at the last commit: when it shrinks, the WAL has started over.
    private var lastWALFrames = 0
    /// The WAL's size at the committing connection's last attempt at the rest.
    private var finishedAt = 0

    /// Nil when no thread can be started (commits then copy the WAL at `limit`).
    init?(path: String, busyTimeoutMilliseconds: Int32, threshold: Int) {
        var wake: [Int32] = [-1, -1]
        var done: [Int32] = [-1, -1]
        guard pipe(&wake) == 0 else { return nil }
        guard pipe(&done) == 0 else {
            wake.forEach { close($0) }
            return nil
        }
        for end in wake + done { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let shared = Shared()
        let (wakeReadFD, doneWriteFD) = (wake[0], done[1])
        let started = startDetachedThread {
            Self.run(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, wakeFD: wakeReadFD, shared: shared,
                     remainder: max(1, threshold / 10))
            close(wakeReadFD)
            close(doneWriteFD)
        }
        guard started else {
            (wake + done).forEach { close($0) }
            return nil
        }
        self.threshold = threshold
        self.limit = threshold * 10
        self.shared = shared
        self.wakeFD = wake[1]
        self.doneFD = done[0]
    }

    deinit {
        // Without waiting: the thread closes its connection and ends by itself.
        if wakeFD >= 0 { close(wakeFD) }
        if doneFD >= 0 { close(doneFD) }
    }

    /// Called on the committing thread after each commit. True when the committing
    /// connection should run a passive checkpoint now.
    func committed(walFrames: Int) -> Bool {
        if walFrames < lastWALFrames {  // started over: a new cycle
            shared.phase.store(Phase.idle, ordering: .releasing)
            finishedAt = 0
        }
        lastWALFrames = walFrames
        shared.walFrames.store(walFrames, ordering: .releasing)
        if walFrames >= limit { return true }
        switch shared.phase.load(ordering: .acquiring) {
        case Phase.idle where walFrames >= threshold && wakeFD >= 0:
            shared.phase.store(Phase.copying, ordering: .releasing)
            var byte: UInt8 = 1
            _ = write(wakeFD, &byte, 1)
            return false
        case Phase.handedOver:
            // Tried again only after another `threshold` pages: when a reader holds old
            // pages the copy cannot finish, and each try costs two syncs.
            guard finishedAt == 0 || walFrames >= finishedAt + threshold else { return false }
            finishedAt = walFrames
            return true
        default:
            return false
        }
    }

    /// Ends the thread and waits until its connection is closed, so that the caller's
    /// checkpoint does not meet it.
    func stop() {
        guard wakeFD >= 0 else { return }
        close(wakeFD)
        wakeFD = -1
        var byte: UInt8 = 0
        while read(doneFD, &byte, 1) < 0 && errno == EINTR {}
        close(doneFD)
        doneFD = -1
    }

    private static func run(path: String, busyTimeoutMilliseconds: Int32, wakeFD: Int32, shared: Shared, remainder: Int) {
        let database: Database
        do {
            database = try Database(path: path, mode: .readWrite)
            database.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
            // A connection finds the WAL when it first reads; until then it has none to copy.
            _ = try database.integer("PRAGMA schema_version")
        } catch {
            Log.warning("cannot open a connection for checkpoints; commits will make them: \(error)")
            return
        }
        defer { database.close() }
        var byte: UInt8 = 0
        while true {
            let count = read(wakeFD, &byte, 1)
            if count == 0 { return }
            if count < 0 { if errno == EINTR { continue } else { return } }
            // Copy while each pass leaves clearly less behind than the one before.
            var left = Int.max
            while true {
                do {
                    let copied = try database.checkpoint(.passive).copiedFrames
                    let previous = left
                    left = shared.walFrames.load(ordering: .acquiring) - copied
                    if left <= remainder || left > previous - previous / 4 { break }
                } catch let error as SQLiteError where error.code == SQLiteError.busy {
                    break  // another connection is checkpointing
                } catch {
                    Log.warning("checkpoint failed: \(error)")
                    break
                }
            }
            shared.phase.store(Phase.handedOver, ordering: .releasing)
        }
    }
}

/// Where a cycle is: nothing to do yet, the thread copying, or the rest left to commits.
private enum Phase {
    static let idle = 0
    static let copying = 1
    static let handedOver = 2
}

/// What the committing thread and the checkpoint thread both read.
private final class Shared: Sendable {
    let phase = Atomic<Int>(Phase.idle)
    /// The WAL's size at the last commit, in pages.
    let walFrames = Atomic<Int>(0)
}
