import CEventLoop
import Glibc
import Logging

/// Calls `onExit` on the loop's thread when the process `pid` has exited: the client named
/// in `initialize`, so that an editor that was killed does not leave its server behind.
///
/// The process is a source of the loop: a `pidfd` (pidfd_open(2)) becomes readable when it
/// exits, so nothing polls. Where the kernel has no pidfd_open (before Linux 5.3) it is
/// checked twice a second instead (`kill(pid, 0)`), well inside the one second the protocol
/// promises. On the loop's thread only; the watch ends when the watcher goes away.
public final class ProcessWatcher {
    private var source: EventLoop.Source?
    private var timer: EventLoop.Timer?
    private var pidFD: Int32 = -1

    static let checkInterval: UInt64 = 500_000_000

    public init(pid: Int32, loop: EventLoop, onExit: @escaping () -> Void) {
        pidFD = taskline_pidfd_open(pid)
        if pidFD >= 0 {
            source = loop.addSource(fd: pidFD, events: Int16(POLLIN)) { [unowned self] _ in
                self.end()
                onExit()
            }
            return
        }
        let failure = errno
        if failure == ESRCH {
            // Gone already: told in the loop's next round, like any other exit.
            let timer = loop.makeTimer(onExit)
            timer.schedule(after: 0)
            self.timer = timer
            return
        }
        Log.info("pidfd_open is unavailable (\(String(cString: strerror(failure)))): checking client process \(pid) twice a second")
        self.timer = loop.makeTimer { [unowned self] in
            if kill(pid, 0) != 0 && errno == ESRCH {
                self.end()
                onExit()
            } else {
                self.timer?.schedule(after: Self.checkInterval)
            }
        }
        self.timer?.schedule(after: Self.checkInterval)
    }

    deinit {
        end()
    }

    private func end() {
        source?.cancel()
        source = nil
        timer?.cancel()
        if pidFD >= 0 {
            close(pidFD)
            pidFD = -1
        }
    }
}
