import CEventLoop
import Glibc
import Logging
import Synchronization

/// The one loop that does a process's work, and the Swift executor of the actors that run
/// on it.
///
/// One thread waits (`poll`) on every source of work at once: file descriptors (`Source`:
/// the protocol's input and output, the database watch, the client process's exit),
/// deadlines (`Timer`: the wait's timeout is the nearest one) and a wake-up pipe that other
/// threads write to when they hand the loop a job (`enqueue`, `execute`). Nothing polls:
/// an idle loop sleeps in the kernel until one of them is ready.
///
/// A round: the round handlers (the connection writes the output the last round's jobs
/// made), the jobs queued meanwhile, and, when there were none, the wait (`IdleWait`: an
/// adaptive spin for a quick client, then sleep), the handlers of the descriptors that are
/// ready and the timers that are due.
///
/// Everything but `enqueue`, `execute` and `stop` is for the loop's own thread (or before
/// the loop runs): sources, timers and handlers are set up from other threads through
/// `execute`.
// @unchecked Sendable: the inbox is behind a lock, the rest is the loop thread's.
public final class EventLoop: SerialExecutor, TaskExecutor, @unchecked Sendable {
    private let idleSpinNanoseconds: UInt64
    private let clock: any LoopClock
    /// A pipe to itself: other threads write a byte to wake the loop from `poll`.
    private let wakeFDs: (read: Int32, write: Int32)
    private let inbox = Mutex(Inbox())
    /// Set while the loop runs; jobs enqueued from this thread need no wake-up.
    private nonisolated(unsafe) var loopThread: pthread_t?

    // The loop thread's state. Unchecked: these are read on every round, and a dynamic
    // exclusivity check per access cost more than the rest of the round together.
    @exclusivity(unchecked) private var sources: [Source] = []
    @exclusivity(unchecked) fileprivate var timers = TimerHeap()
    @exclusivity(unchecked) private var roundHandlers: [Handler<Void>] = []
    @exclusivity(unchecked) private var waitHandlers: [Handler<Void>] = []
    @exclusivity(unchecked) private var pauseHandlers: [Handler<Bool>] = []
    @exclusivity(unchecked) private var idleHandlers: [(handler: Handler<Bool>, quiet: UInt64)] = []
    /// When a descriptor the loop polls was last found ready, or the loop started (on its
    /// clock): a process that runs for less than a quiet time never does idle work.
    @exclusivity(unchecked) private var lastInput: UInt64 = 0
    /// What the next wait polls, rebuilt only when a source or its events changed.
    @exclusivity(unchecked) private var targets: [pollfd] = []
    @exclusivity(unchecked) private var polled: [Source] = []
    @exclusivity(unchecked) fileprivate var sourcesChanged = true
    /// Something was cancelled: the lists are swept before the next wait.
    @exclusivity(unchecked) fileprivate var needsSweep = false
    /// An empty buffer that trades places with the queue's (see `runJobs`).
    @exclusivity(unchecked) private var spareJobs: [UnownedJob] = []

    private struct Inbox: ~Copyable {
        var jobs: [UnownedJob] = []
        var closures: [@Sendable () -> Void] = []
        var wakePending = false
        var exitCode: Int32?
    }

    /// `idleSpinNanoseconds`: how long the loop polls before it sleeps when its last wait
    /// ended within that time (see `IdleWait`); 0 never spins. `clock`: what timers, pauses
    /// and quiet times are measured on.
    public init(idleSpinNanoseconds: UInt64 = 0, clock: any LoopClock = MonotonicClock()) {
        self.idleSpinNanoseconds = idleSpinNanoseconds
        self.clock = clock
        var fds: [Int32] = [-1, -1]
        // Close-on-exec from the start: a process another thread spawns in between must not
        // inherit the pipe.
        precondition(makePipe(&fds, flags: O_NONBLOCK), "cannot create the wake-up pipe")
        wakeFDs = (fds[0], fds[1])
    }

    deinit {
        close(wakeFDs.read)
        close(wakeFDs.write)
    }

    /// A loop running on a thread of its own until `stop`: the executor of a store that
    /// nobody gives one (tests, the operating commands).
    public static func startThread(clock: any LoopClock = MonotonicClock()) -> EventLoop {
        let loop = EventLoop(clock: clock)
        precondition(startDetachedThread { _ = loop.run() }, "cannot start a thread for an event loop")
        return loop
    }

    /// Whether the caller runs on the loop's thread.
    public var isCurrent: Bool {
        loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// The time on the loop's clock, which timers' deadlines are on, in nanoseconds.
    public func now() -> UInt64 {
        clock.now()
    }

    // MARK: - Work from anywhere

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let onLoop = isCurrent
        let wake = inbox.withLock { inbox in
            inbox.jobs.append(job)
            return !onLoop && Self.claimWake(&inbox)
        }
        if wake { self.wake() }
    }

    /// Runs `body` on the loop's thread, in its next round. Safe from any thread.
    public func execute(_ body: @escaping @Sendable () -> Void) {
        let onLoop = isCurrent
        let wake = inbox.withLock { inbox in
            inbox.closures.append(body)
            return !onLoop && Self.claimWake(&inbox)
        }
        if wake { self.wake() }
    }

    /// Ends `run`, which returns `code` once the jobs already queued have run. Safe from any thread.
    public func stop(exitCode code: Int32) {
        inbox.withLock { $0.exitCode = code }
        wake()
    }

    private static func claimWake(_ inbox: inout Inbox) -> Bool {
        guard !inbox.wakePending else { return false }
        inbox.wakePending = true
        return true
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeFDs.write, &byte, 1)
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    // MARK: - Sources, timers and handlers (on the loop's thread)

    /// A file descriptor the loop polls, and what it does when the descriptor is ready.
    public final class Source {
        public let fd: Int32
        /// What to wait for (`POLLIN`, `POLLOUT`); 0 leaves the descriptor unpolled for now.
        @exclusivity(unchecked) public var events: Int16 {
            didSet { if events != oldValue { loop.sourcesChanged = true } }
        }
        fileprivate let handler: (Int16) -> Void
        @exclusivity(unchecked) fileprivate var isCancelled = false
        private unowned let loop: EventLoop

        fileprivate init(fd: Int32, events: Int16, loop: EventLoop, handler: @escaping (Int16) -> Void) {
            self.fd = fd
            self.events = events
            self.loop = loop
            self.handler = handler
        }

        /// The loop forgets the descriptor; its owner may close it once this returns.
        public func cancel() {
            isCancelled = true
            loop.needsSweep = true
        }
    }

    /// `handler` gets the descriptor's `revents` whenever it is ready for `events`.
    public func addSource(fd: Int32, events: Int16, handler: @escaping (Int16) -> Void) -> Source {
        let source = Source(fd: fd, events: events, loop: self, handler: handler)
        sources.append(source)
        sourcesChanged = true
        return source
    }

    /// Something that happens at a deadline, set and reset as often as its owner likes (one
    /// timer set to the next of many deadlines, such as reminders, is reset on every change).
    public final class Timer {
        fileprivate(set) var deadline: UInt64 = 0
        fileprivate var heapIndex = -1
        fileprivate let handler: () -> Void
        private unowned let loop: EventLoop

        fileprivate init(loop: EventLoop, handler: @escaping () -> Void) {
            self.loop = loop
            self.handler = handler
        }

        public var isScheduled: Bool { heapIndex >= 0 }

        /// Fires once at `deadline` (on the loop's clock: `now()`), instead of any deadline set before.
        public func schedule(at deadline: UInt64) {
            loop.timers.schedule(self, at: deadline)
        }

        /// A delay past the clock's end (some 584 years) means never, rather than a trap.
        public func schedule(after nanoseconds: UInt64) {
            let (deadline, overflow) = loop.now().addingReportingOverflow(nanoseconds)
            schedule(at: overflow ? .max : deadline)
        }

        public func cancel() {
            loop.timers.remove(self)
        }
    }

    /// A timer that calls `handler` on the loop's thread; it fires only once scheduled.
    /// A timer that is scheduled stays alive until it fires or is cancelled.
    public func makeTimer(_ handler: @escaping () -> Void) -> Timer {
        Timer(loop: self, handler: handler)
    }

    /// A callback the loop makes until it is cancelled.
    public final class Handler<Result> {
        fileprivate let body: () -> Result
        @exclusivity(unchecked) fileprivate var isCancelled = false
        private unowned let loop: EventLoop

        fileprivate init(_ body: @escaping () -> Result, loop: EventLoop) {
            self.body = body
            self.loop = loop
        }

        public func cancel() {
            isCancelled = true
            loop.needsSweep = true
        }
    }

    /// `body` runs at the start of every round, before the jobs: where output that the last
    /// round's jobs made is written.
    public func addRoundHandler(_ body: @escaping () -> Void) -> Handler<Void> {
        let handler = Handler(body, loop: self)
        roundHandlers.append(handler)
        return handler
    }

    /// `body` runs before each wait, with no jobs left to run: where a source's owner sets
    /// what the wait is for.
    public func addWaitHandler(_ body: @escaping () -> Void) -> Handler<Void> {
        let handler = Handler(body, loop: self)
        waitHandlers.append(handler)
        return handler
    }

    /// `body` runs when the loop is about to sleep, and every few milliseconds while it is
    /// kept too busy to (`IdleWait.pauseInterval`), for work that waits until the loop has
    /// nothing else to do. It returns true when it gave the loop work.
    public func addPauseHandler(_ body: @escaping () -> Bool) -> Handler<Bool> {
        let handler = Handler(body, loop: self)
        pauseHandlers.append(handler)
        return handler
    }

    /// `body` runs when the loop is about to sleep and no descriptor has been ready for
    /// `quietNanoseconds`: never while a client keeps the loop busy, nor in the short gaps
    /// of one that is merely slow, for work done a short step at a time while there is
    /// nothing else to do. The loop wakes for it when the quiet time is up. It returns true
    /// when it gave the loop work (a job): the loop runs it and looks for input before asking
    /// again, so steps follow one another until input comes.
    public func addIdleHandler(quietNanoseconds: UInt64, _ body: @escaping () -> Bool) -> Handler<Bool> {
        let handler = Handler(body, loop: self)
        idleHandlers.append((handler, quietNanoseconds))
        return handler
    }

    // MARK: - The loop

    /// Runs the loop on the calling thread until `stop`, and returns the code given there.
    public func run() -> Int32 {
        loopThread = pthread_self()
        defer { loopThread = nil }
        lastInput = clock.now()
        var idle = IdleWait(spinNanoseconds: idleSpinNanoseconds, clock: clock)

        while true {
            // Writing first: room it makes may resume the server (see MessageWriter.waitForRoom),
            // whose job, queued from this thread without a wake-up, then runs just below. Jobs
            // that ran may have sent output: round again to write it before waiting.
            for index in roundHandlers.indices where !roundHandlers[index].isCancelled { roundHandlers[index].body() }
            if runJobs() { continue }
            if let exitCode = inbox.withLock({ $0.exitCode }) { return exitCode }

            for index in waitHandlers.indices where !waitHandlers[index].isCancelled { waitHandlers[index].body() }
            if needsSweep { sweep() }
            if sourcesChanged {
                rebuildTargets()
            } else {
                for index in targets.indices { targets[index].revents = 0 }
            }
            guard idle.wait(&targets, deadline: timers.firstDeadline, onPause: pause, onIdle: idleWork) >= 0 || errno == EINTR else {
                Log.error("poll failed: \(String(cString: strerror(errno)))")
                return 1
            }
            if targets[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wakeFDs.read, &drain, drain.count) > 0 {}
                inbox.withLock { $0.wakePending = false }
            }
            for index in 1..<targets.count where targets[index].revents != 0 {
                lastInput = idle.lastWake
                let source = polled[index - 1]
                guard !source.isCancelled else { continue }
                guard targets[index].revents & Int16(POLLNVAL) == 0 else {
                    // Closed by its owner without `cancel()`: poll would answer at once, for ever.
                    Log.error("descriptor \(source.fd) was closed while the loop polled it; it is no longer polled")
                    source.cancel()
                    continue
                }
                source.handler(targets[index].revents)
            }
            // Checked once per wait: a timer can only have come due while the loop waited,
            // or while it worked, which always ends in a wait.
            fireDueTimers(now: idle.lastWake)
        }
    }

    private func sweep() {
        needsSweep = false
        if sources.contains(where: \.isCancelled) {
            sources.removeAll { $0.isCancelled }
            sourcesChanged = true
        }
        roundHandlers.removeAll { $0.isCancelled }
        waitHandlers.removeAll { $0.isCancelled }
        pauseHandlers.removeAll { $0.isCancelled }
        idleHandlers.removeAll { $0.handler.isCancelled }
    }

    private func rebuildTargets() {
        sourcesChanged = false
        targets.removeAll(keepingCapacity: true)
        polled.removeAll(keepingCapacity: true)
        targets.append(pollfd(fd: wakeFDs.read, events: Int16(POLLIN), revents: 0))
        for source in sources where source.events != 0 {
            targets.append(pollfd(fd: source.fd, events: source.events, revents: 0))
            polled.append(source)
        }
    }

    /// Runs the queued closures and jobs, and those they queue; true if there were any.
    /// The queue and `spareJobs` trade buffers, so that a round copies and allocates nothing.
    private func runJobs() -> Bool {
        var ran = false
        while true {
            var batch: [UnownedJob] = []
            swap(&batch, &spareJobs)
            var closures: [@Sendable () -> Void] = []
            inbox.withLock { inbox in
                swap(&batch, &inbox.jobs)
                if !inbox.closures.isEmpty { swap(&closures, &inbox.closures) }
            }
            defer {
                batch.removeAll(keepingCapacity: true)
                swap(&batch, &spareJobs)
            }
            if batch.isEmpty && closures.isEmpty { return ran }
            ran = true
            for closure in closures { closure() }
            // As both executors: a job run as only the serial one left the task's preferred
            // executor unset, and every hop between the server and the store (both on this
            // loop) then went back through `enqueue`, eight per request.
            for job in batch { job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor()) }
        }
    }

    /// Fires the timers whose deadline had passed at `now`.
    private func fireDueTimers(now: UInt64) {
        while let deadline = timers.firstDeadline, deadline <= now, let timer = timers.first {
            timers.remove(timer)
            timer.handler()
        }
    }

    private func pause() -> Bool {
        var gaveWork = false
        for handler in pauseHandlers where !handler.isCancelled {
            if handler.body() { gaveWork = true }
        }
        return gaveWork
    }

    /// The idle handlers whose quiet time is up; when the others' will be.
    private func idleWork() -> (gaveWork: Bool, wakeAt: UInt64?) {
        let now = clock.now()
        var gaveWork = false
        var wakeAt: UInt64?
        for (handler, quiet) in idleHandlers where !handler.isCancelled {
            let due = lastInput + quiet
            if now >= due {
                if handler.body() { gaveWork = true }
            } else {
                wakeAt = min(wakeAt ?? due, due)
            }
        }
        return (gaveWork, wakeAt)
    }
}

/// The scheduled timers, soonest first: a binary heap in which each timer knows its place,
/// so that resetting or cancelling one costs O(log n) and leaves nothing behind.
struct TimerHeap {
    /// Each timer with its deadline beside it, so that the loop reads the nearest deadline
    /// without touching a timer.
    private var heap: [(deadline: UInt64, timer: EventLoop.Timer)] = []

    var first: EventLoop.Timer? { heap.first?.timer }
    var firstDeadline: UInt64? { heap.first?.deadline }

    mutating func schedule(_ timer: EventLoop.Timer, at deadline: UInt64) {
        timer.deadline = deadline
        if timer.heapIndex < 0 {
            timer.heapIndex = heap.count
            heap.append((deadline, timer))
        } else {
            heap[timer.heapIndex].deadline = deadline
        }
        restore(timer.heapIndex)
    }

    mutating func remove(_ timer: EventLoop.Timer) {
        let index = timer.heapIndex
        guard index >= 0 else { return }
        timer.heapIndex = -1
        let last = heap.removeLast()
        guard index < heap.count else { return }
        heap[index] = last
        last.timer.heapIndex = index
        restore(index)
    }

    /// Moves the timer at `index` up or down to where its deadline belongs.
    private mutating func restore(_ index: Int) {
        var index = index
        while index > 0, heap[index].deadline < heap[(index - 1) / 2].deadline {
            swapAt(index, (index - 1) / 2)
            index = (index - 1) / 2
        }
        while true {
            let left = 2 * index + 1
            let right = left + 1
            var smallest = index
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != index else { return }
            swapAt(index, smallest)
            index = smallest
        }
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        heap[a].timer.heapIndex = a
        heap[b].timer.heapIndex = b
    }
}

/// A pipe whose ends are close-on-exec from the start (see `taskline_pipe_cloexec`).
public func makePipe(_ fds: inout [Int32], flags: Int32 = 0) -> Bool {
    fds.withUnsafeMutableBufferPointer { taskline_pipe_cloexec($0.baseAddress!, flags) } == 0
}
