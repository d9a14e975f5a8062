import Foundation
import JSON
import TestSupport
import Testing

/// What people see on a terminal: colour, width, the hint of a bare `taskline`, and `edit`.
@Suite struct TerminalOutputTests {
    let directory = TemporaryDirectory()

    func add(_ path: String, _ words: [String]) throws -> String {
        let added = try runTaskline(["add", "--db", path] + words)
        #expect(added.status == 0, "\(added.stderr)")
        return String(added.output.split(separator: " ")[1])
    }

    /// A database with an overdue task, one due today with high priority, and a long title.
    func sample() throws -> String {
        let path = directory.file("sample.sqlite")
        _ = try add(path, ["Pay", "the", "bill", "due:-2d", "pri:M"])
        _ = try add(path, ["Buy", "milk", "due:today", "pri:H", "+errand"])
        _ = try add(path, ["Write", "a", "very", "long", "title", "that", "cannot", "fit", "in", "a", "narrow", "terminal", "+work"])
        return path
    }

    @Test func colourMarksOverdueTodayAndPriority() throws {
        let path = try sample()
        let coloured = try runTaskline(["list", "--db", path], environment: ["CLICOLOR_FORCE": "1", "NO_COLOR": ""])
        #expect(coloured.lines[0].contains("\u{1B}[31m2 days overdue\u{1B}[0m"), "\(coloured.output)")
        #expect(coloured.lines[0].contains("\u{1B}[33mM\u{1B}[0m"))
        #expect(coloured.lines[1].contains("\u{1B}[1mtoday\u{1B}[0m"))
        #expect(coloured.lines[1].contains("\u{1B}[1;31mH\u{1B}[0m"))

        let plain = try runTaskline(["list", "--db", path])
        #expect(!plain.output.contains("\u{1B}"), "a pipe gets plain text")
        let noColour = try runTaskline(["list", "--db", path], environment: ["CLICOLOR_FORCE": "1", "NO_COLOR": "1"])
        #expect(!noColour.output.contains("\u{1B}"), "NO_COLOR wins")
        #expect(noColour.output == plain.output)
        let json = try runTaskline(["list", "--db", path, "--json"], environment: ["CLICOLOR_FORCE": "1"])
        #expect(!json.output.contains("\u{1B}"))
    }

    @Test func columnsFitTheWidth() throws {
        let path = try sample()
        let wide = try runTaskline(["list", "--db", path], environment: ["COLUMNS": ""])
        #expect(wide.lines[2].hasSuffix("Write a very long title that cannot fit in a narrow terminal  +work"))
        let narrow = try runTaskline(["list", "--db", path], environment: ["COLUMNS": "60"])
        #expect(narrow.lines.allSatisfy { $0.count <= 60 }, "\(narrow.output)")
        // The long title wraps within its column, whole words a line; the tags stay on its first line.
        #expect(narrow.lines.count > 3)
        #expect(narrow.lines[2].hasSuffix("+work"), "\(narrow.output)")
        let titleStart = try #require(narrow.lines[2].range(of: "Write")).lowerBound.utf16Offset(in: narrow.lines[2])
        let continued = narrow.lines[3...].map { $0.dropFirst(titleStart) }
        #expect(narrow.lines[3...].allSatisfy { $0.prefix(titleStart).allSatisfy { $0 == " " } }, "continuation lines are blank but for the title")
        let title = ([narrow.lines[2].dropFirst(titleStart).components(separatedBy: "  ")[0]] + continued.map(String.init)).joined(separator: " ")
        #expect(title == "Write a very long title that cannot fit in a narrow terminal")
        // Rows stay aligned: the title column starts at the same place on every row.
        let starts = narrow.lines.prefix(3).map { line in
            line.range(of: ["Pay", "Buy", "Write"].first { line.contains($0) }!)!.lowerBound.utf16Offset(in: line)
        }
        #expect(Set(starts).count == 1)
        // A short title is not padded out to the narrowest a shortened one may be.
        let short = try runTaskline(["add", "--db", path, "Go", "+x"], environment: ["COLUMNS": "60"])
        #expect(short.output.hasSuffix("  [ ]  Go  +x\n"), "\(short.output)")
    }

    /// Columns line up in terminal cells: a CJK character or an emoji takes two, a
    /// combining mark none. A pipe asking for tsv gets tab-separated fields, unpadded.
    @Test func wideCharactersTakeTwoCellsAndTSVIsUnpadded() throws {
        let path = directory.file("wide.sqlite")
        _ = try add(path, ["買い物リスト", "+家"])
        _ = try add(path, ["Apples", "🍎🍏", "+fruit"])
        _ = try add(path, ["Cafe\u{301}", "+x"])
        _ = try add(path, ["Plain", "title", "+y"])
        let listed = try runTaskline(["list", "--db", path])
        // The tags start at the same cell on every row.
        let cells = listed.lines.map { line in
            let before = line[..<line.range(of: "  +")!.lowerBound]
            return before.reduce(0) { width, character in
                width + (character.unicodeScalars.contains { $0.properties.isEmojiPresentation || (0x3000...0x9FFF).contains($0.value) } ? 2 : 1)
            }
        }
        #expect(Set(cells).count == 1, "\(listed.output)")

        let tsv = try runTaskline(["list", "--db", path, "--format", "tsv"])
        #expect(tsv.lines.count == 4)
        #expect(tsv.lines.allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 7 })
        #expect(tsv.lines[3].hasSuffix("\topen\t\t\t\tPlain title\ty"), "\(tsv.output)")
        #expect(try runTaskline(["list", "--db", path, "--format", "csv"]).status == 2)
    }

    /// On a real terminal (script(1) gives the command one): a header, colour, the width.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func aTerminalGetsAHeaderAndColour() throws {
        let path = try sample()
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "stty cols 70; '\(ServerProcess.binaryPath)' list --db '\(path)'", "/dev/null"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TERM": "xterm", "NO_COLOR": "", "COLUMNS": ""]) { $1 }
        let output = Pipe.closedOnExec()
        process.standardOutput = .pipe(output)
        process.standardInput = .nullDevice
        try process.run()
        let text = String(decoding: try output.fileHandleForReading.readAll(), as: UTF8.self)
        process.waitUntilExit()
        let lines = text.split(separator: "\r\n").map(String.init)
        #expect(lines.first?.contains("\u{1B}[4mID\u{1B}[0m") == true, "\(text)")
        #expect(text.contains("\u{1B}[31m2 days overdue"))
        #expect(lines.last?.hasSuffix(" tasks") == true, "the count ends what a person reads: \(text)")
        let plainLengths = lines.map { $0.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression).count }
        #expect(plainLengths.allSatisfy { $0 <= 70 }, "\(plainLengths)")
    }

    /// `taskline` typed at a prompt says what it is on stderr, and serves all the same.
    @Test func bareTasklineOnATerminalHintsAndServes() throws {
        let path = directory.file("bare.sqlite")
        let terminal = try PseudoTerminal()
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: ServerProcess.binaryPath)
        process.arguments = ["--db", path]
        process.standardInput = .fileHandle(terminal.slave)
        let output = Pipe.closedOnExec()
        let errors = Pipe.closedOnExec()
        process.standardOutput = .pipe(output)
        process.standardError = .pipe(errors)
        try process.run()
        terminal.type(#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"# + "\n")
        terminal.type("\u{04}")  // Ctrl-D: the end of the input
        let answer = String(decoding: try output.fileHandleForReading.readAll(), as: UTF8.self)
        let hint = String(decoding: try errors.fileHandleForReading.readAll(), as: UTF8.self)
        process.waitUntilExit()
        #expect(answer.contains(#""id":1,"result""#), "\(answer)")
        #expect(hint.hasPrefix("taskline: this is the Taskline server, reading JSON-RPC on stdin; for the command line see taskline --help"))
        #expect(hint.split(separator: "\n").count == 1, "\(hint)")

        // Not on a terminal (an editor's pipe), nothing is said.
        let server = try ServerProcess(["--db", path])
        server.closeInput()
        _ = server.waitForExit()
        #expect(!server.stderr.contains("this is the Taskline server"))
    }

    @Test func editAppliesTheTextWithItsVersion() throws {
        let path = directory.file("edit.sqlite")
        let id = try add(path, ["Fix", "bike", "+home", "pri:L", "--notes", "front wheel"])
        let editor = directory.file("editor.sh")
        try """
        #!/bin/sh
        sed -i 's/^title: .*/title: Repair the bicycle/; s/^priority: .*/priority: H/; s/^tags: .*/tags: home garage/; s/^due: .*/due: 2099-03-01/' "$1"
        echo "and the brakes" >> "$1"
        """.write(toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        let edited = try runTaskline(["edit", "--db", path, id], environment: ["EDITOR": editor, "VISUAL": ""])
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(edited.output.hasPrefix("edited \(id)"))
        let task = try #require(try JSONParser.parse(try runTaskline(["list", "--db", path, "--json"]).stdout).arrayValue?.first)
        #expect(task["title"] == "Repair the bicycle")
        #expect(task["priority"] == 3)
        #expect(task["tags"] == ["garage", "home"])
        #expect(task["due"] == "2099-03-01")
        #expect(task["notes"] == "front wheel\nand the brakes")
        #expect(task["version"] == 2)

        let unchanged = try runTaskline(["edit", "--db", path, id], environment: ["EDITOR": "true", "VISUAL": ""])
        #expect(unchanged.status == 0)
        #expect(unchanged.stderr == "taskline: nothing changed\n")
    }

    /// Another client's change while the editor is open is not overwritten; the text is kept.
    @Test func editRefusesWhatChangedMeanwhile() throws {
        let path = directory.file("conflict.sqlite")
        let id = try add(path, ["Fix", "bike"])
        let editor = directory.file("racing.sh")
        try """
        #!/bin/sh
        '\(ServerProcess.binaryPath)' modify --db '\(path)' \(id) pri:M >/dev/null
        sed -i 's/^title: .*/title: Mine/' "$1"
        """.write(toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        let edited = try runTaskline(["edit", "--db", path, id], environment: ["EDITOR": editor, "VISUAL": ""])
        #expect(edited.status == 1)
        #expect(edited.stderr.contains("the task changed meanwhile (now at version 2); nothing was applied; the edited text is in "))
        let kept = try #require(edited.stderr.components(separatedBy: "the edited text is in ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(try String(contentsOfFile: kept, encoding: .utf8).contains("title: Mine"))
        try? FileManager.default.removeItem(atPath: kept)
        let task = try #require(try JSONParser.parse(try runTaskline(["list", "--db", path, "--json"]).stdout).arrayValue?.first)
        #expect(task["title"] == "Fix bike")
        #expect(task["priority"] == 2)

        let bad = directory.file("bad.sh")
        try "#!/bin/sh\nsed -i 's/^priority: .*/priority: urgent/' \"$1\"\n".write(toFile: bad, atomically: true, encoding: .utf8)
        chmod(bad, 0o755)
        let refused = try runTaskline(["edit", "--db", path, id], environment: ["EDITOR": bad, "VISUAL": ""])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("priority: takes H, M, L or none"))
        if let file = refused.stderr.components(separatedBy: "the edited text is in ").last {
            try? FileManager.default.removeItem(atPath: file.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}

/// A pseudo-terminal whose other end a child process reads as its stdin.
final class PseudoTerminal {
    let master: Int32
    let slave: FileHandle

    struct Unavailable: Error {}

    init() throws {
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: CInt = 0
        var number: CInt = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw Unavailable()
        }
        let fd = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { throw Unavailable() }
        slave = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress!, $0.count) }
    }

    deinit {
        close(master)
    }
}
