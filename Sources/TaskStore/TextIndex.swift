import SQLite

/// What the text filter asks the trigram index (`task_text`), which only narrows the tasks
/// that `instr()` then decides on, and how the index is kept (in batches: see
/// `indexPendingIfMany`).
///
/// Asking for the needle as a phrase makes FTS5 read the whole list of every trigram in it,
/// and a needle's trigrams are often in nearly every task ("wor" in "word777"): in a large
/// file that took long however few tasks matched. So the index is first asked, for a
/// few of the needle's trigrams, how many tasks hold each, counting no further than
/// `commonCount`; the query then asks only for the rarest ones. When every trigram is
/// common, the tasks that hold all of them together are counted the same way: common
/// trigrams often meet in few tasks, and a scan in sort order then reads every task for a
/// page it never fills. Only when they meet in `commonCount` tasks or more does a
/// page leave the index out, and the scan finds a page of matches early, most likely; it
/// scans on a budget (`scanTime`), past which the candidates are read after all unless
/// they are too many (`reading`, `TaskStore.fetch`). A count has no page to fill
/// early: a common text alone is counted as a phrase (`countSQL`), and with other filters
/// its candidates are read if they are few enough. A needle of one or two characters is
/// found from the trigrams that begin with it (`shortNeedleCandidates`) when they are few,
/// and scanned for otherwise.
enum TextIndex {
    /// A trigram, or the needle's trigrams together, in this many tasks or more narrows
    /// too little for a page to be worth reading from the index.
    static let commonCount = 4096
    /// How long a page's scan for a needle whose candidates are not few may take before
    /// they are counted (`reading`): a scan that finds its page at all mostly finds it
    /// early, and reading thousands of candidates costs more than a scan this long (the
    /// figures: docs/decisions/0020-common-text-needles.md).
    static let scanTime = Duration.milliseconds(3)
    /// How many of the needle's trigrams are counted: a long needle is sampled evenly.
    static let maxProbes = 12
    /// How many of the rarest trigrams the query asks for together.
    static let maxTerms = 3

    /// The tasks that may hold a needle, as the index can name them: the ones `match`
    /// finds (the tasks whose texts wait to be indexed are looked at too: `clause`).
    struct Candidates {
        let match: String
        /// Whether they are fewer than `commonCount`, as far as counted.
        let few: Bool
    }

    /// Narrows to the tasks `MATCH ?` finds, and those whose texts wait to be indexed. One
    /// IN of both, each task looked up once: an OR of two INs had SQLite keep a set of the
    /// tasks already seen, which cost a third more than the lookups.
    static let clause = "task.pk IN (SELECT rowid FROM task_text WHERE task_text MATCH ? UNION ALL SELECT pk FROM task_text_pending)"

    /// The same tasks as a table to start from, each once: the index's matches but those
    /// pending, whose old texts it may still hold, then the pending ones. Its value: the
    /// match. A match whose task is gone finds no row of `task`.
    static let source = """
        (SELECT rowid AS pk FROM task_text WHERE task_text MATCH ? AND rowid NOT IN (SELECT pk FROM task_text_pending)
         UNION ALL SELECT pk FROM task_text_pending) AS candidate CROSS JOIN task ON task.pk = candidate.pk
        """

    /// The candidates for `needle` (already folded), or nil when the index cannot name them.
    static func candidates(for needle: String, in database: Database) throws -> Candidates? {
        let scalars = Array(needle.unicodeScalars)
        // FTS5's query parser stops at a NUL, and a needle with the padding's U+0001 in it
        // could end in the padding: such a needle is left to instr() alone.
        guard !scalars.isEmpty, !scalars.contains("\0"), !scalars.contains(padding) else { return nil }
        guard scalars.count >= 3 else { return try shortNeedleCandidates(needle, in: database) }
        let trigramCount = scalars.count - 2
        let trigram = { (start: Int) in
            var trigram = String.UnicodeScalarView()
            trigram.append(contentsOf: scalars[start..<(start + 3)])
            return quoted(String(trigram))
        }
        let step = max(1, trigramCount / maxProbes)
        var counted: [(term: String, count: Int)] = []
        var probed: [String] = []
        for start in stride(from: 0, to: trigramCount, by: step).prefix(maxProbes) {
            let term = trigram(start)
            guard !probed.contains(term) else { continue }
            probed.append(term)
            let count = try tasks(matching: term, upTo: commonCount, in: database)
            // No task holds this trigram, so none holds the needle: the index says so at once.
            if count == 0 { return Candidates(match: term, few: true) }
            if count < commonCount { counted.append((term, count)) }
        }
        guard counted.isEmpty else {
            let rarest = counted.sorted { $0.count < $1.count }.prefix(maxTerms).map(\.term)
            return Candidates(match: rarest.joined(separator: " AND "), few: true)
        }
        // Trigrams that do not overlap, the last one aside, and together hold every
        // character of the needle narrow about as much as all of them do, and FTS5 reads
        // each one's list. It skips along each list to the next task that the others hold,
        // so the count reads little of the longest lists.
        let covering = Set(stride(from: 0, to: trigramCount, by: 3)).union([trigramCount - 1]).sorted().prefix(maxProbes)
        var terms: [String] = []
        for term in covering.map(trigram) where !terms.contains(term) { terms.append(term) }
        let together = terms.joined(separator: " AND ")
        return Candidates(match: together, few: try tasks(matching: together, upTo: commonCount, in: database) < commonCount)
    }

    /// What reading `match`'s candidates from the index, each looked up, costs against
    /// reading every task in order.
    enum CandidateReading: Equatable {
        /// Fewer than `cheapCandidates`.
        case cheap
        /// Fewer than a quarter of the tasks, and about this long.
        case dear(Duration)
        /// A quarter of the tasks or more: reading every task in order costs less.
        case tooDear
    }

    /// Candidates fewer than this many are read from the index without more ado: some 40 ms
    /// at most.
    static let cheapCandidates = 65_536
    /// About how long a candidate takes to read and sort, as measured at a million tasks
    /// (docs/decisions/0020-common-text-needles.md).
    static let candidateReadTime = Duration.nanoseconds(500)

    /// How costly reading `match`'s candidates is: they are counted no further than a
    /// quarter of the tasks.
    static func reading(_ match: String, in database: Database) throws -> CandidateReading {
        let tasks = Int(try database.integer("SELECT coalesce(sum(count), 0) FROM task_total") ?? 0)
        return reading(candidates: try self.tasks(matching: match, upTo: readableLimit(of: tasks), in: database), of: tasks)
    }

    /// How costly reading `candidates` of `tasks` is. Past a quarter of the tasks, a scan of
    /// every task in order costs less than reading and sorting the candidates.
    static func reading(candidates: Int, of tasks: Int) -> CandidateReading {
        if candidates < cheapCandidates { return .cheap }
        return candidates < readableLimit(of: tasks) ? .dear(candidateReadTime * candidates) : .tooDear
    }

    private static func readableLimit(of tasks: Int) -> Int { max(cheapCandidates, tasks / 4) }

    /// Counts the tasks whose texts hold `needle` (folded) from the index, without reading
    /// a task: `phrase(needle)`, in a trigram index that keeps case, finds exactly the
    /// texts that hold the needle (each trigram of it, one after the other). The index may
    /// still hold texts since taken out (`task_text_stale`, which keeps them) and lack
    /// those waiting to go in (`task_text_pending`): the first are taken off, the second
    /// added, as instr() finds them (CROSS JOIN: from the few pending, not every task).
    /// Values: the phrase, then the needle.
    static let countSQL = """
        SELECT (SELECT count(*) FROM task_text WHERE task_text MATCH ?1)
            - (SELECT count(*) FROM task_text_stale WHERE instr(title_fold, ?2) > 0 OR instr(notes_fold, ?2) > 0)
            + (SELECT count(*) FROM task_text_pending CROSS JOIN task ON task.pk = task_text_pending.pk
               WHERE instr(task.title_fold, ?2) > 0 OR instr(task.notes_fold, ?2) > 0)
        """

    /// `needle` as one FTS5 phrase.
    static func phrase(_ needle: String) -> String { quoted(needle) }

    /// How many tasks `match` finds in the index, counting no further than `limit`.
    static func tasks(matching match: String, upTo limit: Int, in database: Database) throws -> Int {
        try database.cachedStatement("SELECT count(*) FROM (SELECT 1 FROM task_text WHERE task_text MATCH ? LIMIT ?)")
            .firstRow([.text(match), .integer(Int64(limit))]) { $0.int(0) } ?? 0
    }

    /// How many texts may wait, to go into the index (`task_text_pending`) or out of it
    /// (`task_text_stale`), before a write indexes them: a batch this size costs about what
    /// a couple of one-task index writes did, and the text filter reads that many pending
    /// tasks cheaply.
    static let pendingLimit = 128

    /// Brings the index up to date in one batch, once `pendingLimit` texts wait. Called
    /// inside each write transaction of the store's, so a commit leaves at most that many
    /// waiting (writers other than Taskline leave theirs for its next write).
    /// Returns whether it indexed them.
    @discardableResult
    static func indexPendingIfMany(in database: Database) throws -> Bool {
        guard try hasManyPending(in: database) else { return false }
        try indexPending(in: database)
        return true
    }

    static func hasManyPending(in database: Database) throws -> Bool {
        try database.integer("SELECT (SELECT count(*) FROM task_text_pending) + (SELECT count(*) FROM task_text_stale)") ?? 0
            >= pendingLimit
    }

    /// Takes the stale texts out (padded as they went in, as `task_text_source` pads them),
    /// then puts the pending ones in: one statement each, so FTS5 writes one segment for
    /// the lot.
    static func indexPending(in database: Database) throws {
        try database.run(
            """
            INSERT INTO task_text (task_text, rowid, title_fold, notes_fold)
            SELECT 'delete', pk, title_fold || char(1, 1), notes_fold || char(1, 1) FROM task_text_stale
            """)
        try database.run("DELETE FROM task_text_stale")
        try database.run(
            """
            INSERT INTO task_text (rowid, title_fold, notes_fold)
            SELECT source.pk, source.title_fold, source.notes_fold
            FROM task_text_pending JOIN task_text_source AS source ON source.pk = task_text_pending.pk
            """)
        try database.run("DELETE FROM task_text_pending")
    }

    /// Leaf pages one idle step writes at most (FTS5's 'merge'): a few milliseconds of work,
    /// so that a request that comes meanwhile barely waits.
    static let mergeStepPages = 16

    /// Merges up to `mergeStepPages` pages of the index's segments, of the level with the
    /// most of them once it holds `usermerge` (16, schema 39), or goes on with a merge begun;
    /// true when there was something to merge, so another step may find more. The writes
    /// merge nothing (schema 39): the store calls this when its loop is idle.
    static func mergeStep(in database: Database) throws -> Bool {
        let before = database.totalChanges
        try database.run("INSERT INTO task_text (task_text, rank) VALUES ('merge', ?)", [.integer(Int64(mergeStepPages))])
        // The command counts one change; a step that merged wrote the index's pages too
        // (one that found nothing writes nothing).
        return database.totalChanges - before >= 2
    }

    /// What follows each text in the index, twice (`task_text_source`, schema 37): every
    /// occurrence of a needle of one or two characters then begins a trigram.
    static let padding: Unicode.Scalar = "\u{1}"

    /// A needle of one or two characters (without the padding) has no trigram of its own,
    /// but each of its occurrences begins one of the index's, and those that begin with
    /// it are a range of the index's terms. They are read from the index's list of its
    /// entries (`task_text_entries`, FTS5's `fts5vocab`, in this connection's temporary
    /// schema), no further than `commonCount` entries: fewer, and the terms, asked for
    /// together, name exactly the tasks that hold the needle, where a scan would read every
    /// task for a needle in none; more, and a scan finds a page early (nil). No term names no task: the needle's own phrase,
    /// shorter than a trigram, matches nothing.
    static func shortNeedleCandidates(_ needle: String, in database: Database) throws -> Candidates? {
        try database.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.task_text_entries USING fts5vocab(main, task_text, instance)")
        var terms: [String] = []
        var entries = 0
        // Every term that begins with the needle is between it and the needle followed by
        // the largest scalar, as UTF-8 bytes compare.
        let highest = String(repeating: "\u{10FFFF}", count: 3)
        try database.cachedStatement("SELECT term FROM temp.task_text_entries WHERE term >= ?1 AND term <= ?2 LIMIT ?3")
            .forEachRow([.text(needle), .text(needle + highest), .integer(Int64(commonCount))]) { row in
                entries += 1
                let term = row.text(0)
                if terms.last != term { terms.append(term) }
            }
        guard entries < commonCount, terms.count <= maxShortNeedleTerms else { return nil }
        return Candidates(match: terms.isEmpty ? quoted(needle) : terms.map(quoted).joined(separator: " OR "), few: true)
    }

    /// At most this many terms are asked for together; a needle that begins more is
    /// scanned for.
    static let maxShortNeedleTerms = 256

    /// An FTS5 string: in double quotes, a quote doubled. Built scalar by scalar, since a
    /// quote followed by a combining mark is one Character, which splitting by Character
    /// would not see.
    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            result.unicodeScalars.append(scalar)
            if scalar == "\"" { result.unicodeScalars.append(scalar) }
        }
        return result + "\""
    }
}
