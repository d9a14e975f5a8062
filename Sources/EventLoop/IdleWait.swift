import CEventLoop
import Glibc

/// How the event loop waits for something to do: an adaptive spin, then sleep until a
/// descriptor is ready or the nearest timer is due.
///
/// A client in a tight loop (send a request, read its answer, send the next) sends its
/// next message a few microseconds after reading the last answer. A loop asleep in
/// `poll` by then must be woken, and waking a sleeping CPU on a virtual machine costs as
/// much as the server's own work for a `tasks/get` (docs/performance.md). So when the
/// time the loop last waited was within the spin budget, it polls without sleeping for up
/// to that budget before it sleeps, as low-latency messaging does (Aeron's idle strategies,
/// Linux's busy polling). A client with gaps longer than the budget, such as an editor
/// that asks when its user types, never makes it spin: it costs nothing while idle.
///
/// Before it sleeps, and every `pauseInterval` while a quick client keeps it from sleeping,
/// it calls its owner's `onPause`, for work that waits until the loop has nothing to do.
/// Only before it sleeps, it calls `onIdle`, for work that must not take from a busy client;
/// that says when to wake for it, if it waits for a quiet time to pass.
struct IdleWait {
    let spinNanoseconds: UInt64
    let clock: any LoopClock
    /// Whether the last wait ended within the budget, so the next one spins first.
    private(set) var clientIsQuick = false
    /// When the last wait ended (on `clock`): the time the loop's timers are compared with,
    /// read once.
    private(set) var lastWake: UInt64 = 0
    /// When `onPause` was last called (on `clock`).
    private var lastPause: UInt64 = 0
    /// The longest the loop goes without calling `onPause`.
    static let pauseInterval: UInt64 = 10_000_000

    init(spinNanoseconds: UInt64, clock: any LoopClock = MonotonicClock()) {
        self.spinNanoseconds = spinNanoseconds
        self.clock = clock
    }

    /// `poll` on `targets` until one is ready or `deadline` (on `clock`) has
    /// come; returns what `poll` returned (0 at the deadline), or 0 at once when `onPause`
    /// or `onIdle` says it gave the loop something to do.
    mutating func wait(
        _ targets: inout [pollfd], deadline: UInt64? = nil, onPause: () -> Bool = { false },
        onIdle: () -> (gaveWork: Bool, wakeAt: UInt64?) = { (false, nil) }
    ) -> Int32 {
        let start = clock.now()
        if start - lastPause >= Self.pauseInterval, pause(onPause, at: start) {
            lastWake = start
            return 0
        }
        let spinEnd = min(start + spinNanoseconds, deadline ?? .max)
        var result: Int32 = 0
        repeat {
            result = poll(&targets, nfds_t(targets.count), 0)
        } while result == 0 && clientIsQuick && clock.now() < spinEnd
        if result == 0 {
            let paused = pause(onPause, at: clock.now())
            let idle = onIdle()
            if idle.gaveWork || paused {
                clientIsQuick = false
                lastWake = lastPause
                return 0
            }
            result = sleep(&targets, until: idle.wakeAt.map { min($0, deadline ?? .max) } ?? deadline)
        }
        lastWake = clock.now()
        // A timer that ended the wait says nothing of how quick the client is.
        clientIsQuick = result > 0 && lastWake - start <= spinNanoseconds
        return result
    }

    /// `poll` without a timeout but the deadline's, to the nanosecond.
    private func sleep(_ targets: inout [pollfd], until deadline: UInt64?) -> Int32 {
        guard let remaining = deadline.flatMap(clock.nanosecondsToSleep) else { return poll(&targets, nfds_t(targets.count), -1) }
        return taskline_poll_nanoseconds(&targets, nfds_t(targets.count), Int64(clamping: remaining))
    }

    private mutating func pause(_ onPause: () -> Bool, at time: UInt64) -> Bool {
        lastPause = time
        return onPause()
    }
}
