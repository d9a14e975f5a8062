import Glibc

/// The time an event loop's timers, pauses and quiet times are measured on: the monotonic
/// clock, or in tests one that moves only when the test moves it, so that what depends on
/// time is checked exactly rather than against a loaded machine's pace.
public protocol LoopClock: Sendable {
    /// Nanoseconds since a fixed point; never goes back.
    func now() -> UInt64
    /// How long a wait for `deadline` may sleep, in real nanoseconds; nil: until a descriptor
    /// or another thread wakes the loop (whoever moves a clock by hand wakes it, `execute`).
    func nanosecondsToSleep(until deadline: UInt64) -> UInt64?
}

/// CLOCK_MONOTONIC: the clock of every loop but a test's.
public struct MonotonicClock: LoopClock {
    public init() {}

    public func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    public func nanosecondsToSleep(until deadline: UInt64) -> UInt64? {
        deadline - min(deadline, now())
    }
}
