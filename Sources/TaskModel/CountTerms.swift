/// How a store counts a filter for `includeTotal` without checking every task.
///
/// Not blocked and not waiting are what nearly every task is: counted as they are written,
/// the tasks that meet them are found by checking every task
/// (docs/decisions/0015-kept-counts.md). Their opposites, blocked and waiting, are a few
/// tasks that an index holds by themselves. So `F` and not `X` counts as `F` less `F` and `X`: each term is a
/// count a store reads from what it keeps or from an index of the few.
extension TaskFilter {
    /// Filters whose counts, each multiplied by its sign and added up, count this filter's
    /// tasks: one term, the filter itself, when it asks for neither not blocked nor not
    /// waiting; four for `next`'s open, not blocked, not waiting (open, less the open blocked
    /// and the open waiting, plus the open that are both, counted twice).
    public var countTerms: [(filter: TaskFilter, sign: Int)] {
        var terms = [(filter: self, sign: 1)]
        for condition in [\TaskFilter.blocked, \TaskFilter.waiting] where self[keyPath: condition] == false {
            terms = terms.flatMap { term -> [(filter: TaskFilter, sign: Int)] in
                var all = term.filter
                all[keyPath: condition] = nil
                var opposite = term.filter
                opposite[keyPath: condition] = true
                return [(all, term.sign), (opposite, -term.sign)]
            }
        }
        return terms
    }
}
