import Foundation

/// A serial executor that runs its jobs on one dedicated thread.
///
/// The store and the server share it, so the server's calls into the store never switch
/// threads, and a request costs one thread wake-up (from the reader thread to this one)
/// instead of one per hop. SQLite's connection also stays on a single thread.
public final class SerialThreadExecutor: SerialExecutor, Sendable {
    private let jobs = JobQueue()

    public init(name: String) {
        let jobs = self.jobs
        let thread = Thread { jobs.runUntilStopped() }
        thread.name = name
        thread.start()
    }

    deinit {
        jobs.stop()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        jobs.append(UnownedJob(job), executor: asUnownedSerialExecutor())
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// The executor's queue, owned jointly with its thread, so the thread can end once the
/// executor is gone.
private final class JobQueue: @unchecked Sendable {  // @unchecked: state is behind `condition`
    private let condition = NSCondition()
    private var jobs: [(UnownedJob, UnownedSerialExecutor)] = []
    private var stopped = false

    func append(_ job: UnownedJob, executor: UnownedSerialExecutor) {
        condition.lock()
        jobs.append((job, executor))
        condition.signal()
        condition.unlock()
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    func runUntilStopped() {
        var batch: [(UnownedJob, UnownedSerialExecutor)] = []
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty && stopped {
                condition.unlock()
                return
            }
            swap(&batch, &jobs)
            condition.unlock()
            for (job, executor) in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
