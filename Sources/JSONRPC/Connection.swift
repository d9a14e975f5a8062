import EventLoop
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON-RPC connection over two file descriptors: bytes in, messages out.
///
/// It is two sources of an `EventLoop`, which does the waiting: when the input is readable
/// the connection reads it, frames and decodes it, and hands the messages to its receiver;
/// its `writer` keeps what the server sends, and at the start of each of the loop's rounds
/// the connection writes what the client has room for. Output that the client is not reading
/// waits in that buffer, so reading input never waits on writing output: a client may send
/// any number of requests before it reads a single response.
///
/// Set up and used on the loop's thread: `init` and `start` hand their work to the loop.
public final class Connection: @unchecked Sendable {  // @unchecked: its state is the loop thread's
    public struct Options: Sendable {
        public var framing: Framing?
        public var maxMessageBytes: Int
        public var readChunkBytes = 64 * 1024

        public init(framing: Framing? = nil, maxMessageBytes: Int = 16 * 1024 * 1024) {
            self.framing = framing
            self.maxMessageBytes = maxMessageBytes
        }
    }

    public let writer: MessageWriter
    private let inputFD: Int32
    private let loop: EventLoop
    private let options: Options

    // Unchecked: used on every round of the loop, whose thread alone uses them.
    @exclusivity(unchecked) private var decoder: FrameDecoder
    @exclusivity(unchecked) private var chunk: [UInt8]
    @exclusivity(unchecked) private var inputOpen = true
    @exclusivity(unchecked) private var framingAnnounced: Bool
    @exclusivity(unchecked) private var receive: @Sendable ([Inbound]) -> Void = { _ in }
    @exclusivity(unchecked) private var onEnd: @Sendable () -> Void = {}
    @exclusivity(unchecked) private var input: EventLoop.Source?
    @exclusivity(unchecked) private var output: EventLoop.Source?
    private var round: EventLoop.Handler<Void>?
    private var beforeWait: EventLoop.Handler<Void>?

    /// Output is written from now on; input is read once `start` is called.
    public init(inputFD: Int32, outputFD: Int32, options: Options, loop: EventLoop) {
        self.inputFD = inputFD
        self.loop = loop
        self.options = options
        writer = MessageWriter(fd: outputFD)
        decoder = FrameDecoder(framing: options.framing, maxMessageBytes: options.maxMessageBytes)
        chunk = [UInt8](repeating: 0, count: options.readChunkBytes)
        framingAnnounced = options.framing != nil
        if let framing = options.framing { writer.setFraming(framing) }
        loop.execute { self.attachOutput() }
    }

    /// Reads input from now on. `receive` gets the units of input each read completed, in
    /// order (so a receiver sees a request and a cancellation that arrived together at the
    /// same time); `onEnd` is called once when the input ends. Safe from any thread.
    public func start(receive: @escaping @Sendable ([Inbound]) -> Void, onEnd: @escaping @Sendable () -> Void) {
        loop.execute {
            self.receive = receive
            self.onEnd = onEnd
            self.input = self.loop.addSource(fd: self.inputFD, events: Int16(POLLIN)) { [unowned self] _ in self.readInput() }
        }
    }

    /// Stops reading, and returns once the output is written (see `MessageWriter.drain`);
    /// the loop then forgets both descriptors, which the caller may close. For a connection
    /// that ends while its loop goes on; a process that ends with its loop drains the writer.
    public func finish() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute {
                self.input?.cancel()
                self.output?.cancel()
                self.round?.cancel()
                self.beforeWait?.cancel()
                self.writer.drain()
                done.resume()
            }
        }
    }

    private func attachOutput() {
        // The loop wakes when the client has room; the round handler then writes.
        output = loop.addSource(fd: writer.descriptor, events: 0) { _ in }
        round = loop.addRoundHandler { [writer] in writer.flush() }
        beforeWait = loop.addWaitHandler { [unowned self] in self.watch() }
    }

    /// What the loop's next wait is for: room for the output that waits, and input unless
    /// the client writes without reading. Once its unread answers pass the writer's limit,
    /// no more input is taken until it reads (the server waits too; see MessageWriter).
    private func watch() {
        input?.events = inputOpen && !writer.isBackedUp ? Int16(POLLIN) : 0
        output?.events = writer.hasPendingOutput ? Int16(POLLOUT) : 0
    }

    private func readInput() {
        let count = chunk.withUnsafeMutableBytes { read(inputFD, $0.baseAddress, $0.count) }
        if count > 0 {
            deliver(chunk.withUnsafeBufferPointer { decoder.feed(UnsafeBufferPointer(rebasing: $0[0..<count])) })
        } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
            if count < 0 { Log.error("reading stdin failed: \(String(cString: strerror(errno)))") }
            inputOpen = false
            input?.cancel()
            deliver(decoder.finish())
            onEnd()
        }
    }

    private func deliver(_ events: [FrameEvent]) {
        if !framingAnnounced, let framing = decoder.framing {
            writer.setFraming(framing)
            framingAnnounced = true
            Log.debug("input framing: \(framing.rawValue)")
        }
        guard !events.isEmpty else { return }
        receive(
            events.map { event in
                switch event {
                case .message(let bytes): MessageDecoder.decode(bytes)
                case .oversized(let reason): .failure(.invalidRequest("message too large: \(reason)"))
                case .malformed(let reason): .failure(.parseError(reason))
                }
            })
    }
}

/// A connection over two pipes, with no process: the server's end is `connection`, the
/// client's end two descriptors. How a server runs inside another program, such as a test.
public final class InMemoryConnection: Sendable {
    public let connection: Connection
    /// Where the client writes its messages (`endInput` closes it).
    public let clientInputFD: Int32
    /// Where the client reads the server's messages, until the end once `finish` has returned.
    public let clientOutputFD: Int32
    private let serverFDs: (input: Int32, output: Int32)
    private let inputOpen = Mutex(true)

    public init(options: Connection.Options, loop: EventLoop) {
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        // Close-on-exec from the start: a process another thread spawns in between would
        // otherwise inherit a write end and keep the reader from ever seeing the end.
        precondition(makePipe(&input) && makePipe(&output), "cannot create pipes")
        _ = fcntl(input[0], F_SETFL, fcntl(input[0], F_GETFL) | O_NONBLOCK)
        clientInputFD = input[1]
        clientOutputFD = output[0]
        serverFDs = (input[0], output[1])
        connection = Connection(inputFD: input[0], outputFD: output[1], options: options, loop: loop)
    }

    deinit {
        endInput()
        close(clientOutputFD)
    }

    /// The client has sent everything: the server reads the end of its input.
    public func endInput() {
        inputOpen.withLock { open in
            if open { close(clientInputFD) }
            open = false
        }
    }

    /// Ends the connection (`Connection.finish`) and closes the server's end: the client
    /// reads the end of the output.
    public func finish() async {
        await connection.finish()
        close(serverFDs.input)
        close(serverFDs.output)
    }
}
