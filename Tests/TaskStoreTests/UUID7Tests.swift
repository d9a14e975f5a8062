import TaskModel
import Testing

@testable import TaskStore

@Suite struct UUID7Tests {
    /// The milliseconds and the fraction an id carries.
    func stamp(_ id: String) -> (milliseconds: Int64, fraction: Int) {
        let groups = id.split(separator: "-")
        return (Int64(groups[0] + groups[1], radix: 16)!, Int(groups[2].dropFirst(), radix: 16)!)
    }

    /// Lowercase 8-4-4-4-12 hex, version 7, RFC 9562 variant, the time first, each greater
    /// than the one before.
    @Test func isAVersion7UUIDInLowercaseTextThatGrows() {
        let before = Timestamp.now()
        let ids = (0..<2000).map { _ in UUID7.shared.next() }
        let after = Timestamp.now()
        for id in ids {
            let groups = id.split(separator: "-", omittingEmptySubsequences: false)
            #expect(groups.map(\.count) == [8, 4, 4, 4, 12], "\(id)")
            #expect(id.allSatisfy { $0 == "-" || "0123456789abcdef".contains($0) }, "\(id)")
            #expect(groups[2].first == "7", "\(id)")
            #expect(groups[3].first.map { "89ab".contains($0) } == true, "\(id)")
            #expect((before...after + 1).contains(stamp(id).milliseconds), "\(id)")
        }
        #expect(ids == ids.sorted() && Set(ids).count == ids.count)
    }

    /// The random bits are drawn in batches: each id still gets its own, past the end of a
    /// batch too (short ids are made from the last group, see ShortID).
    @Test func everyIdHasRandomBitsOfItsOwn() {
        let generator = UUID7()
        let lastGroups = (0..<300).map { _ in generator.next(milliseconds: 1_000_000, fraction: 0).suffix(12) }
        #expect(Set(lastGroups).count == lastGroups.count)
    }

    @Test func theTimeAndItsFractionLeadTheId() {
        let id = UUID7().next(milliseconds: 0x0193_A4B2_1C3D, fraction: 0xABC)
        #expect(id.hasPrefix("0193a4b2-1c3d-7abc-"), "\(id)")
    }

    /// Two ids from one clock reading, or from a clock that went back, still grow: the
    /// fraction counts on and carries into the milliseconds.
    @Test func growsWhenTheClockStandsStillOrStepsBack() {
        let generator = UUID7()
        let first = generator.next(milliseconds: 1_000_000, fraction: 4095)
        let same = generator.next(milliseconds: 1_000_000, fraction: 4095)
        let back = generator.next(milliseconds: 995_000, fraction: 0)
        #expect(first < same && same < back, "\(first) \(same) \(back)")
        #expect(stamp(same) == (1_000_001, 0) && stamp(back) == (1_000_001, 1), "\(same) \(back)")
    }
}
