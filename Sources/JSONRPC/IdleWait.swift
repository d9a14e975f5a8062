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
struct IdleWait {
    let spinNanoseconds: UInt64
    /// Whether the last wait ended within the budget, so the next one spins first.
    private(set) var clientIsQuick = false

    init(spinNanoseconds: UInt64) {
        self.spinNanoseconds = spinNanoseconds
    }

    /// `poll` on `targets` until one is ready; returns what `poll` returned.
    mutating func wait(_ targets: inout [pollfd]) -> Int32 {
        let start = Self.now()
        var result: Int32 = 0
        if clientIsQuick {
            repeat {
                result = poll(&targets, nfds_t(targets.count), 0)
            } while result == 0 && Self.now() - start < spinNanoseconds
        }
        if result == 0 {
            result = poll(&targets, nfds_t(targets.count), -1)
        }
        clientIsQuick = Self.now() - start <= spinNanoseconds
        return result
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
