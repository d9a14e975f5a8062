import PeopleLanguage
import TaskModel

#if canImport(Glibc)
import Glibc
#endif

/// Where the people's commands print: whether to colour, and how wide a line may be.
struct Terminal: Sendable {
    var colour: Bool
    /// Nil: no limit (a pipe, unless COLUMNS says otherwise).
    var width: Int?

    /// Colour on a terminal (or with CLICOLOR_FORCE set), never with NO_COLOR set or
    /// TERM=dumb. The width is COLUMNS when set, else the terminal's.
    static func stdout(environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) -> Terminal {
        let isTerminal = isatty(STDOUT_FILENO) == 1
        let forced = !(environment("CLICOLOR_FORCE") ?? "").isEmpty && environment("CLICOLOR_FORCE") != "0"
        let colour = (isTerminal || forced) && (environment("NO_COLOR") ?? "").isEmpty && environment("TERM") != "dumb"
        var width = environment("COLUMNS").flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
        if width == nil, isTerminal {
            var size = winsize()
            if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { width = Int(size.ws_col) }
        }
        return Terminal(colour: colour, width: width)
    }

    enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case yellow = "33"
        case blue = "34"
        case boldRed = "1;31"
        case underline = "4"
        case reverse = "7"
        case green = "32"
    }

    func paint(_ text: String, _ style: Style?) -> String {
        guard colour, let style, !text.isEmpty else { return text }
        return "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m"
    }
}

/// Tasks as aligned columns: short id, done mark, urgency, priority, due, project, title,
/// tags. Columns no task fills are left out; on a terminal, the title and the tags wrap
/// within the width. Widths are terminal cells (`TerminalWidth`).
struct TaskTable {
    let terminal: Terminal
    let dates: DateContext
    /// A header line above the rows (on a terminal).
    var header = false
    /// Each task's urgency, for listings ordered by it; nil leaves the column out.
    var urgency: ((TaskItem) -> Double)?
    /// The open tasks that wait for an open task, flagged B.
    var blocked: Set<String> = []

    /// The flags column, a character a flag, for `--help`.
    static let flagsHelp =
        "A active (started), B waits for an open task (blocked), W waits until its wait: date, R repeats, N has notes or annotations"

    private struct Cell {
        var text: String
        var style: Terminal.Style?
    }

    private enum Column: Int, CaseIterable {
        case id, mark, flags, urgency, priority, due, project, title, tags

        var heading: String {
            ["ID", "", "Flg", "Urg", "P", "Due", "Project", "Title", "Tags"][rawValue]
        }
    }

    func lines(_ tasks: [TaskItem], shortID: (String) -> String) -> [String] {
        let rows = tasks.map { cells($0, shortID: shortID($0.id)) }
        let columns = Column.allCases.filter { column in
            column == .id || column == .title || column == .mark || rows.contains { !$0[column.rawValue].text.isEmpty }
        }
        var widths = Column.allCases.map { column in
            rows.map { TerminalWidth.of($0[column.rawValue].text) }.max().map { max($0, header ? column.heading.count : 0) } ?? 0
        }
        if let width = terminal.width {
            // Everything but the title and the tags takes what it needs. The title gets what
            // is left but a third for the tags, at least 10 cells, and the tags the rest;
            // both wrap within their column.
            let fixed = columns.filter { $0 != .title && $0 != .tags }.map { widths[$0.rawValue] }.reduce(0, +)
            let available = width - fixed - 2 * (columns.count - 1)
            let tags = widths[Column.tags.rawValue]
            widths[Column.title.rawValue] = min(widths[Column.title.rawValue], max(10, available - min(tags, available / 3)))
            widths[Column.tags.rawValue] = max(1, min(tags, available - widths[Column.title.rawValue]))
        }
        var output: [String] = []
        if header {
            let headings = columns.map { Cell(text: $0.heading, style: .underline) }
            output.append(render(headings, columns: columns, widths: widths))
        }
        for row in rows {
            let cells = columns.map { row[$0.rawValue] }
            // On a terminal the title and the tags wrap; the other columns are on the first line.
            let pieces = zip(cells, columns).map { cell, column in
                terminal.width != nil && (column == .title || column == .tags)
                    ? TerminalWidth.wrap(cell.text, cells: widths[column.rawValue]) : [cell.text]
            }
            for line in 0..<pieces.map(\.count).max()! {
                let lineCells = zip(cells, pieces).map { cell, lines in Cell(text: line < lines.count ? lines[line] : "", style: cell.style) }
                output.append(render(lineCells, columns: columns, widths: widths))
            }
        }
        return output
    }

    private func render(_ cells: [Cell], columns: [Column], widths: [Int]) -> String {
        // Nothing after the last cell with text: no trailing spaces.
        guard let last = cells.lastIndex(where: { !$0.text.isEmpty }) else { return "" }
        var line = ""
        for index in 0...last {
            let column = columns[index]
            let width = widths[column.rawValue]
            var text = cells[index].text
            var length = TerminalWidth.of(text)
            if length > width, column == .title || column == .tags {
                text = TerminalWidth.prefix(text, fitting: max(0, width - 1)) + "…"
                length = TerminalWidth.of(text)
            }
            if index > 0 { line += "  " }
            line += terminal.paint(text, cells[index].style)
            if index < last { line += String(repeating: " ", count: max(0, width - length)) }
        }
        return line
    }

    private func cells(_ task: TaskItem, shortID: String) -> [Cell] {
        let due = task.due.flatMap { PeopleDates.show($0, now: dates.now, calendar: dates.calendar, open: !task.done) }
        let dueStyle: Terminal.Style? =
            switch due?.urgency {
            case .overdue: .red
            case .today: .bold
            default: nil
            }
        let priorityStyle: Terminal.Style? = [nil, .blue, .yellow, .boldRed][task.priority]
        return [
            Cell(text: shortID, style: .yellow),
            Cell(text: task.done ? "[x]" : "[ ]", style: nil),
            Cell(text: flags(task), style: .dim),
            // Right-aligned to 4 characters: one decimal, as Taskwarrior shows it.
            Cell(text: urgency.map { Self.oneDecimal($0(task)) } ?? "", style: nil),
            Cell(text: task.priority > 0 ? PriorityName.letters[task.priority] : "", style: priorityStyle),
            Cell(text: due?.relative ?? task.due ?? "", style: task.done ? .dim : dueStyle),
            Cell(text: task.project ?? "", style: nil),
            Cell(text: task.title, style: task.done ? .dim : nil),
            Cell(text: task.tags.map { "+" + $0 }.joined(separator: " "), style: .blue),
        ]
    }

    /// `BR`: what `flagsHelp` says, in its order.
    private func flags(_ task: TaskItem) -> String {
        let waiting = !task.done && task.wait.flatMap(Timestamp.parse).map { $0 > dates.now } == true
        return (task.startedAt != nil ? "A" : "") + (blocked.contains(task.id) ? "B" : "") + (waiting ? "W" : "")
            + (task.recurrence != nil ? "R" : "") + (task.notes.isEmpty && task.annotations.isEmpty ? "" : "N")
    }

    /// `12.3`, ` 8.0`: one decimal, padded to 4 characters.
    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let text = (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
        return String(repeating: " ", count: max(0, 4 - text.count)) + text
    }
}
