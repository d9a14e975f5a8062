import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one writer of the protocol stream. A lock makes each message one uninterrupted
/// frame. Writes happen on the caller's thread: the server calls it from its own thread,
/// which may then block while the client is not reading, but reading input goes on in the
/// connection's reader thread, so a client that writes everything before reading anything
/// can never deadlock against the server.
public final class MessageWriter: Sendable {
    private let fd: Int32
    private let state = Mutex<State>(State())

    private struct State {
        var framing: Framing = .lsp
        var closed = false
        var onClosed: (@Sendable () -> Void)?
    }

    public init(fd: Int32) {
        self.fd = fd
    }

    /// `handler` runs once, on the writing thread, when the client has closed its end.
    public func onClosed(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onClosed = handler }
    }

    /// Output uses the framing the input turned out to use.
    public func setFraming(_ framing: Framing) {
        state.withLock { $0.framing = framing }
    }

    public func send(_ message: JSON) {
        let body = JSONWriter.bytes(message)
        let closedHandler: (@Sendable () -> Void)? = state.withLock { state in
            guard !state.closed else { return nil }
            var frame: [UInt8]
            switch state.framing {
            case .lsp:
                frame = Array("Content-Length: \(body.count)\r\n\r\n".utf8)
                frame += body
            case .ndjson:
                frame = body
                frame.append(UInt8(ascii: "\n"))
            }
            guard !write(frame) else { return nil }
            state.closed = true
            return state.onClosed
        }
        closedHandler?()
    }

    /// Writes all of `frame`; false when the client has gone (EPIPE: SIGPIPE is ignored).
    private func write(_ frame: [UInt8]) -> Bool {
        var offset = 0
        while offset < frame.count {
            let written = frame.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written >= 0 {
                offset += written
            } else if errno != EINTR {
                Log.info("stdout closed (\(String(cString: strerror(errno))))")
                return false
            }
        }
        return true
    }
}
