import Dispatch
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON-RPC connection over two file descriptors: a reader that turns the input stream
/// into `Inbound` values, and the `MessageWriter` that owns the output.
///
/// Reading runs on its own thread and never waits for the writer, so a client may send any
/// number of requests before it reads a single response.
public final class Connection: Sendable {
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
    private let options: Options

    public init(inputFD: Int32, outputFD: Int32, options: Options) {
        self.inputFD = inputFD
        self.options = options
        self.writer = MessageWriter(fd: outputFD)
        if let framing = options.framing { writer.setFraming(framing) }
    }

    /// Starts reading. `receive` is called on the reader thread with the units of input that
    /// each read completed, in order (so a receiver sees a request and a cancellation that
    /// arrived together at the same time); `onEnd` once, after the last, when the input ends.
    public func start(receive: @escaping @Sendable ([Inbound]) -> Void, onEnd: @escaping @Sendable () -> Void) {
        let fd = inputFD
        let options = options
        let writer = writer
        let thread = DispatchQueue(label: "taskline.reader")
        thread.async {
            var decoder = FrameDecoder(framing: options.framing, maxMessageBytes: options.maxMessageBytes)
            var chunk = [UInt8](repeating: 0, count: options.readChunkBytes)
            var framingAnnounced = options.framing != nil
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
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    if count < 0 { Log.error("reading stdin failed: \(String(cString: strerror(errno)))") }
                    break
                }
                let events = chunk.withUnsafeBufferPointer { decoder.feed(UnsafeBufferPointer(rebasing: $0[0..<count])) }
                deliver(events)
            }
            deliver(decoder.finish())
            onEnd()
        }
    }
}
