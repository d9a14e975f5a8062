import Glibc

/// Starts a detached thread that runs `body`, and returns false if the system cannot start
/// one. pthreads rather than Foundation's `Thread`, so that using it loads no Foundation.
///
/// `body` is all the thread keeps alive: capture what it works on, not its owner, or the
/// owner can never go away and tell it to stop.
func startDetachedThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    let context = Unmanaged.passRetained(ThreadBody(body))
    var thread = pthread_t()
    let created = pthread_create(
        &thread, nil,
        { context in
            Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context.toOpaque())
    guard created == 0 else {
        context.release()
        return false
    }
    pthread_detach(thread)
    return true
}

private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
        self.run = run
    }
}
