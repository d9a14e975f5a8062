import CTestSupport
import Foundation

extension Pipe {
    /// A pipe whose ends are close-on-exec from the moment they exist, so that a process
    /// spawned meanwhile for another test does not inherit them: a server that held the
    /// write end of a command's output kept that command's reader waiting for an end that
    /// never came.
    ///
    /// Foundation's `Pipe()` makes inheritable descriptors. `ChildProcess` closes them in its
    /// children, but a process spawned another way (a bare `posix_spawn`; Foundation's
    /// `Process`, which closes only what it saw open before) keeps them. So the pipe's
    /// descriptor numbers are taken over (`dup3` closes and replaces a number in one step) by
    /// a pipe made with `O_CLOEXEC`: a child spawned between `Pipe()` and the takeover holds
    /// only the first pipe, which nothing reads or writes.
    public static func closedOnExec() -> Pipe {
        let pipe = Pipe()
        var ends: [Int32] = [-1, -1]
        guard test_pipe_cloexec(&ends) == 0 else { fatalError("pipe2: \(String(cString: strerror(errno)))") }
        for (end, handle) in zip(ends, [pipe.fileHandleForReading, pipe.fileHandleForWriting]) {
            guard test_dup_cloexec(end, handle.fileDescriptor) >= 0 else { fatalError("dup3: \(String(cString: strerror(errno)))") }
            close(end)
        }
        return pipe
    }
}
