import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Notices when the client process named in `initialize` has gone, so an editor that was
/// killed does not leave its server behind. Checks twice a second: well inside the one
/// second the protocol promises, and cheap (one `kill(pid, 0)` per check).
/// `@unchecked`: a dispatch source is safe to use from any thread, but not marked `Sendable`.
final class ProcessWatcher: @unchecked Sendable {
    private let timer: DispatchSourceTimer

    init(pid: Int32, onExit: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "taskline.process-watcher"))
        timer.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(500), leeway: .milliseconds(100))
        let timer = self.timer
        timer.setEventHandler {
            if kill(pid, 0) != 0 && errno == ESRCH {
                timer.cancel()
                onExit()
            }
        }
        timer.resume()
    }

    deinit {
        timer.cancel()
    }
}
