import Dispatch
import EventLoop
import Glibc
import Synchronization

/// An event loop's clock that stands still until the test moves it (`EventLoop.advance`), so
/// that what a loop does at a time (a timer's firing, idle work after a quiet time) is checked
/// exactly, however slow the machine. A wait for a deadline not yet come sleeps until a
/// descriptor or another thread wakes the loop. A loop that spins (`idleSpinNanoseconds`)
/// needs a `step`: its spin ends only when the clock has moved past the budget.
public final class ManualLoopClock: LoopClock {
    private let time: Atomic<UInt64>
    private let step: UInt64
    private let sleeps = Atomic(0)

    /// `step`: how far each reading moves the clock on, for a wait that spins, reading the
    /// clock until its budget is spent. The start is as far from zero as a machine's uptime.
    public init(step: UInt64 = 0) {
        time = Atomic(1_000_000_000_000)
        self.step = step
    }

    public func now() -> UInt64 {
        time.wrappingAdd(step, ordering: .sequentiallyConsistent).newValue
    }

    public func nanosecondsToSleep(until deadline: UInt64) -> UInt64? {
        sleeps.add(1, ordering: .sequentiallyConsistent)
        return deadline <= now() ? 0 : nil
    }

    /// How many waits have asked how long to sleep: the ones that went to sleep with a deadline.
    public var sleepsAsked: Int {
        sleeps.load(ordering: .sequentiallyConsistent)
    }

    public func move(by nanoseconds: UInt64) {
        time.add(nanoseconds, ordering: .sequentiallyConsistent)
    }
}

extension EventLoop {
    /// Moves `clock`, this loop's, on by `nanoseconds`, and returns once the loop has done
    /// what was due by then (see `settle`).
    public func advance(_ clock: ManualLoopClock, by nanoseconds: UInt64) {
        execute { clock.move(by: nanoseconds) }
        settle()
    }

    /// Returns once the loop has nothing left to do at the time on its clock: it has handled
    /// the descriptors ready when this was called, fired the timers due, called the idle
    /// work whose quiet time is up and run the jobs that idle work gave it. On any clock.
    public func settle() {
        let done = DispatchSemaphore(value: 0)
        execute {
            // Due now: it fires after the next wait, with every other timer due by then.
            self.makeTimer {
                // Idle work is called only when no descriptor is ready, after the pause, in
                // the order it was added: this, last. Its first call ends the wait, so that
                // the loop runs what the others gave it before the second.
                final class Barrier {
                    var handler: EventLoop.Handler<Bool>?
                    var calls = 0
                }
                let barrier = Barrier()
                barrier.handler = self.addIdleHandler(quietNanoseconds: 0) {
                    barrier.calls += 1
                    guard barrier.calls == 2 else { return true }
                    barrier.handler?.cancel()
                    barrier.handler = nil
                    done.signal()
                    return false
                }
            }.schedule(at: self.now())
        }
        precondition(done.wait(timeout: .now() + 120) == .success, "the event loop did not come to rest within two minutes")
    }
}

/// Whether `condition` came true within `seconds`, looked at every millisecond: a wait for an
/// event that can be seen but not waited on, with a deadline that only a failure reaches.
public func waitUntil(seconds: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = DispatchTime.now() + seconds
    while DispatchTime.now() < deadline {
        if try condition() { return true }
        usleep(1_000)
    }
    return try condition()
}
