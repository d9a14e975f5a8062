import JSON
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one writer of the protocol stream: every message goes through `send`, whole frames
/// one after another.
///
/// When the client is not reading, output waits in a buffer instead of blocking the thread
/// (the event loop's, which also reads input and runs the server; see `Connection`). A pipe or socket,
/// which is this process's own, is made non-blocking, so one write hands over all the room
/// there is. A terminal or a file may be shared with a shell, so it stays blocking: the
/// writer writes to it only when `poll` says there is room, `PIPE_BUF` bytes at a time,
/// which it then accepts without blocking.
///
/// Output waiting for the client is bounded by `maxPendingBytes`: past it the connection stops
/// reading input and the server waits (`waitForRoom`) before it handles more, until the client
/// has read enough.
///
/// Used from one thread at a time: the event loop's.
public final class MessageWriter: @unchecked Sendable {  // @unchecked: confined to the event loop's thread
    private let fd: Int32
    private let nonBlocking: Bool
    private var pending: [UInt8] = []
    /// An LSP message's body while it is written (see `enqueue`), kept for its capacity.
    private var body: [UInt8] = []
    private var pendingStart = 0
    private var framing: Framing = .lsp
    private var closed = false
    private var onClosed: (@Sendable () -> Void)?
    private var roomWaiters: [CheckedContinuation<Void, Never>] = []
    public let maxPendingBytes: Int

    public static let defaultMaxPendingBytes = 64 * 1024 * 1024

    public init(fd: Int32, maxPendingBytes: Int = defaultMaxPendingBytes) {
        self.fd = fd
        self.maxPendingBytes = maxPendingBytes
        var info = stat()
        let kind = fstat(fd, &info) == 0 ? info.st_mode & S_IFMT : 0
        nonBlocking = kind == S_IFIFO || kind == S_IFSOCK
        if nonBlocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }

    /// `handler` runs once when the client has closed its end.
    public func onClosed(_ handler: @escaping @Sendable () -> Void) {
        onClosed = handler
    }

    /// Output uses the framing the input turned out to use.
    public func setFraming(_ framing: Framing) {
        self.framing = framing
    }

    public var hasPendingOutput: Bool { pendingStart < pending.count && !closed }

    /// More output waits for the client than `maxPendingBytes`.
    public var isBackedUp: Bool { !closed && pending.count - pendingStart >= maxPendingBytes }

    /// Returns once the output waiting for the client is under `maxPendingBytes` (or the client
    /// has gone). Called from the event loop's thread, which writes the output meanwhile.
    nonisolated(nonsending) public func waitForRoom() async {
        guard isBackedUp else { return }
        await withCheckedContinuation { roomWaiters.append($0) }
    }

    public func send(_ response: Response) {
        enqueue { JSONWriter.write(response, to: &$0) }
    }

    public func send(_ notification: Notification) {
        enqueue { JSONWriter.write(notification, to: &$0) }
    }

    /// The answers to a batch, as one JSON array.
    public func send(_ responses: [Response]) {
        enqueue { out in
            out.append(UInt8(ascii: "["))
            for (index, response) in responses.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.write(response, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    /// Frames the message `writeBody` writes and queues it. A newline-delimited message is
    /// written straight into the output buffer; an LSP body first into `body`, whose
    /// length its header gives.
    private func enqueue(_ writeBody: (inout [UInt8]) -> Void) {
        guard !closed else { return }
        switch framing {
        case .lsp:
            body.removeAll(keepingCapacity: true)
            writeBody(&body)
            JSONWriter.append("Content-Length: ", to: &pending)
            pending.append(contentsOf: String(body.count).utf8)
            JSONWriter.append("\r\n\r\n", to: &pending)
            pending.append(contentsOf: body)
            if body.capacity > 1 << 20 { body = [] }
        case .ndjson:
            writeBody(&pending)
            pending.append(UInt8(ascii: "\n"))
        }
        // The event loop writes what its jobs sent once they have run: a response and
        // the notification it caused then go out in one write, and a run of pipelined
        // answers in a few. Past `batchBytes` it is written at once, so a long run of jobs
        // neither holds all its answers back nor keeps them all in memory.
        if pending.count - pendingStart >= Self.batchBytes { flush() }
    }

    /// How much output `send` lets wait for the loop's next write.
    static let batchBytes = 64 * 1024

    /// Waits until everything is written, the client has gone, or it has read nothing for
    /// `stallMilliseconds`: before the process exits. A client that stops reading but
    /// keeps its end open would otherwise keep the process alive for ever; 15 s, since a
    /// client still reading on a loaded machine was seen to pause for more than 5.
    public func drain(stallMilliseconds: Int32 = 15000) {
        while hasPendingOutput {
            var target = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&target, 1, stallMilliseconds)
            if ready == 0 {
                Log.warning("exiting with \(pending.count - pendingStart) bytes of output the client did not read for \(stallMilliseconds / 1000) s")
                return
            }
            guard ready > 0 || errno == EINTR else { return }
            flush()
        }
    }

    /// Writes what the client has room for.
    public func flush() {
        while hasPendingOutput {
            let chunked = !nonBlocking
            if chunked {
                var target = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                guard poll(&target, 1, 0) > 0 else { break }
            }
            let count = min(pending.count - pendingStart, chunked ? Int(PIPE_BUF) : Int.max)
            let written = pending.withUnsafeBytes { write(fd, $0.baseAddress! + pendingStart, count) }
            if written > 0 {
                pendingStart += written
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && errno == EAGAIN {
                break  // the pipe is full: the loop writes the rest when poll says there is room
            } else {
                // EPIPE (SIGPIPE is ignored) or another error: nobody will read what follows.
                Log.info("stdout closed (\(String(cString: strerror(errno))))")
                closed = true
                onClosed?()
            }
        }
        if !isBackedUp && !roomWaiters.isEmpty {
            let waiters = roomWaiters
            roomWaiters = []
            for waiter in waiters { waiter.resume() }
        }
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: pending.count <= 1 << 20)
            pendingStart = 0
        } else if pendingStart > 1 << 20 {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
    }

    public var descriptor: Int32 { fd }
}
