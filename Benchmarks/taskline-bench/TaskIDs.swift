import Foundation

/// The id the benchmark gives its task number `number`: a random-looking version 4 UUID, as
/// the server makes, but computed, so that `sqlite-baseline` (`bench_task_id`, the same
/// arithmetic) can name the same tasks. Ids like `task-17` would put new tasks' random ids
/// in a region of their own in every index keyed by id, a few pages that stay cached: a
/// database of a million random ids costs a create twice as much, and that is what users have.
func benchTaskID(_ number: Int) -> String {
    // SplitMix64's finalizer.
    func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    let high = mix(2 * UInt64(number)), low = mix(2 * UInt64(number) + 1)
    return String(format: "%08llx-%04llx-4%03llx-%04llx-%012llx", high >> 32, (high >> 16) & 0xFFFF, high & 0xFFF,
                  ((low >> 48) & 0x3FFF) | 0x8000, low & 0xFFFF_FFFF_FFFF)
}
