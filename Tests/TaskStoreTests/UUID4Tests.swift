@testable import TaskStore
import Testing

@Suite struct UUID4Tests {
    /// Lowercase 8-4-4-4-12 hex, version 4, RFC 4122 variant, and never the same twice.
    @Test func isAVersion4UUIDInLowercaseText() {
        var seen = Set<String>()
        for _ in 0..<2000 {
            let id = UUID4.random()
            let groups = id.split(separator: "-", omittingEmptySubsequences: false)
            #expect(groups.map(\.count) == [8, 4, 4, 4, 12], "\(id)")
            #expect(id.allSatisfy { $0 == "-" || "0123456789abcdef".contains($0) }, "\(id)")
            #expect(groups[2].first == "4", "\(id)")
            #expect(groups[3].first.map { "89ab".contains($0) } == true, "\(id)")
            seen.insert(id)
        }
        #expect(seen.count == 2000)
    }
}
