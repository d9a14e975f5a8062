import Foundation

/// The id the benchmark gives its task number `number`: a time-ordered (version 7) UUID, as
/// the server makes, but computed, so that `sqlite-baseline` (`bench_task_id`, the same
/// arithmetic) can name the same tasks. Task `number` was made `number` milliseconds after
/// the start of 2025; the 74 bits after the time are random-looking (SplitMix64). The ids
/// of the tasks the benchmark creates are the server's own, made now, so they sort after
/// these, as new tasks' ids do in a database that has been in use.
func benchTaskID(_ number: Int) -> String {
    let milliseconds = 1_735_689_600_000 + UInt64(number)
    let high = mix(2 * UInt64(number))
    let low = mix(2 * UInt64(number) + 1)
    return String(
        format: "%08llx-%04llx-7%03llx-%04llx-%012llx", milliseconds >> 16, milliseconds & 0xFFFF, high & 0xFFF,
        ((low >> 48) & 0x3FFF) | 0x8000, low & 0xFFFF_FFFF_FFFF)
}

/// One of `choices` values (0 to `choices` - 1) for task `number`'s attribute `attribute`:
/// each attribute drawn independently of the others and of the task's place in the order,
/// so that no filter's tasks all share one sort key, as they would if each attribute were
/// the task number modulo something (every odd task undated, and every task with tag `t3`).
func benchChoice(_ number: Int, _ attribute: UInt64, of choices: Int) -> Int {
    Int(mix(UInt64(number) &* 64 &+ attribute) % UInt64(choices))
}

/// SplitMix64's finalizer.
private func mix(_ value: UInt64) -> UInt64 {
    var z = value &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}

/// The task number of a benchmark's `sample`th lookup among `size` tasks: spread over the
/// whole database (104,729 is a prime, so every task comes once in `size` samples), as a
/// user's lookups are, rather than the first tasks, whose time-ordered ids share a few pages.
/// `sqlite-baseline` (`spread_task_number`) does the same.
func spreadTaskNumber(_ sample: Int, size: Int) -> Int {
    sample * 104_729 % size
}
