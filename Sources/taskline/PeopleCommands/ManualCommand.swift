import JSON
import PeopleLanguage
import TasklineServer

/// `taskline manual`: the manual page taskline(1), made from the texts `--help` prints, so
/// that the two cannot say different things.
enum ManualCommand: Command {
    struct Options: Sendable {}

    static let name = "manual"
    static let summary = "print the manual page taskline(1), in roff (scripts/install installs it)"
    static let usage = """
        Usage: taskline manual

        Prints the manual page taskline(1) in roff: taskline --help, then every command's
        --help, word for word. Read it with: taskline manual | man -l -
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Options {
        if let item = try reader.next() { throw item.unexpected }
        return Options()
    }

    static func run(_ options: Options) async throws -> Int32 {
        let output = OutputWriter()
        try output.write(page)
        try output.flush()
        return 0
    }

    static var page: String {
        var roff = """
            .TH TASKLINE 1 "" "taskline \(TasklineVersion.server)" "User Commands"
            .SH NAME
            taskline \\- a task list for people, editors and scripts, served over JSON-RPC
            .SH DESCRIPTION

            """
        roff += verbatim(CommandLineOptions.usage)
        roff += ".SH COMMANDS\n"
        for command in Subcommands.all {
            roff += ".SS taskline \(command.name)\n" + verbatim(command.usage)
        }
        roff += """
            .SH FILES
            .TP
            .I $XDG_DATA_HOME/taskline/tasks.sqlite
            the default database (else ~/.local/share/taskline/tasks.sqlite)
            .SH ENVIRONMENT
            .TP
            .B TZ
            the time zone dates are read and shown in
            .TP
            .B NO_COLOR, CLICOLOR_FORCE, COLUMNS
            colour off, colour on, the width of a line
            .TP
            .B VISUAL, EDITOR
            the editor of taskline edit

            """
        return roff
    }

    /// `text` as roff shows it line for line: no filling, no adjusting; backslashes, leading
    /// dots and quotes, and hyphens made literal.
    static func verbatim(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var escaped = String(line).replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
            if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
            return escaped
        }
        return ".nf\n" + lines.joined(separator: "\n") + "\n.fi\n"
    }
}

extension String {
    /// Every `target` replaced by `replacement` (Foundation's is not linked in).
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
