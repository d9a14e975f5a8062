import JSON
import PeopleLanguage
import TaskModel

/// What `summary` and `stats` take: the database, and whether to print JSON.
struct ReportOptions: Sendable {
    var database = Subcommands.defaultDatabasePath
    var json = false

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> ReportOptions {
        var options = ReportOptions()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .option("--json"): options.json = true
            default: throw item.unexpected
            }
        }
        return options
    }
}

extension CommandLineStoring {
    /// How many tasks `filter` takes, as the store counts them: no task is read.
    func countTasks(_ filter: TaskFilter) throws -> Int {
        try fetch(TaskQuery(filter: filter, limit: 1, includeTotal: true)).total ?? 0
    }

    /// Calls `body` with each page of the tasks `filter` takes, oldest first: a report
    /// holds a page at a time, never every task.
    func forEachPage(_ filter: TaskFilter, _ body: (TaskBuffer) throws -> Void) throws {
        var query = TaskQuery(filter: filter, limit: TaskQuery.maxLimit)
        repeat {
            let page = try fetch(query)
            try body(page.tasks)
            query.cursor = page.nextCursor
        } while query.cursor != nil
    }
}

/// Texts the reports share.
enum ReportText {
    /// `text` right-aligned in `width` characters.
    static func right(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// The share `part` is of `whole`, in whole percent rounded down (100% only when
    /// nothing is left); nil when `whole` is 0.
    static func percent(_ part: Int, of whole: Int) -> Int? {
        whole == 0 ? nil : part * 100 / whole
    }

    /// `2027-02-01T09:30:00.000Z`: the wire format of a time in milliseconds.
    static func wireTime(_ milliseconds: Int64) -> String {
        var bytes: [UInt8] = []
        Timestamp.append(milliseconds: milliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The English name of month 1…12.
    static func monthName(_ month: Int64) -> String {
        [
            "January", "February", "March", "April", "May", "June", "July", "August", "September",
            "October", "November", "December",
        ][Int(month) - 1]
    }
}
