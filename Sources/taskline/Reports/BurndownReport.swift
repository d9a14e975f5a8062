import JSON
import JSONRPC
import PeopleLanguage
import TaskModel

#if canImport(Glibc)
import Glibc
#endif

/// `taskline burndown`
enum BurndownCommand: Command {
    struct Options: Sendable {
        var database = Subcommands.defaultDatabasePath
        var weekly = false
        /// Nil: 30 days, or 84 with --weekly.
        var days: Int?
        var svg: String?
        var json = false
    }

    static let name = "burndown"
    static let summary = "open and done tasks day by day (or week by week), as a chart; --svg FILE"
    static let usage = """
        Usage: taskline burndown [--weekly] [--days N] [--svg FILE] [--json] [--db PATH]

        Draws, for each of the last N days (today included), the tasks open at its end and
        the tasks done by then, as stacked bars: done below, open above, so that a bar is
        as high as the tasks there were. A task counts from the time it was created
        (createdAt), and as done from the time it was completed (completedAt). Deleted
        tasks are gone: they count on no day, not even on those before they were deleted.
        Days are local (TZ). Every task is read once, a page at a time; only the counts of
        each day are kept.

        The left axis gives the counts, the bottom one the dates (MM-DD; the title gives the
        years), the legend today's counts. Open is drawn with █ and done with ░; on a
        terminal, open is blue, done green, and both have eighth blocks for the part of a
        row (NO_COLOR turns colour off, CLICOLOR_FORCE on). The chart fits the terminal's
        width (COLUMNS overrides it): the bars narrow, and if they still do not fit, only
        the latest days that do are drawn, as the title then says. A pipe gets the same
        chart in plain text. No task in those days at all is said on stderr.

        Options:
          --weekly      a bar a week, Monday to Sunday (this week: to today), from the week
                        of the first of the N days
          --days N      the last N days, 1 to 3660 (default 30, or 84 with --weekly)
          --svg FILE    write the chart to FILE (- for stdout) instead, as a standalone SVG
                        image: axes, labels, a legend and a title, no external resources
          --json        one JSON object instead: {"period": "day" or "week", "periods":
                        [{"start", "end", "open", "done"}, …]}, the dates as YYYY-MM-DD
          --db PATH     the database (default: the server's)

        A database that does not exist yet is said on stderr (--json and --svg give zeros),
        and not made.
        """

    /// The counts at the end of each period, oldest first.
    struct Series {
        var weekly: Bool
        /// Each period's first day (local days since 1970-01-01).
        var starts: [Int64]
        var today: Int64
        var open: [Int]
        var done: [Int]

        var unit: String { weekly ? "week" : "day" }

        /// The period's last day: a week's Sunday, or today for this week.
        func end(_ period: Int) -> Int64 {
            weekly ? min(starts[period] + 6, today) : starts[period]
        }

        var highest: Int {
            zip(open, done).map { $0 + $1 }.max() ?? 0
        }

        /// `Open and done tasks at the end of each day, 2027-01-03 to 2027-02-01`.
        func title(from first: Int = 0) -> String {
            "Open and done tasks at the end of each \(unit), \(PeopleDates.dateText(starts[first])) to \(PeopleDates.dateText(today))"
        }

        /// `01-03`: a period's first day without its year.
        func label(_ period: Int) -> String {
            String(PeopleDates.dateText(starts[period]).dropFirst(5))
        }
    }

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Options {
        var options = Options()
        while let item = try reader.next() {
            switch item {
            case .option("--db"): options.database = try reader.value()
            case .option("--weekly"): options.weekly = true
            case .option("--days"): options.days = try reader.integer(in: 1...3660)
            case .option("--svg"): options.svg = try reader.value()
            case .option("--json"): options.json = true
            default: throw item.unexpected
            }
        }
        guard options.svg == nil || !options.json else { throw UsageError("--svg and --json are one or the other") }
        return options
    }

    static func run(_ options: Options) async throws -> Int32 {
        let dates = DateContext.current()
        let today = dates.calendar.day(ofMilliseconds: dates.now)
        let first = today - Int64((options.days ?? (options.weekly ? 84 : 30)) - 1)
        // A week starts on Monday.
        let starts = options.weekly ? Array(stride(from: first - PeopleDates.weekday(of: first), through: today, by: 7)) : Array(first...today)
        let counted = try await StoreAccess.reading(options.database) {
            try await count(in: $0, starts: starts, weekly: options.weekly, dates: dates)
        }
        let zeros = Array(repeating: 0, count: starts.count)
        let series = Series(weekly: options.weekly, starts: starts, today: today, open: counted?.open ?? zeros, done: counted?.done ?? zeros)
        if counted == nil { note(StoreAccess.noTasksYet(options.database)) }
        if options.json {
            let output = OutputWriter()
            try output.line(JSONWriter.string(json(series)))
            try output.flush()
        } else if let file = options.svg {
            try write(svg(series), to: file)
        } else if counted != nil {
            if series.highest == 0 {
                note("no tasks in these \(series.unit)s")
            } else {
                let output = OutputWriter()
                for line in chart(series, terminal: Terminal.stdout()) { try output.line(line) }
                try output.flush()
            }
        }
        return 0
    }

    /// The open and done tasks at the end of each period that starts on a day of `starts`.
    private static func count(in store: isolated any CommandLineStoring, starts: [Int64], weekly: Bool, dates: DateContext) throws
        -> (open: [Int], done: [Int])
    {
        // Per period, the tasks created and completed in it; before the first, in one count.
        var created = Array(repeating: 0, count: starts.count)
        var completed = created
        var createdBefore = 0
        var completedBefore = 0
        /// The period of a time: -1 before the first, `starts.count` or more after the last.
        func period(_ milliseconds: Int64) -> Int {
            Int(max(-1, floorDiv(dates.calendar.day(ofMilliseconds: milliseconds) - starts[0], weekly ? 7 : 1)))
        }
        try store.exportTasks { tasks in
            for position in tasks.indices {
                let createdAt = tasks.number(position, .createdAt) ?? 0
                let createdIn = period(createdAt)
                guard createdIn < starts.count else { continue }
                if createdIn < 0 { createdBefore += 1 } else { created[createdIn] += 1 }
                guard tasks.number(position, .done) != 0 else { continue }
                // Not done before it was made, whatever an import said.
                let completedAt = max(createdAt, tasks.number(position, .completedAt) ?? tasks.number(position, .updatedAt) ?? createdAt)
                let completedIn = period(completedAt)
                if completedIn < 0 { completedBefore += 1 } else if completedIn < starts.count { completed[completedIn] += 1 }
            }
        }
        var existing = createdBefore
        var done = completedBefore
        var series: (open: [Int], done: [Int]) = ([], [])
        for index in starts.indices {
            existing += created[index]
            done += completed[index]
            series.open.append(existing - done)
            series.done.append(done)
        }
        return series
    }

    static func json(_ series: Series) -> JSON {
        let periods = series.starts.indices.map { index -> JSON in
            [
                "start": .string(PeopleDates.dateText(series.starts[index])), "end": .string(PeopleDates.dateText(series.end(index))),
                "open": .integer(Int64(series.open[index])), "done": .integer(Int64(series.done[index])),
            ]
        }
        return ["period": .string(series.unit), "periods": .array(periods)]
    }

    // MARK: - The terminal's chart

    /// Rows of the chart, at most: fewer when the step of the count axis leaves some empty.
    static let height = 10
    static let eighths = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// The smallest of 1, 2, 5, 10, 20, 50, … that makes `steps` steps reach `highest`.
    static func step(reaching highest: Int, in steps: Int) -> Int {
        var magnitude = 1
        while true {
            for factor in [1, 2, 5] where factor * magnitude * steps >= highest { return factor * magnitude }
            magnitude *= 10
        }
    }

    static func chart(_ series: Series, terminal: Terminal) -> [String] {
        let step = step(reaching: series.highest, in: height)
        let rows = (series.highest + step - 1) / step
        let top = step * rows
        let labelWidth = String(top).count
        let available = (terminal.width ?? Int.max) - labelWidth - 2
        // Bars of 2 with a space between, else of 1, else of 1 side by side, else the latest that fit.
        let count = series.starts.count
        let (bar, gap) = [(2, 1), (1, 1), (1, 0)].first { count * ($0.0 + $0.1) - $0.1 <= available } ?? (1, 0)
        let first = max(0, count - max(1, available))
        let periods = Array(first..<count)
        let plotWidth = periods.count * (bar + gap) - gap
        var title = series.title(from: first)
        if first > 0 { title += " (the last \(periods.count) of \(count) \(series.unit)s fit)" }
        var lines = wrapped(title, width: terminal.width ?? Int.max).split(separator: "\n").map(String.init)

        // Per period, its height and its done part's, in eighths of a row; anything above 0
        // is at least an eighth.
        func eighthsHigh(_ value: Int) -> Int {
            value == 0 ? 0 : max(1, Int((Double(value) * 8 * Double(rows) / Double(top)).rounded()))
        }
        let done = periods.map { eighthsHigh(series.done[$0]) }
        let total = periods.indices.map { max(done[$0], eighthsHigh(series.open[periods[$0]] + series.done[periods[$0]])) }
        for row in (0..<rows).reversed() {
            // The top row and every other one below it.
            let labelled = (rows - 1 - row) % 2 == 0
            var line = (labelled ? ReportText.right(String(step * (row + 1)), labelWidth) + " ┤" : String(repeating: " ", count: labelWidth) + " │")
            for index in periods.indices {
                let filled = min(8, max(0, total[index] - 8 * row))
                let doneFilled = min(8, max(0, done[index] - 8 * row))
                // A row shared by both parts is drawn as the larger.
                let isDone = doneFilled * 2 >= filled
                let glyph = filled == 0 ? " " : terminal.colour || !isDone ? eighths[filled] : filled >= 4 ? "░" : " "
                line += terminal.paint(String(repeating: glyph, count: bar), filled == 0 ? nil : isDone ? .green : .blue)
                if index < periods.count - 1 { line += String(repeating: " ", count: gap) }
            }
            lines.append(String(line.reversed().drop { $0 == " " }.reversed()))
        }
        lines.append(ReportText.right("0", labelWidth) + " └" + String(repeating: "─", count: plotWidth))
        // A date under every few bars, 3 spaces apart at least, where it fits.
        var labels = String(repeating: " ", count: labelWidth + 2)
        let every = (8 + bar + gap - 1) / (bar + gap)
        for (index, period) in periods.enumerated() where index % every == 0 {
            let column = labelWidth + 2 + index * (bar + gap)
            guard column + 5 <= (terminal.width ?? Int.max) else { break }
            labels += String(repeating: " ", count: column - labels.count) + series.label(period)
        }
        lines.append(labels)
        let last = count - 1
        lines.append(
            "\(terminal.colour ? terminal.paint("█", .blue) : "█") open (\(series.open[last]) now)   "
                + "\(terminal.colour ? terminal.paint("█", .green) : "░") done (\(series.done[last]) now)")
        return lines
    }

    // MARK: - SVG

    static func svg(_ series: Series) -> String {
        let (left, top, plotWidth, plotHeight) = (56.0, 48.0, 720.0, 240.0)
        let (width, height) = (Int(left + plotWidth + 16), Int(top + plotHeight + 72))
        let (x0, x1) = (number(left), number(left + plotWidth))
        // At most 5 steps up the count axis, as many as the highest bar needs.
        let step = step(reaching: max(1, series.highest), in: 5)
        let ticks = (max(1, series.highest) + step - 1) / step
        let scale = plotHeight / Double(step * ticks)
        let bottom = top + plotHeight
        let slot = plotWidth / Double(series.starts.count)
        let barWidth = max(1, slot * 0.8)
        let (openColour, doneColour) = ("#1e88e5", "#43a047")
        let title = series.title()
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" \
            font-family="sans-serif" font-size="12" role="img">
            <title>\(title)</title>
            <rect width="\(width)" height="\(height)" fill="#ffffff"/>
            <text x="\(x0)" y="28" font-size="15" fill="#222222">\(title)</text>

            """
        // The count axis: a line and a label every step.
        for tick in 0...ticks {
            let y = number(bottom - Double(step * tick) * scale)
            svg += """
                <line x1="\(x0)" y1="\(y)" x2="\(x1)" y2="\(y)" stroke="\(tick == 0 ? "#444444" : "#e0e0e0")"/>
                <text x="\(number(left - 8))" y="\(y)" dy="4" text-anchor="end" fill="#444444">\(step * tick)</text>

                """
        }
        svg += "<line x1=\"\(x0)\" y1=\"\(number(top))\" x2=\"\(x0)\" y2=\"\(number(bottom))\" stroke=\"#444444\"/>\n"
        // The bars, each with a tooltip; done below, open above.
        for index in series.starts.indices {
            let x = number(left + slot * Double(index) + (slot - barWidth) / 2)
            let doneHeight = Double(series.done[index]) * scale
            let openHeight = Double(series.open[index]) * scale
            svg +=
                "<g class=\"bar\"><title>\(PeopleDates.dateText(series.end(index))): \(series.open[index]) open, \(series.done[index]) done</title>"
            svg +=
                "<rect x=\"\(x)\" y=\"\(number(bottom - doneHeight))\" width=\"\(number(barWidth))\" height=\"\(number(doneHeight))\" fill=\"\(doneColour)\"/>"
            svg +=
                "<rect x=\"\(x)\" y=\"\(number(bottom - doneHeight - openHeight))\" width=\"\(number(barWidth))\" height=\"\(number(openHeight))\" fill=\"\(openColour)\"/></g>\n"
        }
        // The dates, under every few bars: 44 pixels apart at least.
        let every = max(1, Int((44 / slot).rounded(.up)))
        for index in stride(from: 0, to: series.starts.count, by: every) {
            let x = number(left + slot * (Double(index) + 0.5))
            svg += "<text x=\"\(x)\" y=\"\(number(bottom + 18))\" text-anchor=\"middle\" fill=\"#444444\">\(series.label(index))</text>\n"
        }
        let legend = number(bottom + 48)
        let last = series.starts.count - 1
        svg += """
            <rect x="\(x0)" y="\(number(bottom + 38))" width="12" height="12" fill="\(openColour)"/>
            <text x="\(number(left + 18))" y="\(legend)" fill="#222222">open (\(series.open[last]) now)</text>
            <rect x="\(number(left + 140))" y="\(number(bottom + 38))" width="12" height="12" fill="\(doneColour)"/>
            <text x="\(number(left + 158))" y="\(legend)" fill="#222222">done (\(series.done[last]) now)</text>
            </svg>

            """
        return svg
    }

    /// `12.35`: at most two decimals, no exponent.
    static func number(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let (whole, part) = (abs(hundredths) / 100, abs(hundredths) % 100)
        let decimals = part == 0 ? "" : part % 10 == 0 ? ".\(part / 10)" : part < 10 ? ".0\(part)" : ".\(part)"
        return sign + String(whole) + decimals
    }

    /// Writes `text` to `file`, or to stdout for `-`.
    static func write(_ text: String, to file: String) throws {
        guard file != "-" else {
            let output = OutputWriter()
            try output.write(text)
            try output.flush()
            return
        }
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CommandFailure("cannot write \(file): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let output = OutputWriter(fd: fd, name: file)
        try output.write(text)
        try output.flush()
    }
}
