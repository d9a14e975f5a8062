import TestSupport
import Testing

extension Cluster {
    /// On inside scripts/with-postgres; outside, the suite skips, saying why.
    static let available: ConditionTrait = .enabled(if: unavailable == nil, Comment(rawValue: unavailable ?? ""))
}
