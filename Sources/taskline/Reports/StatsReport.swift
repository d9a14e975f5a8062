import JSON
import JSONRPC
import PeopleLanguage
import TaskModel

#if canImport(Glibc)
import Glibc
#endif

/// `taskline stats`
enum StatsCommand: Command {
    static let name = "stats"
    static let summary = "counts and times: open, done, overdue, added and completed lately, …"
    static let usage = """
        Usage: taskline stats [--db PATH] [--json]

        Prints what the database holds:
          Open                  open tasks, those waiting and blocked included; under it:
            waiting             their wait: date has not come
            blocked             they wait for a task that is not done
            recurring           they repeat (they have a recurrence rule)
            with a due date     they have one
            overdue             their due date has passed (as overdue lists them)
          Done                  done tasks
          Total                 every task; deleted tasks are gone, and not counted
          Oldest, Newest        the task created first and last: the day, short id, title
          Average to complete   from created to completed, over the done tasks
          Added                 tasks created in the last 7 and 30 days (7 and 30 times 24
                                hours) that still exist
          Completed             done tasks completed in the last 7 and 30 days
          Database              where it is (a PostgreSQL address without its password)
                                and, for a SQLite file, its size on disk
        Every task is read once, a page at a time, from one snapshot; waiting and blocked
        are the store's counts.

        Options:
          --db PATH    the database (default: the server's)
          --json       one JSON object instead: open, waiting, blocked, recurring, withDue,
                       overdue, done, total; oldest and newest ({id, title, createdAt} or
                       null); averageSecondsToComplete (null without done tasks); added and
                       completed ({last7Days, last30Days}); database ({location, bytes})

        A database that does not exist yet is said on stderr (--json: the zeros), and not made.
        """

    /// What one pass over the tasks finds.
    struct Stats {
        struct Found {
            var id: String
            var title: String
            var createdAt: Int64
        }

        var open = 0
        var waiting = 0
        var blocked = 0
        var recurring = 0
        var withDue = 0
        var overdue = 0
        var done = 0
        var oldest: Found?
        var newest: Found?
        var oldestShortID = ""
        var newestShortID = ""
        /// Over the done tasks, in milliseconds.
        var timeToComplete: Int64 = 0
        var added = (week: 0, month: 0)
        var completed = (week: 0, month: 0)
        var location = ""
        var bytes: Int64?

        var averageMilliseconds: Int64? {
            done == 0 ? nil : timeToComplete / Int64(done)
        }
    }

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> ReportOptions {
        try ReportOptions.parse(&reader)
    }

    static func run(_ options: ReportOptions) async throws -> Int32 {
        let dates = DateContext.current()
        var stats = try await StoreAccess.reading(options.database) { try await read($0, dates: dates) }
        if stats == nil, !options.json { note(StoreAccess.noTasksYet(options.database)) }
        // Measured once the store is closed, and its write-ahead log folded into the file.
        stats?.location = StoreLocation(options.database).description
        if case .sqlite(let path) = StoreLocation(options.database) { stats?.bytes = size(of: path) }
        let output = OutputWriter()
        if options.json {
            var empty = Stats()
            empty.location = StoreLocation(options.database).description
            try output.line(JSONWriter.string(json(stats ?? empty)))
        } else if let stats {
            for line in lines(stats, dates: dates) { try output.line(line) }
        }
        try output.flush()
        return 0
    }

    private static func read(_ store: isolated any CommandLineStoring, dates: DateContext) throws -> Stats {
        var stats = Stats()
        let week = dates.now - 7 * 86_400_000
        let month = dates.now - 30 * 86_400_000
        // The tasks come oldest first: the first is the oldest, the last the newest.
        try store.exportTasks { tasks in
            for position in tasks.indices {
                let createdAt = tasks.number(position, .createdAt) ?? 0
                if stats.oldest == nil { stats.oldest = found(tasks, position) }
                if position == tasks.endIndex - 1 { stats.newest = found(tasks, position) }
                if createdAt >= week { stats.added.week += 1 }
                if createdAt >= month { stats.added.month += 1 }
                if tasks.number(position, .done) != 0 {
                    stats.done += 1
                    let completedAt = tasks.number(position, .completedAt) ?? tasks.number(position, .updatedAt) ?? createdAt
                    stats.timeToComplete += max(0, completedAt - createdAt)
                    if completedAt >= week { stats.completed.week += 1 }
                    if completedAt >= month { stats.completed.month += 1 }
                } else {
                    stats.open += 1
                    if tasks.withText(position, .recurrence, { _ in }) != nil { stats.recurring += 1 }
                    if let due = tasks.withText(position, .due, { String(decoding: $0, as: UTF8.self) }) {
                        stats.withDue += 1
                        if PeopleDates.show(due, now: dates.now, calendar: dates.calendar)?.urgency == .overdue { stats.overdue += 1 }
                    }
                }
            }
        }
        stats.waiting = try store.countTasks(TaskFilter(done: false, waiting: true))
        stats.blocked = try store.countTasks(TaskFilter(done: false, blocked: true))
        if let oldest = stats.oldest, let newest = stats.newest {
            let ids = try store.shortIDs(for: [oldest.id, newest.id])
            stats.oldestShortID = ids.shortID(for: oldest.id)
            stats.newestShortID = ids.shortID(for: newest.id)
        }
        return stats
    }

    private static func found(_ tasks: TaskBuffer, _ position: Int) -> Stats.Found {
        let text = { (field: TaskBuffer.Text) in tasks.withText(position, field) { String(decoding: $0, as: UTF8.self) } ?? "" }
        return Stats.Found(id: text(.id), title: text(.title), createdAt: tasks.number(position, .createdAt) ?? 0)
    }

    /// The bytes of the SQLite file at `path` and of its write-ahead log, if any.
    private static func size(of path: String) -> Int64? {
        var total: Int64?
        for file in [path, path + "-wal"] {
            var info = stat()
            if stat(file, &info) == 0 { total = (total ?? 0) + Int64(info.st_size) }
        }
        return total
    }

    static func lines(_ stats: Stats, dates: DateContext) -> [String] {
        let counts = [stats.open, stats.waiting, stats.blocked, stats.recurring, stats.withDue, stats.overdue, stats.done]
        let width = String(stats.open + stats.done).count
        func count(_ value: Int) -> String { ReportText.right(String(value), width) }
        func task(_ found: Stats.Found?, _ shortID: String) -> String {
            guard let found else { return "-" }
            return "\(PeopleDates.dateText(dates.calendar.day(ofMilliseconds: found.createdAt)))  \(shortID)  \(found.title)"
        }
        func lately(_ pair: (week: Int, month: Int)) -> String {
            "\(pair.week) in the last 7 days, \(pair.month) in the last 30 days"
        }
        let rows: [(String, String)] = [
            ("Open", count(counts[0])),
            ("  waiting", count(counts[1])),
            ("  blocked", count(counts[2])),
            ("  recurring", count(counts[3])),
            ("  with a due date", count(counts[4])),
            ("  overdue", count(counts[5])),
            ("Done", count(counts[6])),
            ("Total", count(stats.open + stats.done)),
            ("Oldest", task(stats.oldest, stats.oldestShortID)),
            ("Newest", task(stats.newest, stats.newestShortID)),
            ("Average to complete", stats.averageMilliseconds.map(duration) ?? "-"),
            ("Added", lately(stats.added)),
            ("Completed", lately(stats.completed)),
            ("Database", stats.location + (stats.bytes.map { " (\(byteSize($0)))" } ?? "")),
        ]
        let labelWidth = rows.map(\.0.count).max()! + 2
        return rows.map { padded($0.0, to: labelWidth) + $0.1 }
    }

    static func json(_ stats: Stats) -> JSON {
        func found(_ found: Stats.Found?) -> JSON {
            guard let found else { return .null }
            return ["id": .string(found.id), "title": .string(found.title), "createdAt": .string(ReportText.wireTime(found.createdAt))]
        }
        func lately(_ pair: (week: Int, month: Int)) -> JSON {
            ["last7Days": .integer(Int64(pair.week)), "last30Days": .integer(Int64(pair.month))]
        }
        func integer(_ value: Int) -> JSON { .integer(Int64(value)) }
        return [
            "open": integer(stats.open), "waiting": integer(stats.waiting), "blocked": integer(stats.blocked),
            "recurring": integer(stats.recurring), "withDue": integer(stats.withDue), "overdue": integer(stats.overdue),
            "done": integer(stats.done), "total": integer(stats.open + stats.done),
            "oldest": found(stats.oldest), "newest": found(stats.newest),
            "averageSecondsToComplete": stats.averageMilliseconds.map { JSON.integer($0 / 1000) } ?? .null,
            "added": lately(stats.added), "completed": lately(stats.completed),
            "database": ["location": .string(stats.location), "bytes": stats.bytes.map(JSON.integer) ?? .null],
        ]
    }

    /// `3 days 4 hours`, `5 hours 20 minutes`, `12 minutes`: the two largest units.
    static func duration(_ milliseconds: Int64) -> String {
        func unit(_ value: Int64, _ name: String) -> String { "\(value) \(name)\(value == 1 ? "" : "s")" }
        let minutes = milliseconds / 60_000
        let (days, hours) = (minutes / 1440, minutes / 60 % 24)
        if days > 0 { return unit(days, "day") + (hours > 0 ? " " + unit(hours, "hour") : "") }
        if hours > 0 { return unit(hours, "hour") + (minutes % 60 > 0 ? " " + unit(minutes % 60, "minute") : "") }
        return minutes > 0 ? unit(minutes, "minute") : "under a minute"
    }

    /// `812 B`, `24.0 KiB`, `1.5 MiB`, `2.3 GiB`.
    static func byteSize(_ bytes: Int64) -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        var tenths = bytes * 10 / 1024
        var unit = "KiB"
        for next in ["MiB", "GiB", "TiB"] where tenths >= 10240 {
            tenths /= 1024
            unit = next
        }
        return "\(tenths / 10).\(tenths % 10) \(unit)"
    }
}
