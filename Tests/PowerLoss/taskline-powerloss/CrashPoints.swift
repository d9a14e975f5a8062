import CCrashVFS
import EventLoop
import SQLite
import TaskStore
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The crash points of one run of the workload, and what the store must hold at each.
///
/// Every write, truncation, sync and deletion of the store's files is a crash point (the
/// crash VFS calls `ioPoint` after it), and so is the moment after each operation returns
/// (`acknowledged`). At a point that is checked, the images a power loss (or a crash of the
/// process) could leave are written to a scratch folder, opened as the server opens a file,
/// and checked: SQLite's integrity check and Taskline's own check find nothing, and the
/// tasks are those of an allowed state. The states are the fingerprints after each
/// operation; which ones are allowed depends on the durability:
/// - full, or any crash of the process alone: every acknowledged write is there, and the
///   write in flight wholly or not at all;
/// - normal, after a power loss: the state after some operation up to the one in flight.
/// A point inside an operation is judged when the operation returns, when its state is known.
final class CrashPoints: @unchecked Sendable {  // @unchecked: used by one thread at a time
    struct Observation {
        var point: Int
        var processCrash: Bool
        var found: Fingerprint
    }

    let options: Options
    let databaseName = "tasks.db"
    let workDirectory: String
    let imageDirectory: String
    /// Which points to check, by number; nil: all of them.
    private let selected: Set<Int>?
    /// Opens the images: a loop on a thread of its own that the stores made for them share.
    private let imageLoop = EventLoop.startThread()

    /// The number the next point gets.
    private(set) var nextPoint = 0
    /// How many I/O points each operation had.
    private(set) var ioPointsPerOperation: [Int] = []
    private var operation = ""
    /// The fingerprint before the first operation and after each one.
    private var states: [Fingerprint] = [.empty]
    private var inFlight: [Observation] = []

    private(set) var checkedPoints = 0
    private(set) var checkedAcknowledgements = 0
    private(set) var failures: [String] = []

    init(options: Options, directory: String, selected: Set<Int>?) {
        self.options = options
        self.selected = selected
        workDirectory = directory + "/work"
        imageDirectory = directory + "/image"
        for folder in [workDirectory, imageDirectory] { mkdir(folder, 0o700) }
    }

    var databasePath: String { workDirectory + "/" + databaseName }

    func begin(_ name: String) {
        operation = name
        ioPointsPerOperation.append(0)
    }

    /// Called by the crash VFS after each I/O of the store's files.
    func ioPoint() {
        let point = nextPoint
        nextPoint += 1
        ioPointsPerOperation[ioPointsPerOperation.count - 1] += 1
        guard selected?.contains(point) ?? true else { return }
        checkedPoints += 1
        // A quarter of the points check what a crash of the process leaves, the rest a power loss.
        let processCrash = imageSeed(point) % 4 == 0
        if let found = examine(point: point, processCrash: processCrash) {
            inFlight.append(Observation(point: point, processCrash: processCrash, found: found))
        }
    }

    /// The operation returned (or failed as it was meant to), leaving `state`; `commit`
    /// when it was a write.
    func acknowledged(_ state: Fingerprint, commit: Bool) {
        let before = states.count - 1
        states.append(state)
        for observation in inFlight {
            let strict = observation.processCrash || options.durability == .full
            let allowed = strict ? states[before...] : states[...]
            if !allowed.contains(observation.found) {
                fail(
                    observation.point, observation.processCrash,
                    "the store holds \(observation.found); "
                        + "allowed: \(allowed.map(\.description).joined(separator: " or "))")
            }
        }
        inFlight.removeAll()

        let point = nextPoint
        nextPoint += 1
        guard selected?.contains(point) ?? true else { return }
        checkedPoints += 1
        if commit { checkedAcknowledgements += 1 }
        for processCrash in [true, false] {
            guard let found = examine(point: point, processCrash: processCrash) else { continue }
            let strict = processCrash || options.durability == .full
            if strict ? found != state : !states.contains(found) {
                fail(point, processCrash, "acknowledged writes are missing: the store holds \(found), not \(state)")
            }
        }
    }

    /// Writes the images at this point, opens them as the server would, checks them, and
    /// returns their fingerprint; nil (and a failure recorded) when they do not pass.
    private func examine(point: Int, processCrash: Bool) -> Fingerprint? {
        // The last point's files go, but for the database, whose image is written over the
        // last one once it exists: a -wal or -journal image is written only when that file
        // exists now, and no -shm outlives a power loss.
        for suffix in ["-wal", "-shm", "-journal"] { unlink(imagePath + suffix) }
        if taskline_crash_vfs_size(databasePath) < 0 { unlink(imagePath) }
        let error = taskline_crash_vfs_write_images(imageDirectory, imageSeed(point), processCrash ? 1 : 0)
        guard error == 0 else {
            fail(point, processCrash, "cannot write the images: \(String(cString: strerror(error)))")
            return nil
        }
        let store: TaskStore
        do {
            store = try TaskStore(path: imagePath, options: StoreOptions(durability: options.durability), loop: imageLoop)
        } catch {
            fail(point, processCrash, "the server cannot open the file: \(error)")
            return nil
        }
        return withExtendedLifetime(store) {
            do {
                let report = try TaskStore.check(path: imagePath)
                let problems = report.integrityProblems + report.foreignKeyProblems + report.ruleProblems
                guard report.isSound, report.schemaVersion == report.supportedSchemaVersion else {
                    fail(point, processCrash, "the check finds: schema \(report.schemaVersion); " + problems.joined(separator: "; "))
                    return nil
                }
                return try Fingerprint(path: imagePath)
            } catch {
                fail(point, processCrash, "the check fails: \(error)")
                return nil
            }
        }
    }

    private var imagePath: String { imageDirectory + "/" + databaseName }

    private func imageSeed(_ point: Int) -> UInt64 {
        var generator = SplitMix64(seed: options.seed ^ (UInt64(point) &* 0x9E37_79B9_7F4A_7C15))
        return generator.next()
    }

    private func fail(_ point: Int, _ processCrash: Bool, _ message: String) {
        let image = processCrash ? "process crash" : "power loss"
        failures.append("point \(point) (\(image), during or after \(operation)): \(message)")
    }
}
