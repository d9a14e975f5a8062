import CCrashVFS
import CSQLite
import Foundation
import ProcessSetup
import TaskStore
import TestSupport

// Simulated power loss at every I/O step of a Taskline workload: the store's files sit on
// the crash VFS (Tests/PowerLoss/CCrashVFS), registered as the default VFS, and at each
// crash point the files a power loss could leave are opened and checked (CrashPoints).
//
// With `--points N` the workload runs twice: once to count its points, once to check N of
// them (the first and last few of each operation, the rest spread evenly) and the point
// after every operation. The run is deterministic for a seed, so `--point P` checks a
// failing point alone.
#if canImport(Glibc)
import Glibc
#endif

let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    if let message = error.message { FileHandle.standardError.write(Data("taskline-powerloss: \(message)\n".utf8)) }
    print(Options.usage)
    exit(error.message == nil ? 0 : 2)
}

// Before the first connection, the process configured as taskline's is; then the crash VFS,
// which the store's connections open through.
ProcessSetup.configureLibraries()
guard taskline_crash_vfs_register(options.sectorSize, options.powersafeOverwrite ? 1 : 0) == SQLITE_OK else {
    FileHandle.standardError.write(Data("taskline-powerloss: cannot register the crash VFS\n".utf8))
    exit(2)
}

let scratch = (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : NSTemporaryDirectory()) + "/taskline-powerloss-\(getpid())"
mkdir(scratch, 0o700)

func finish(_ code: Int32) -> Never {
    try? FileManager.default.removeItem(atPath: scratch)
    exit(code)
}

/// Runs the workload once over the crash VFS, checking the points in `selected` (nil: all).
func run(_ name: String, selected: Set<Int>?) async throws -> CrashPoints {
    let directory = scratch + "/" + name
    mkdir(directory, 0o700)
    let points = CrashPoints(options: options, directory: directory, selected: selected)
    taskline_crash_vfs_track(points.workDirectory + "/")
    taskline_crash_vfs_observe(
        { context in
            Unmanaged<CrashPoints>.fromOpaque(context!).takeUnretainedValue().ioPoint()
        }, Unmanaged.passUnretained(points).toOpaque())
    defer {
        taskline_crash_vfs_observe(nil, nil)
        taskline_crash_vfs_track(nil)
    }
    var workload = Workload(options: options, points: points)
    try await workload.run()
    if !workload.problems.isEmpty { throw WorkloadError(workload.problems.joined(separator: "; ")) }
    return points
}

/// The points to check: the one after each operation, the first and last few I/O points of
/// each operation, and up to `budget` I/O points in all: the rest are shared among the
/// operations by the square root of their count (a checkpoint's thousands of page writes
/// are alike; the few writes of a commit are not), spread evenly within each.
func selection(ioPointsPerOperation: [Int], budget: Int) -> Set<Int> {
    let edge = 4
    var selected = Set<Int>()
    var middles: [Range<Int>] = []
    var point = 0
    for count in ioPointsPerOperation {
        for index in 0..<count where index < edge || index >= count - edge { selected.insert(point + index) }
        middles.append(point + min(edge, count)..<point + max(count - edge, min(edge, count)))
        point += count
        selected.insert(point)
        point += 1
    }
    let remaining = max(budget - (selected.count - ioPointsPerOperation.count), 0)
    let weights = middles.map { Double($0.count).squareRoot() }
    let total = weights.reduce(0, +)
    var random = SplitMix64(seed: options.seed)
    for (middle, weight) in zip(middles, weights) where weight > 0 {
        let wanted = min(middle.count, Int((Double(remaining) * weight / total).rounded()))
        for slot in 0..<wanted {
            let offset = Double(random.next() % 1024) / 1024
            selected.insert(middle.lowerBound + Int((Double(slot) + offset) * Double(middle.count) / Double(wanted)))
        }
    }
    return selected
}

do {
    var selected: Set<Int>?
    var expected: [Int]?
    if let point = options.onlyPoint {
        selected = [point]
    } else if let budget = options.points {
        let counted = try await run("count", selected: [])
        expected = counted.ioPointsPerOperation
        selected = selection(ioPointsPerOperation: counted.ioPointsPerOperation, budget: budget)
    }
    let checked = try await run("check", selected: selected)
    if let expected, expected != checked.ioPointsPerOperation {
        // Points are numbered in order: a run that did other I/O checks other points than chosen.
        FileHandle.standardError.write(Data("taskline-powerloss: warning: the two runs did different I/O; --point may not repeat a failure\n".utf8))
    }
    let configuration = "\(options.durability.rawValue), psow \(options.powersafeOverwrite ? 1 : 0), sector \(options.sectorSize)"
    print(
        "power loss: \(checked.checkedPoints) crash points, \(checked.checkedAcknowledgements) acknowledged commits checked, "
            + "\(checked.failures.count) failures, seed \(options.seed) (\(configuration); \(checked.nextPoint) points in the workload)")
    if !checked.failures.isEmpty {
        for failure in checked.failures.prefix(20) { print("FAILED at \(failure)") }
        if checked.failures.count > 20 { print("… and \(checked.failures.count - 20) more") }
        print("repeat one point: \(options.command) --point P")
        finish(1)
    }
} catch {
    print("taskline-powerloss: the workload failed: \(error) (\(options.command))")
    finish(1)
}
finish(0)
