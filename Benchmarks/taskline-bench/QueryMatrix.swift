import Foundation

/// Every filter a client can ask for, alone and in the combinations clients use, under every
/// sort of one key and the common sorts of two: a first page of 50 and a page from the middle
/// of the matching tasks (reached by a cursor), each cell judged against the interactive
/// budget (median ≤ 20 ms, 99th percentile ≤ 50 ms).
enum QueryMatrix {
    struct Filter {
        var name: String
        /// The `filter` member's JSON, or nil for no filter.
        var json: String?
    }

    struct Sort {
        var name: String
        var json: String
    }

    static let medianTarget = 20.0
    static let p99Target = 50.0

    /// What `populate` writes makes each of these match a share of the tasks that a real list
    /// could have: a third done, a tenth per tag, a month of due dates, two projects in five
    /// under `Home`, one in fifty blocked, one in a hundred waiting. The text `word777` is in
    /// one title in a thousand, and one of its trigrams is rare; every trigram of `ask 99`
    /// is common, and it is in one title in ninety ("Task 99…", "Task 990…", …), most of
    /// them after nine tenths of the titles in title order.
    static let filters: [Filter] = {
        let single: [Filter] = [
            Filter(name: "none", json: nil),
            Filter(name: "done", json: #"{"done":true}"#),
            Filter(name: "open", json: #"{"done":false}"#),
            Filter(name: "tag", json: #"{"tags":["t3"]}"#),
            Filter(name: "two tags", json: #"{"tags":["t3","g2"]}"#),
            Filter(name: "text", json: #"{"text":"word777"}"#),
            Filter(name: "common text", json: #"{"text":"ask 99"}"#),
            Filter(name: "due window", json: #"{"dueAfter":"2027-03-01","dueBefore":"2027-04-01"}"#),
            Filter(name: "project", json: #"{"project":"Home"}"#),
            Filter(name: "blocked", json: #"{"blocked":true}"#),
            Filter(name: "waiting", json: #"{"waiting":true}"#),
        ]
        let withOpen = [
            "tag": #""tags":["t3"]"#, "text": #""text":"word777""#, "due window": #""dueAfter":"2027-03-01","dueBefore":"2027-04-01""#,
            "project": #""project":"Home""#, "blocked": #""blocked":true"#, "waiting": #""waiting":true"#,
        ]
        let pairs = withOpen.sorted { $0.key < $1.key }.map { Filter(name: "open + \($0.key)", json: #"{"done":false,\#($0.value)}"#) }
        return single + pairs + [actionable]
    }()

    /// What a "next" list asks for: open, not blocked, not waiting.
    static let actionable = Filter(name: "open + not blocked + not waiting", json: #"{"done":false,"blocked":false,"waiting":false}"#)

    /// Filters no row of the matrix has alone, whose count is measured: the opposites of
    /// blocked and waiting, which most tasks meet (counted as all less the few).
    static let filtersOfMostTasks = [
        Filter(name: "not blocked", json: #"{"blocked":false}"#),
        Filter(name: "not waiting", json: #"{"waiting":false}"#),
    ]

    /// Lists of two filters or more, whose count is measured but not judged (the target is
    /// one filter's): the open tasks with each other filter of the matrix, as a list that
    /// shows only what is left to do asks; a tag's tasks not blocked, and its `next` list
    /// (all less the few, each blocked or waiting one probed for the tag).
    static let countedLists: [Filter] = {
        let open = filters.compactMap { filter -> Filter? in
            guard let json = filter.json, !["none", "done", "open"].contains(filter.name), !filter.name.contains("+") else { return nil }
            return Filter(name: "open + \(filter.name)", json: #"{"done":false,"# + json.dropFirst())
        }
        return open + [
            Filter(name: "tag + not blocked", json: #"{"tags":["t3"],"blocked":false}"#),
            Filter(name: "tag + open + not blocked + not waiting", json: #"{"done":false,"tags":["t3"],"blocked":false,"waiting":false}"#),
        ]
    }()

    static let sorts: [Sort] = {
        var sorts: [Sort] = []
        for field in ["createdAt", "updatedAt", "due", "priority", "title", "project"] {
            for order in ["asc", "desc"] {
                sorts.append(Sort(name: "\(field) \(order)", json: #"[{"field":"\#(field)","order":"\#(order)"}]"#))
            }
        }
        for (first, second) in [("due", "priority"), ("priority", "due"), ("project", "due")] {
            for order in ["asc", "desc"] {
                sorts.append(
                    Sort(
                        name: "\(first), \(second) \(order)",
                        json: #"[{"field":"\#(first)","order":"\#(order)"},{"field":"\#(second)","order":"\#(order)"}]"#))
            }
        }
        return sorts
    }()

    struct Cell {
        var filter: String
        var sort: String
        /// Milliseconds: the first page's median and 99th percentile, then the middle page's.
        var first: (median: Double, p99: Double)
        var middle: (median: Double, p99: Double)?

        var met: Bool {
            [first].appending(middle).allSatisfy { $0.median <= QueryMatrix.medianTarget && $0.p99 <= QueryMatrix.p99Target }
        }
    }

    /// Measures every cell through `server`, `samples` times each (fewer for a cell slower
    /// than half a second a page, so that one slow cell cannot hold up the run).
    static func measure(_ server: Driver, samples: Int) -> [Cell] {
        var cells: [Cell] = []
        for filter in filters {
            let filterMember = filter.json.map { #","filter":\#($0)"# } ?? ""
            for sort in sorts {
                let firstParams = #"{"sort":\#(sort.json),"limit":50\#(filterMember)}"#
                let first = timings(server, server.request("tasks/fetch", firstParams), samples: samples)
                var middle: (median: Double, p99: Double)?
                if let cursor = middleCursor(server, sort: sort, filterMember: filterMember) {
                    let params = #"{"sort":\#(sort.json),"limit":50,"cursor":"\#(cursor)"\#(filterMember)}"#
                    middle = timings(server, server.request("tasks/fetch", params), samples: samples)
                }
                let cell = Cell(filter: filter.name, sort: sort.name, first: first, middle: middle)
                FileHandle.standardError.write(
                    Data(
                        "  query \(filter.name) × \(sort.name): \(format(first.median)) ms, middle \(middle.map { format($0.median) } ?? "-") ms\n"
                            .utf8))
                cells.append(cell)
            }
        }
        return cells
    }

    /// `includeTotal` with each filter alone, with `next`'s, and with the lists of two or
    /// more (`countedLists`), median milliseconds.
    static func measureTotals(_ server: Driver, samples: Int) -> [(filter: String, median: Double)] {
        (filters.filter { $0.json != nil && !$0.name.contains("+") } + filtersOfMostTasks + [actionable] + countedLists).map { filter in
            let request = server.request("tasks/fetch", #"{"limit":50,"includeTotal":true,"filter":\#(filter.json!)}"#)
            return (filter.name, timings(server, request, samples: samples).median)
        }
    }

    /// A page of 50 at `offset` (half the tasks, say) under each sort of one key, no filter,
    /// median milliseconds.
    static func measureOffsets(_ server: Driver, offset: Int, samples: Int) -> [(sort: String, median: Double)] {
        sorts.filter { !$0.name.contains(",") }.map { sort in
            let request = server.request("tasks/fetch", #"{"sort":\#(sort.json),"limit":50,"offset":\#(offset)}"#)
            return (sort.name, timings(server, request, samples: samples).median)
        }
    }

    /// The cursor after the first half of the matching tasks, or nil when they fit on one page.
    static func middleCursor(_ server: Driver, sort: Sort, filterMember: String) -> String? {
        let counted = server.call("tasks/fetch", #"{"sort":\#(sort.json),"limit":1,"includeTotal":true\#(filterMember)}"#)
        guard case .integer(let total)? = counted["total"], total > 100 else { return nil }
        let atHalf = server.call("tasks/fetch", #"{"sort":\#(sort.json),"limit":1,"offset":\#(total / 2)\#(filterMember)}"#)
        return atHalf["nextCursor"]?.stringValue
    }

    private static func timings(_ server: Driver, _ request: [UInt8], samples: Int) -> (median: Double, p99: Double) {
        var milliseconds: [Double] = []
        var spent = 0.0
        while milliseconds.count < samples && (milliseconds.count < 3 || spent < 500) {
            let elapsed = seconds { server.roundTrip(request) } * 1000
            milliseconds.append(elapsed)
            spent += elapsed
        }
        return (median(milliseconds), percentile(0.99, of: milliseconds))
    }

    /// The cells as a Markdown table: one row per filter, one column per sort, each cell
    /// "first page median / p99 · middle page median / p99" in milliseconds, a miss in bold.
    static func table(_ cells: [Cell]) -> String {
        var lines = [
            "| filter \\ sort | " + sorts.map(\.name).joined(separator: " | ") + " |",
            "| --- |" + String(repeating: " ---: |", count: sorts.count),
        ]
        for filter in filters {
            let row = sorts.map { sort -> String in
                guard let cell = cells.first(where: { $0.filter == filter.name && $0.sort == sort.name }) else { return "" }
                let text = [cell.first].appending(cell.middle).map { "\(format($0.median))/\(format($0.p99))" }.joined(separator: " · ")
                return cell.met ? text : "**\(text)**"
            }
            lines.append("| \(filter.name) | " + row.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ cells: [Cell]) -> [[String: Any]] {
        cells.map { cell in
            var object: [String: Any] = [
                "filter": cell.filter, "sort": cell.sort, "met": cell.met,
                "firstPageMedianMs": cell.first.median, "firstPageP99Ms": cell.first.p99,
            ]
            if let middle = cell.middle {
                object["middlePageMedianMs"] = middle.median
                object["middlePageP99Ms"] = middle.p99
            }
            return object
        }
    }
}

extension Array {
    fileprivate func appending(_ element: Element?) -> [Element] {
        element.map { self + [$0] } ?? self
    }
}
