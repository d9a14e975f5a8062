import Glibc

/// A serial executor that runs its jobs on one dedicated thread: the store's executor when
/// nobody gives it one (tests, tools). It keeps the SQLite connection on a single thread.
public final class SerialThreadExecutor: SerialExecutor, Sendable {
    private let jobs = JobQueue()

    public init() {
        let jobs = self.jobs
        precondition(startDetachedThread { jobs.runUntilStopped() }, "cannot start the store's thread")
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
private final class JobQueue: @unchecked Sendable {  // @unchecked: state is behind `mutex`
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [(UnownedJob, UnownedSerialExecutor)] = []
    private var stopped = false

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func append(_ job: UnownedJob, executor: UnownedSerialExecutor) {
        pthread_mutex_lock(mutex)
        jobs.append((job, executor))
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    func stop() {
        pthread_mutex_lock(mutex)
        stopped = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    func runUntilStopped() {
        var batch: [(UnownedJob, UnownedSerialExecutor)] = []
        while true {
            pthread_mutex_lock(mutex)
            while jobs.isEmpty && !stopped { pthread_cond_wait(condition, mutex) }
            if jobs.isEmpty && stopped {
                pthread_mutex_unlock(mutex)
                return
            }
            swap(&batch, &jobs)
            pthread_mutex_unlock(mutex)
            for (job, executor) in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
