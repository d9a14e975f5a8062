import Synchronization

/// A store's clock (milliseconds since the epoch) that the test moves by hand, so that
/// ordering by time is deterministic.
public final class ManualClock: Sendable {
    private let value: Mutex<Int64>

    public init(_ start: Int64 = 1_780_000_000_000) {
        value = Mutex(start)
    }

    /// Each reading advances by `step` milliseconds.
    public func read(step: Int64 = 1) -> Int64 {
        value.withLock { now in
            now += step
            return now
        }
    }

    public func set(_ milliseconds: Int64) {
        value.withLock { $0 = milliseconds }
    }
}
