#if canImport(Glibc)
import Glibc
#endif

/// Buffered writing to stdout, for the commands whose output is what was asked for (export,
/// list, check, …): a million lines cost a few hundred system calls. The server never uses
/// it: its stdout belongs to the protocol.
final class OutputWriter {
    private let fd: Int32
    /// What `fd` is, for the message of a failed write.
    private let name: String
    private var buffer: [UInt8] = []
    private static let capacity = 1 << 16

    init(fd: Int32 = STDOUT_FILENO, name: String = "stdout") {
        self.fd = fd
        self.name = name
        buffer.reserveCapacity(Self.capacity)
    }

    deinit {
        try? flush()
    }

    func write(_ bytes: [UInt8]) throws(CommandFailure) {
        buffer += bytes
        if buffer.count >= Self.capacity { try flush() }
    }

    /// Lets `body` append to the buffer in place.
    func write(_ body: (inout [UInt8]) -> Void) throws(CommandFailure) {
        body(&buffer)
        if buffer.count >= Self.capacity { try flush() }
    }

    func write(_ text: String) throws(CommandFailure) {
        try write(Array(text.utf8))
    }

    func line(_ text: String) throws(CommandFailure) {
        try write(text + "\n")
    }

    func flush() throws(CommandFailure) {
        var offset = 0
        defer { buffer.removeAll(keepingCapacity: true) }
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                // The reader went away (`taskline export | head`): stop, quietly.
                if errno == EPIPE { throw CommandFailure(nil) }
                throw CommandFailure("cannot write to \(name): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }
}

/// A line for people on stderr, beside the log's errors: summaries, notes.
func note(_ text: String) {
    let bytes = Array("taskline: \(text)\n".utf8)
    _ = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress!, $0.count) }
}

/// `text` with spaces after it up to `width` characters, for columns.
func padded(_ text: String, to width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
}

/// `text` broken into lines of at most `width` terminal cells, at spaces.
func wrapped(_ text: String, width: Int = 88) -> String {
    TerminalWidth.wrap(text, cells: width).joined(separator: "\n")
}
