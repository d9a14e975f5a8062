/// "Did you mean …?" for a word that names nothing: the closest name by edit distance.
public enum Suggestion {
    /// The one name closest to `word` (letters swapped, added, removed or changed: one such
    /// edit for words of up to 4 letters, two for longer), or nil when none is that close or
    /// two are equally close.
    public static func closest(to word: String, among names: [String]) -> String? {
        let word = word.lowercased()
        let limit = word.count <= 4 ? 1 : 2
        let scored = names.map { (name: $0, distance: distance(word, $0.lowercased())) }.filter { $0.distance <= limit }
        guard let best = scored.map(\.distance).min() else { return nil }
        let closest = scored.filter { $0.distance == best }
        return closest.count == 1 ? closest[0].name : nil
    }

    /// Optimal string alignment distance (Levenshtein's, with a swap of two neighbours as
    /// one edit: `lsit` is one from `list`).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}
