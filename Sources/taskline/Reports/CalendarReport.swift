import PeopleLanguage
import TaskModel

/// `taskline calendar [YYYY-MM] [N]`
enum CalendarCommand: Command {
    struct Options: Sendable {
        var database = Subcommands.defaultDatabasePath
        /// The first month shown; nil: this month.
        var start: (year: Int64, month: Int64)?
        var months = 1
    }

    static let name = "calendar"
    static let summary = "a month's grid with the days tasks are due (calendar 2027-02, calendar 3)"
    static let usage = """
        Usage: taskline calendar [YYYY-MM] [N] [--db PATH]

        Prints N months (default 1, at most 12) as grids, from this month or from YYYY-MM,
        three side by side where the width allows: taskline calendar 2027-02, taskline
        calendar 3 (this month and the next two). Weeks start on Monday, as in ISO 8601;
        days are local time (TZ).

        After a day's date, * marks that open tasks are due that day (waiting and blocked
        ones included), ! that one of them is overdue. A legend follows: how many open tasks
        are due in the months shown, how many of those are overdue, and today's date. On a
        terminal, those days are bold, and bold red, and today is in reverse video; NO_COLOR
        turns colour off, CLICOLOR_FORCE on. Only the open tasks due in the months shown are
        read, a page at a time.

        Options:
          --db PATH    the database (default: the server's)

        A database that does not exist yet is said on stderr, and not made.
        """

    /// The open tasks due on one day.
    struct Mark {
        var due = 0
        var overdue = 0
    }

    /// A month's grid is 7 cells of 3 characters (the date and its mark) and a space between.
    static let monthWidth = 7 * 3 + 6
    static let gap = "   "

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Options {
        var options = Options()
        var counted = false
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .operand(let word) where word.contains("-") && options.start == nil:
                let parts = word.split(separator: "-", omittingEmptySubsequences: false)
                guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, let year = Int64(parts[0]), let month = Int64(parts[1]),
                    (1...9998).contains(year), (1...12).contains(month)
                else { throw UsageError("calendar takes a month as YYYY-MM (2027-02), not \(word)") }
                options.start = (year, month)
            case .operand(let word) where !counted:
                guard let count = Int(word), (1...12).contains(count) else {
                    throw UsageError("calendar takes a month as YYYY-MM, or a number of months from 1 to 12, not \(word)")
                }
                options.months = count
                counted = true
            default: throw item.unexpected
            }
        }
        return options
    }

    static func run(_ options: Options) async throws -> Int32 {
        let dates = DateContext.current()
        let today = dates.calendar.day(ofMilliseconds: dates.now)
        let now = Timestamp.civil(fromDays: today)
        let start = options.start ?? (now.year, now.month)
        let months = (0..<Int64(options.months)).map { offset in
            let index = start.year * 12 + start.month - 1 + offset
            return (year: index / 12, month: index % 12 + 1)
        }
        let first = Timestamp.days(fromCivil: start.year, start.month, 1)
        let last = Timestamp.days(
            fromCivil: months.last!.year, months.last!.month, Timestamp.daysIn(month: months.last!.month, year: months.last!.year))
        let read = try await StoreAccess.reading(options.database) { try await marks(in: $0, days: first...last, dates: dates) }
        guard let marks = read else {
            note(StoreAccess.noTasksYet(options.database))
            return 0
        }
        let terminal = Terminal.stdout()
        let output = OutputWriter()
        let perRow = terminal.width.map { max(1, min(3, ($0 + gap.count) / (monthWidth + gap.count))) } ?? 3
        for (row, start) in stride(from: 0, to: months.count, by: perRow).enumerated() {
            if row > 0 { try output.line("") }
            let grids = months[start..<min(start + perRow, months.count)].map {
                grid(year: $0.year, month: $0.month, marks: marks, today: today, terminal: terminal)
            }
            for index in 0..<grids.map(\.count).max()! {
                let line = grids.map { index < $0.count ? $0[index] : String(repeating: " ", count: monthWidth) }.joined(separator: gap)
                try output.line(String(line.reversed().drop { $0 == " " }.reversed()))
            }
        }
        try output.line("")
        try output.line(legend(marks, today: today, terminal: terminal))
        try output.flush()
        return 0
    }

    /// The open tasks due on each day of `days` that has any.
    private static func marks(in store: isolated any CommandLineStoring, days: ClosedRange<Int64>, dates: DateContext) throws -> [Int64: Mark] {
        let today = dates.calendar.day(ofMilliseconds: dates.now)
        // A due time is in UTC to the store: a day either side takes in every zone's.
        let filter = TaskFilter(
            done: false, dueBefore: PeopleDates.dateText(days.upperBound + 2), dueAfter: PeopleDates.dateText(days.lowerBound - 1))
        var marks: [Int64: Mark] = [:]
        try store.forEachPage(filter) { tasks in
            for position in tasks.indices {
                guard let due = tasks.withText(position, .due, { String(decoding: $0, as: UTF8.self) }),
                    let shown = PeopleDates.show(due, now: dates.now, calendar: dates.calendar), days.contains(today + shown.days)
                else { continue }
                marks[today + shown.days, default: Mark()].due += 1
                if shown.urgency == .overdue { marks[today + shown.days]!.overdue += 1 }
            }
        }
        return marks
    }

    /// The month's lines, each `monthWidth` characters as shown: its name and year, the
    /// days of the week, a line a week.
    static func grid(year: Int64, month: Int64, marks: [Int64: Mark], today: Int64, terminal: Terminal) -> [String] {
        let title = "\(ReportText.monthName(month)) \(year)"
        let left = (monthWidth - title.count) / 2
        var lines = [
            String(repeating: " ", count: left) + padded(title, to: monthWidth - left),
            ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"].map { $0 + " " }.joined(separator: " "),
        ]
        let first = Timestamp.days(fromCivil: year, month, 1)
        let count = Timestamp.daysIn(month: month, year: year)
        let lead = PeopleDates.weekday(of: first)
        var cells: [String] = Array(repeating: "   ", count: Int(lead))
        for date in 1...count {
            let day = first + date - 1
            let mark = marks[day] ?? Mark()
            let style: Terminal.Style? = mark.overdue > 0 ? .boldRed : mark.due > 0 ? .bold : nil
            var number = terminal.paint(ReportText.right(String(date), 2), style)
            if day == today { number = terminal.paint(number, .reverse) }
            cells.append(number + (mark.overdue > 0 ? terminal.paint("!", style) : mark.due > 0 ? terminal.paint("*", style) : " "))
        }
        cells += Array(repeating: "   ", count: (7 - cells.count % 7) % 7)
        for week in stride(from: 0, to: cells.count, by: 7) {
            lines.append(cells[week..<week + 7].joined(separator: " "))
        }
        return lines
    }

    static func legend(_ marks: [Int64: Mark], today: Int64, terminal: Terminal) -> String {
        let due = marks.values.map(\.due).reduce(0, +)
        let overdue = marks.values.map(\.overdue).reduce(0, +)
        let todayText = terminal.colour ? terminal.paint("today", .reverse) : "today \(PeopleDates.dateText(today))"
        return "\(terminal.paint("*", .bold)) open tasks due (\(due))   \(terminal.paint("!", .boldRed)) overdue (\(overdue))   \(todayText)"
    }
}
