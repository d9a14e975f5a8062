#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the connection's loop waits for something to do: an adaptive spin, then sleep.
///
/// A client in a tight loop (send a request, read its answer, send the next) sends its
/// next message a few microseconds after reading the last answer. A loop asleep in
/// `poll` by then must be woken, and waking a sleeping CPU costs 10–20 µs on a virtual
/// machine, as much as the server's own work for a `tasks/get`. So when the time the loop
/// last waited was within the spin budget, it polls without sleeping for up to that
/// budget before it sleeps, as low-latency messaging does (Aeron's idle strategies,
/// Linux's busy polling). A client with gaps longer than the budget, such as an editor
/// that asks when its user types, never makes it spin: it costs nothing while idle.
///
/// Before it sleeps, and every `pauseInterval` while a quick client keeps it from sleeping,
/// it calls its owner's `onPause`, for work that waits until the loop has nothing to do.
struct IdleWait {
    let spinNanoseconds: UInt64
    /// Whether the last wait ended within the budget, so the next one spins first.
    private(set) var clientIsQuick = false
    /// When `onPause` was last called (monotonic nanoseconds).
    private var lastPause: UInt64 = 0
    /// The longest the loop goes without calling `onPause`.
    static let pauseInterval: UInt64 = 10_000_000

    init(spinNanoseconds: UInt64) {
        self.spinNanoseconds = spinNanoseconds
    }

    /// `poll` on `targets` until one is ready; returns what `poll` returned, or 0 at once
    /// when `onPause` says it gave the loop something to do.
    mutating func wait(_ targets: inout [pollfd], onPause: () -> Bool = { false }) -> Int32 {
        let start = Self.now()
        if start - lastPause >= Self.pauseInterval, pause(onPause, at: start) { return 0 }
        var result: Int32 = 0
        repeat {
            result = poll(&targets, nfds_t(targets.count), 0)
        } while result == 0 && clientIsQuick && Self.now() - start < spinNanoseconds
        if result == 0 {
            if pause(onPause, at: Self.now()) {
                clientIsQuick = false
                return 0
            }
            result = poll(&targets, nfds_t(targets.count), -1)
        }
        clientIsQuick = Self.now() - start <= spinNanoseconds
        return result
    }

    private mutating func pause(_ onPause: () -> Bool, at time: UInt64) -> Bool {
        lastPause = time
        return onPause()
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
