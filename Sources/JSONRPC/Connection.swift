import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON-RPC connection over two file descriptors, run as an event loop on one thread.
///
/// The loop waits (`poll`) for input, for room to write pending output, and for work sent
/// from other threads; it reads and decodes input, writes output, and runs the jobs of
/// every actor that uses it as its executor (the server and the store do). So a request
/// costs a single thread wake-up, and because output that the client is not reading waits
/// in a buffer, reading input never waits on writing output: a client may send any number
/// of requests before it reads a single response.
public final class Connection: SerialExecutor, TaskExecutor, @unchecked Sendable {  // @unchecked: see `Jobs`
    public struct Options: Sendable {
        public var framing: Framing?
        public var maxMessageBytes: Int
        public var readChunkBytes = 64 * 1024
        /// How long the loop polls before it sleeps, when the client's last message came
        /// within that time (see `IdleWait`); 0 never spins.
        public var idleSpinNanoseconds: UInt64

        public init(framing: Framing? = nil, maxMessageBytes: Int = 16 * 1024 * 1024, idleSpinNanoseconds: UInt64 = 50_000) {
            self.framing = framing
            self.maxMessageBytes = maxMessageBytes
            self.idleSpinNanoseconds = idleSpinNanoseconds
        }
    }

    public let writer: MessageWriter
    private let inputFD: Int32
    private let options: Options
    /// A pipe to itself: other threads write a byte to wake the loop from `poll`.
    private let wakeFDs: (read: Int32, write: Int32)
    private let jobs = Mutex(Jobs())
    /// Set while the loop runs; jobs enqueued from this thread need no wake-up.
    private nonisolated(unsafe) var loopThread: pthread_t?

    private struct Jobs: ~Copyable {
        var queue: [UnownedJob] = []
        var wakePending = false
        var exitCode: Int32?
    }

    public init(inputFD: Int32, outputFD: Int32, options: Options) {
        self.inputFD = inputFD
        self.options = options
        self.writer = MessageWriter(fd: outputFD)
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0, "cannot create the wake-up pipe")
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        self.wakeFDs = (fds[0], fds[1])
        if let framing = options.framing { writer.setFraming(framing) }
    }

    deinit {
        close(wakeFDs.read)
        close(wakeFDs.write)
    }

    // MARK: - Executor

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let onLoop = loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        let wake = jobs.withLock { jobs in
            jobs.queue.append(job)
            guard !onLoop, !jobs.wakePending else { return false }
            jobs.wakePending = true
            return true
        }
        if wake { self.wake() }
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

    /// Ends `run`, which returns `code`. Safe from any thread.
    public func stop(exitCode code: Int32) {
        jobs.withLock { $0.exitCode = code }
        wake()
    }

    // MARK: - The loop

    /// Runs the loop on the calling thread until `stop`. `receive` gets the units of input
    /// each read completed, in order (so a receiver sees a request and a cancellation that
    /// arrived together at the same time); `onEnd` is called once when the input ends.
    /// `onPause` is called when the loop is about to sleep, and every few milliseconds
    /// while it is kept too busy to; it returns true when it queued work for the loop.
    public func run(receive: ([Inbound]) -> Void, onEnd: () -> Void, onPause: () -> Bool = { false }) -> Int32 {
        loopThread = pthread_self()
        var decoder = FrameDecoder(framing: options.framing, maxMessageBytes: options.maxMessageBytes)
        var chunk = [UInt8](repeating: 0, count: options.readChunkBytes)
        var inputOpen = true
        var framingAnnounced = options.framing != nil
        var idle = IdleWait(spinNanoseconds: options.idleSpinNanoseconds)

        func deliver(_ events: [FrameEvent]) {
            if !framingAnnounced, let framing = decoder.framing {
                writer.setFraming(framing)
                framingAnnounced = true
                Log.debug("input framing: \(framing.rawValue)")
            }
            guard !events.isEmpty else { return }
            receive(events.map { event in
                switch event {
                case .message(let bytes): MessageDecoder.decode(bytes)
                case .oversized(let reason): .failure(.invalidRequest("message too large: \(reason)"))
                case .malformed(let reason): .failure(.parseError(reason))
                }
            })
        }

        while true {
            // Writing first: room it makes may resume the server (see MessageWriter.waitForRoom),
            // whose job, queued from this thread without a wake-up, then runs just below. Jobs
            // that ran may have sent output: round again to write it before waiting.
            writer.flush()
            if runJobs() { continue }
            if let exitCode = jobs.withLock({ $0.exitCode }) {
                writer.drain()
                return exitCode
            }

            // A client that writes without reading: once its unread answers pass the writer's
            // limit, take no more input until it reads (the server waits too; see MessageWriter).
            let reading = inputOpen && !writer.isBackedUp
            var targets = [
                pollfd(fd: wakeFDs.read, events: Int16(POLLIN), revents: 0),
                pollfd(fd: reading ? inputFD : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: writer.hasPendingOutput ? writer.descriptor : -1, events: Int16(POLLOUT), revents: 0),
            ]
            guard idle.wait(&targets, onPause: onPause) >= 0 || errno == EINTR else {
                Log.error("poll failed: \(String(cString: strerror(errno)))")
                return 1
            }
            if targets[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wakeFDs.read, &drain, drain.count) > 0 {}
                jobs.withLock { $0.wakePending = false }
            }
            if reading, targets[1].revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(inputFD, $0.baseAddress, $0.count) }
                if count > 0 {
                    deliver(chunk.withUnsafeBufferPointer { decoder.feed(UnsafeBufferPointer(rebasing: $0[0..<count])) })
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    if count < 0 { Log.error("reading stdin failed: \(String(cString: strerror(errno)))") }
                    inputOpen = false
                    deliver(decoder.finish())
                    onEnd()
                }
            }
        }
    }

    /// Runs the queued jobs, and those they queue; true if there were any.
    private func runJobs() -> Bool {
        var ran = false
        while true {
            let batch = jobs.withLock { jobs in
                defer { jobs.queue.removeAll(keepingCapacity: true) }
                return jobs.queue
            }
            if batch.isEmpty { return ran }
            ran = true
            // As both executors: a job run as only the serial one left the task's preferred
            // executor unset, and every hop between the server and the store (both on this
            // connection) then went back through `enqueue`, eight per request.
            for job in batch { job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor()) }
        }
    }
}
