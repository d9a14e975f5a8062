import Foundation
import JSON

/// Pages of 50 through one server, lock-step: a first page and a page from the middle of the
/// matching tasks (reached by a cursor) for each sort key in both directions and for the sorts
/// by two keys, alone and under each common filter, against the budget taskline-bench sets
/// its query matrix (median ≤ 20 ms, 99th percentile ≤ 50 ms); then `includeTotal` with each
/// filter, and with not blocked and not waiting.
enum PageMatrix {
    static let medianTarget = 20.0
    static let p99Target = 50.0

    /// The shares PageLoad gives its tasks make each filter match part of them: a third
    /// done, a tenth per tag, a month of due dates (one in 24), two projects in five under
    /// `Home`, one in a hundred waiting, about one in 75 blocked; and `taskline next`'s
    /// list: open, neither blocked nor waiting. Each title is "Task N wordM", M being N
    /// modulo 1,000: the text `word777` is in one title in a thousand, `ask 99` in one in
    /// ninety ("Task 99…", "Task 990…", …), as in taskline-bench's query matrix.
    static let filters: [(name: String, json: String?)] = [
        ("none", nil),
        ("done", #"{"done":true}"#),
        ("tag", #"{"tags":["t3"]}"#),
        ("text", #"{"text":"word777"}"#),
        ("common text", #"{"text":"ask 99"}"#),
        ("project", #"{"project":"Home"}"#),
        ("due window", #"{"dueAfter":"2027-03-01","dueBefore":"2027-04-01"}"#),
        ("waiting", #"{"waiting":true}"#),
        ("blocked", #"{"blocked":true}"#),
        ("next", #"{"done":false,"blocked":false,"waiting":false}"#),
    ]

    /// Filters no row has, whose count is measured: the opposites of blocked and waiting,
    /// which most tasks meet (counted as all less the few).
    static let filtersOfMostTasks: [(name: String, json: String?)] = [("not blocked", #"{"blocked":false}"#), ("not waiting", #"{"waiting":false}"#)]

    /// Each key each way, then taskline-bench's sorts by two keys, both keys each way, then
    /// the order `taskline next` reads in: priority descending, then due date.
    static let sorts: [(name: String, json: String)] =
        ["createdAt", "updatedAt", "due", "priority", "title", "project"].flatMap { field in
            ["asc", "desc"].map { order in ("\(field) \(order)", #"[{"field":"\#(field)","order":"\#(order)"}]"#) }
        }
        + [("due", "priority"), ("priority", "due"), ("project", "due")].flatMap { first, second in
            ["asc", "desc"].map { order in
                ("\(first), \(second) \(order)", #"[{"field":"\#(first)","order":"\#(order)"},{"field":"\#(second)","order":"\#(order)"}]"#)
            }
        } + [("priority desc, due asc", #"[{"field":"priority","order":"desc"},{"field":"due","order":"asc"}]"#)]

    struct Timing {
        var median: Double
        var p99: Double

        var met: Bool { median <= PageMatrix.medianTarget && p99 <= PageMatrix.p99Target }
    }

    struct Cell {
        var filter: String
        var sort: String
        var first: Timing
        var middle: Timing?

        var met: Bool { first.met && middle?.met != false }
    }

    /// The driver sleeps while it waits (`Server.spins` off): a page takes milliseconds, and
    /// a driver spinning on one of two shared cores would take it from the server.
    static func measure(_ server: Server, samples: Int) -> (cells: [Cell], totals: [(filter: String, timing: Timing)]) {
        var cells: [Cell] = []
        for filter in filters {
            let filterMember = filter.json.map { #","filter":\#($0)"# } ?? ""
            for sort in sorts {
                let first = timing(server, #"{"sort":\#(sort.json),"limit":50\#(filterMember)}"#, samples: samples)
                let middle = middleCursor(server, sort: sort.json, filterMember: filterMember).map {
                    timing(server, #"{"sort":\#(sort.json),"limit":50,"cursor":"\#($0)"\#(filterMember)}"#, samples: samples)
                }
                cells.append(Cell(filter: filter.name, sort: sort.name, first: first, middle: middle))
                FileHandle.standardError.write(
                    Data(
                        "  page \(filter.name) × \(sort.name): \(format(first.median)) ms, middle \(middle.map { format($0.median) } ?? "-") ms\n"
                            .utf8))
            }
        }
        let totals = (filters + filtersOfMostTasks).compactMap { filter in
            filter.json.map { (filter.name, timing(server, #"{"limit":50,"includeTotal":true,"filter":\#($0)}"#, samples: samples)) }
        }
        return (cells, totals)
    }

    /// The cursor after the first half of the matching tasks, or nil when they fit on one page.
    private static func middleCursor(_ server: Server, sort: String, filterMember: String) -> String? {
        let counted = server.call("tasks/fetch", #"{"sort":\#(sort),"limit":1,"includeTotal":true\#(filterMember)}"#)
        guard case .integer(let total)? = counted["total"], total > 100 else { return nil }
        return server.call("tasks/fetch", #"{"sort":\#(sort),"limit":1,"offset":\#(total / 2)\#(filterMember)}"#)["nextCursor"]?.stringValue
    }

    /// `samples` round trips of the same request (fewer when they take over half a second).
    private static func timing(_ server: Server, _ params: String, samples: Int) -> Timing {
        let request = server.request("tasks/fetch", params)
        var milliseconds: [Double] = []
        var spent = 0.0
        while milliseconds.count < samples && (milliseconds.count < 3 || spent < 500) {
            let elapsed =
                seconds {
                    server.send(request)
                    _ = server.response()
                } * 1000
            milliseconds.append(elapsed)
            spent += elapsed
        }
        return Timing(median: percentile(0.5, of: milliseconds), p99: percentile(0.99, of: milliseconds))
    }

    static func format(_ milliseconds: Double) -> String {
        String(format: milliseconds < 10 ? "%.2f" : "%.1f", milliseconds)
    }

    /// One row per filter, one column per sort, each cell "first page median/p99 · middle
    /// page median/p99" in milliseconds, a miss in bold.
    static func table(_ cells: [Cell]) -> String {
        var lines = [
            "| filter \\ sort | " + sorts.map(\.name).joined(separator: " | ") + " |",
            "| --- |" + String(repeating: " ---: |", count: sorts.count),
        ]
        for filter in filters {
            let row = sorts.map { sort -> String in
                guard let cell = cells.first(where: { $0.filter == filter.name && $0.sort == sort.name }) else { return "" }
                let text = ([cell.first] + (cell.middle.map { [$0] } ?? [])).map { "\(format($0.median))/\(format($0.p99))" }
                    .joined(separator: " · ")
                return cell.met ? text : "**\(text)**"
            }
            lines.append("| \(filter.name) | " + row.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ cells: [Cell]) -> JSON {
        .array(
            cells.map { cell in
                var object = JSONObject()
                object["filter"] = .string(cell.filter)
                object["sort"] = .string(cell.sort)
                object["met"] = .bool(cell.met)
                object["firstPageMedianMs"] = number(cell.first.median)
                object["firstPageP99Ms"] = number(cell.first.p99)
                if let middle = cell.middle {
                    object["middlePageMedianMs"] = number(middle.median)
                    object["middlePageP99Ms"] = number(middle.p99)
                }
                return .object(object)
            })
    }

    static func number(_ value: Double) -> JSON { .number(String(format: "%.3f", value)) }
}
