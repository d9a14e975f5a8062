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
    }

    func paint(_ text: String, _ style: Style?) -> String {
        guard colour, let style, !text.isEmpty else { return text }
        return "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m"
    }
}

/// Tasks as aligned columns: short id, done mark, priority, due, project, title, tags.
/// Columns no task fills are left out; the title is shortened to fit the width.
struct TaskTable {
    let terminal: Terminal
    let dates: DateContext
    /// A header line above the rows (on a terminal).
    var header = false

    private struct Cell {
        var text: String
        var style: Terminal.Style?
    }

    private enum Column: Int, CaseIterable {
        case id, mark, priority, due, project, title, tags

        var heading: String {
            ["ID", "", "P", "Due", "Project", "Title", "Tags"][rawValue]
        }
    }

    func lines(_ tasks: [TaskItem], shortID: (String) -> String) -> [String] {
        let rows = tasks.map { cells($0, shortID: shortID($0.id)) }
        let columns = Column.allCases.filter { column in
            column == .id || column == .title || column == .mark || rows.contains { !$0[column.rawValue].text.isEmpty }
        }
        var widths = Column.allCases.map { column in
            rows.map { $0[column.rawValue].text.count }.max().map { max($0, header ? column.heading.count : 0) } ?? 0
        }
        if let width = terminal.width {
            // Everything but the title and the tags takes what it needs; the title gets what
            // is left after the tags, but at least 10 characters, and the tags the rest.
            let fixed = columns.filter { $0 != .title && $0 != .tags }.map { widths[$0.rawValue] }.reduce(0, +)
            let available = width - fixed - 2 * (columns.count - 1)
            let tags = widths[Column.tags.rawValue]
            widths[Column.title.rawValue] = min(widths[Column.title.rawValue], max(10, available - tags))
            widths[Column.tags.rawValue] = max(1, min(tags, available - widths[Column.title.rawValue]))
        }
        var output: [String] = []
        if header {
            let headings = columns.map { Cell(text: $0.heading, style: .underline) }
            output.append(render(headings, columns: columns, widths: widths))
        }
        for row in rows {
            output.append(render(columns.map { row[$0.rawValue] }, columns: columns, widths: widths))
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
            var length = text.count
            if length > width, column == .title || column == .tags {
                text = String(text.prefix(max(0, width - 1))) + "…"
                length = width
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
            Cell(text: task.priority > 0 ? PriorityName.letters[task.priority] : "", style: priorityStyle),
            Cell(text: due?.relative ?? task.due ?? "", style: task.done ? .dim : dueStyle),
            Cell(text: task.project ?? "", style: nil),
            Cell(text: task.title, style: task.done ? .dim : nil),
            Cell(text: task.tags.map { "+" + $0 }.joined(separator: " "), style: .blue),
        ]
    }
}
