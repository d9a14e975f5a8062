import Foundation

extension Pipe {
    /// A pipe whose ends are close-on-exec, so that a process spawned meanwhile for another
    /// test does not inherit them. Foundation's `Pipe()` makes inheritable descriptors, and
    /// `Process` closes in the child only those open when it listed them: a server spawned
    /// by another test at that moment kept the write end of a command's output, whose
    /// reader then waited for an end that never came. (Marked right after it is made: a
    /// spawn in those few instructions can still inherit it.)
    public static func closedOnExec() -> Pipe {
        let pipe = Pipe()
        for handle in [pipe.fileHandleForReading, pipe.fileHandleForWriting] {
            _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
        return pipe
    }
}
