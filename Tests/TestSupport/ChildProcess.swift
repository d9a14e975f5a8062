import CTestSupport
import Foundation
import Synchronization

/// A program run by the tests, spawned with `posix_spawn`: what they asked of Foundation's
/// `Process`, with the same names, without it.
///
/// On Linux, `Process.run()` lists /proc/self/fd to find what to close in the child, copying
/// each entry's whole 256-byte name: an entry at the end of glibc's buffer, before an unmapped
/// page, made the copy fault, and the test process died of SIGSEGV now and then (fixed in
/// swift-corelibs-foundation #5472, after this toolchain). Here the child closes every
/// descriptor above 2 itself (`closefrom`), so it inherits nothing but its standard streams.
///
/// The child is reaped (`waitpid`) once, under the lock, when `isRunning`, `waitUntilExit()` or
/// a termination property asks, or after this object has gone, and never before: until then
/// `waitid` with `WNOWAIT` sees it, and its number stays its own, so `kill` on
/// `processIdentifier` reaches no other process.
public final class ChildProcess {
    /// Where one of the child's standard streams goes.
    public enum StandardStream {
        /// This process's own.
        case inherited
        case nullDevice
        /// The read end for stdin, the write end for stdout and stderr. `run()` closes that
        /// end here once the child has its copy, so that the other end sees end of file when
        /// the child's copy goes.
        case pipe(Pipe)
        case fileHandle(FileHandle)
    }

    public enum TerminationReason: Sendable {
        case exit
        case uncaughtSignal
    }

    public struct LaunchError: Error, CustomStringConvertible {
        public let description: String
    }

    public var executableURL: URL?
    public var arguments: [String] = []
    /// nil: this process's environment.
    public var environment: [String: String]?
    public var standardInput = StandardStream.inherited
    public var standardOutput = StandardStream.inherited
    public var standardError = StandardStream.inherited

    private struct State {
        var pid: pid_t = 0
        var ended: (reason: TerminationReason, status: Int32)?
    }

    private let state = Mutex(State())

    public init() {}

    deinit {
        let pid = state.withLock { $0.ended == nil ? $0.pid : 0 }
        guard pid > 0 else { return }
        // Nobody can ask any more: reaped when it ends, so that it does not stay a zombie.
        Thread {
            while waitpid(pid, nil, 0) == -1 && errno == EINTR {}
        }.start()
    }

    public func run() throws {
        guard let path = executableURL?.path else { preconditionFailure("ChildProcess.run() without an executableURL") }
        precondition(processIdentifier == 0, "ChildProcess.run() twice")
        let streams = [(standardInput, STDIN_FILENO), (standardOutput, STDOUT_FILENO), (standardError, STDERR_FILENO)]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (stream, target) in streams {
            switch stream {
            case .inherited: break
            case .nullDevice: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_RDWR, 0)
            case .pipe(let pipe): posix_spawn_file_actions_adddup2(&actions, Self.childEnd(of: pipe, as: target).fileDescriptor, target)
            case .fileHandle(let handle): posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            }
        }
        test_spawn_close_from(&actions, 3)
        // The child starts with no signal blocked, whatever the spawning thread blocks (Dispatch's
        // threads block most), so that `terminate()` ends it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for variable in envp ?? [] { free(variable) } }
        var pid: pid_t = 0
        let error =
            envp.map { posix_spawn(&pid, path, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard error == 0 else { throw LaunchError(description: "cannot run \(path): \(String(cString: strerror(error)))") }
        state.withLock { $0.pid = pid }
        for case (.pipe(let pipe), let target) in streams {
            try? Self.childEnd(of: pipe, as: target).close()
        }
    }

    private static func childEnd(of pipe: Pipe, as target: Int32) -> FileHandle {
        target == STDIN_FILENO ? pipe.fileHandleForReading : pipe.fileHandleForWriting
    }

    /// 0 until `run()`.
    public var processIdentifier: pid_t {
        state.withLock { $0.pid }
    }

    public var isRunning: Bool {
        state.withLock { state in
            Self.reapIfEnded(&state)
            return state.pid > 0 && state.ended == nil
        }
    }

    public func waitUntilExit() {
        let pid = processIdentifier
        precondition(pid > 0, "ChildProcess.waitUntilExit() before run()")
        // Waits for the end without taking it, which is for `reapIfEnded`, under the lock; once
        // it is taken, ECHILD.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        state.withLock { Self.reapIfEnded(&$0) }
    }

    /// The exit code, or the number of the signal that ended the process.
    public var terminationStatus: Int32 { ended.status }

    public var terminationReason: TerminationReason { ended.reason }

    private var ended: (reason: TerminationReason, status: Int32) {
        guard
            let ended = state.withLock({ state in
                Self.reapIfEnded(&state)
                return state.ended
            })
        else {
            preconditionFailure("ChildProcess: not ended")
        }
        return ended
    }

    /// SIGTERM, unless the process has been reaped.
    public func terminate() {
        state.withLock { state in
            if state.pid > 0 && state.ended == nil { kill(state.pid, SIGTERM) }
        }
    }

    private static func reapIfEnded(_ state: inout State) {
        guard state.pid > 0, state.ended == nil else { return }
        var status: Int32 = 0
        guard waitpid(state.pid, &status, WNOHANG) == state.pid else { return }
        let signal = status & 0x7F
        state.ended = signal == 0 ? (.exit, (status >> 8) & 0xFF) : (.uncaughtSignal, signal)
    }
}
