import Glibc
import Synchronization

/// Time-ordered (version 7, RFC 9562) UUIDs in their lowercase text form, without pulling
/// in Foundation.
///
/// Why not random (version 4) ones: a task's id keys a unique index and breaks ties in the
/// priority and due indexes, so a random id puts every create on a random leaf of four
/// B-trees, which at a million tasks the page cache cannot hold (a read and a checkpoint
/// copy a page each); ids that grow with time all go to the right-hand edge. The first 48
/// bits are the Unix time in milliseconds, the next 12 the fraction of the millisecond
/// (RFC 9562 §6.2, method 3, as PostgreSQL's `uuidv7()`), the last 62 random.
///
/// Each id is greater than the one before in this process, even when the clock steps back
/// or two are made in the same tick, so tasks created in one millisecond are listed in the
/// order they were made (the fetch order breaks ties by id).
package final class UUID7: Sendable {
    /// The generator the store's ids come from: one per process, so that they all grow.
    package static let shared = UUID7()

    private struct State {
        /// The last timestamp given out: milliseconds << 12 | fraction.
        var last: UInt64 = 0
        /// Random words drawn together: glibc's arc4random_buf asks the kernel each time it
        /// is called, so one system call serves `pool.count` ids.
        var pool = [UInt64](repeating: 0, count: 64)
        var used = 64
    }

    private let state = Mutex(State())

    package init() {}

    package func next() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let nanoseconds = UInt64(spec.tv_nsec)
        return next(
            milliseconds: UInt64(spec.tv_sec) * 1000 + nanoseconds / 1_000_000,
            fraction: nanoseconds % 1_000_000 * 4096 / 1_000_000)
    }

    /// The next id for a clock reading of `milliseconds` and `fraction` 4096ths of one.
    package func next(milliseconds: UInt64, fraction: UInt64) -> String {
        let (stamp, random) = state.withLock { state in
            state.last = max(milliseconds << 12 | fraction, state.last + 1)
            if state.used == state.pool.count {
                state.pool.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
                state.used = 0
            }
            state.used += 1
            return (state.last, state.pool[state.used - 1])
        }
        let high = stamp << 4 & ~0xFFFF | 0x7000 | stamp & 0xFFF  // 48 ms, version 7, 12 fraction
        let low = random & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000  // RFC 9562 variant, 62 random
        // Written as bytes: splitting a hex String into Characters and joining the groups
        // cost a noticeable share of a whole tasks/create.
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for index in 0..<16 {
            let word = index < 8 ? high : low
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            Hex.append(UInt8(truncatingIfNeeded: word >> (56 - 8 * UInt64(index % 8))), to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
