import Dispatch
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one writer of the protocol stream. Every outgoing message goes through its serial
/// queue, so messages never interleave, and the caller never waits for the client to read:
/// reading input and handling requests go on while a write blocks.
public final class MessageWriter: Sendable {
    private let fd: Int32
    private let queue = DispatchQueue(label: "taskline.writer")
    private let state = Mutex<State>(State())

    private struct State {
        var framing: Framing = .lsp
        var closed = false
        var onClosed: (@Sendable () -> Void)?
    }

    public init(fd: Int32) {
        self.fd = fd
    }

    /// `handler` runs once, on the writer's queue, when the client has closed its end.
    public func onClosed(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onClosed = handler }
    }

    /// Output uses the framing the input turned out to use.
    public func setFraming(_ framing: Framing) {
        state.withLock { $0.framing = framing }
    }

    public func send(_ message: JSON) {
        let body = JSONWriter.bytes(message)
        let frame: [UInt8]
        switch state.withLock({ $0.framing }) {
        case .lsp: frame = Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        case .ndjson: frame = body + [UInt8(ascii: "\n")]
        }
        queue.async { self.write(frame) }
    }

    /// Returns once everything sent so far has been written (or found undeliverable).
    public func flush() {
        queue.sync {}
    }

    private func write(_ frame: [UInt8]) {
        guard !state.withLock({ $0.closed }) else { return }
        var offset = 0
        while offset < frame.count {
            let written = frame.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written >= 0 {
                offset += written
            } else if errno != EINTR {
                // EPIPE (SIGPIPE is ignored) or another error: nobody will read what follows.
                Log.info("stdout closed (\(String(cString: strerror(errno))))")
                let handler = state.withLock { state in
                    state.closed = true
                    return state.onClosed
                }
                handler?()
                return
            }
        }
    }
}
