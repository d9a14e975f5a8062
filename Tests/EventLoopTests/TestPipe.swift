import Glibc

/// A pipe for a test to send bytes through: its read end is what a wait polls, or a source
/// of a loop.
final class TestPipe: Sendable {
    let read: Int32, write: Int32
    init() {
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0)
        (read, write) = (fds[0], fds[1])
    }
    deinit {
        close(read)
        close(write)
    }
    var targets: [pollfd] { [pollfd(fd: read, events: Int16(POLLIN), revents: 0)] }
    func send() {
        var byte: UInt8 = 1
        _ = Glibc.write(write, &byte, 1)
    }
    /// Reads a byte; whether there was one.
    @discardableResult
    func receive() -> Bool {
        var byte: UInt8 = 0
        return Glibc.read(read, &byte, 1) == 1
    }
}
