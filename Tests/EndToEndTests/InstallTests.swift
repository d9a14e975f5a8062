import Foundation
import TestSupport
import Testing

/// `scripts/install` into a temporary prefix: the installed binary, its completions and manual
/// page work, and `--uninstall` removes exactly what was installed.
@Suite struct InstallTests {
    let directory = TemporaryDirectory()
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Runs a program to its end: exit status, stdout and stderr.
    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String, errors: String) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe.closedOnExec()
        let errors = Pipe.closedOnExec()
        process.standardOutput = .pipe(output)
        process.standardError = .pipe(errors)
        process.standardInput = .nullDevice
        try process.run()
        let collected = DispatchGroup()
        nonisolated(unsafe) var errorData = Data()
        DispatchQueue.global().async(group: collected) { errorData = (try? errors.fileHandleForReading.readAll()) ?? Data() }
        let outputData = try output.fileHandleForReading.readAll()
        collected.wait()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
    }

    /// Every file and folder under `path`, relative to it.
    func contents(_ path: String) -> Set<String> {
        Set((FileManager.default.enumerator(atPath: path)?.allObjects as? [String]) ?? [])
    }

    func install(_ prefix: String, _ more: [String] = []) throws -> (status: Int32, output: String, errors: String) {
        try run(["\(Self.repository)/scripts/install", "--prefix", prefix, "--binary", ServerProcess.binaryPath] + more)
    }

    @Test func installsRunsCompletesAndUninstallsExactly() throws {
        let prefix = directory.file("a prefix")
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try "mine".write(toFile: prefix + "/bin/other-tool", atomically: true, encoding: .utf8)
        let before = contents(prefix)

        let installed = try install(prefix)
        #expect(installed.status == 0, "\(installed.errors)")
        #expect(installed.output.contains("Neovim:") && installed.output.contains("Emacs:"))
        #expect(installed.output.contains("ln -s '\(prefix)/share/taskline/nvim'"))
        let path = ["PATH": "\(prefix)/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]

        // The installed binary works.
        #expect(try run(["\(prefix)/bin/taskline", "--version"]).output.hasPrefix("taskline "))
        let database = directory.file("tasks.sqlite")
        let added = try run(["\(prefix)/bin/taskline", "add", "--db", database, "Fix", "bike", "+home", "project:Home.Garage"])
        #expect(added.status == 0, "\(added.errors)")
        let shortID = String(added.output.split(separator: " ")[1])

        // bash completes commands, options, and the database's ids, tags and projects.
        func bash(_ line: String) throws -> [String] {
            let script = """
                source "$1"; COMP_LINE=$2; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<<"$COMP_LINE"
                [[ $COMP_LINE == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                _taskline; printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try run(["bash", "-c", script, "bash", "\(prefix)/share/bash-completion/completions/taskline", line], environment: path)
            #expect(result.errors.isEmpty, "\(result.errors)")
            return result.output.split(separator: "\n").map(String.init)
        }
        #expect(try bash("taskline do") == ["done"])
        #expect(try bash("taskline done --db \(database) ") == [shortID])
        #expect(try bash("taskline add --db \(database) x +h") == ["+home"])
        #expect(try bash("taskline list --db \(database) project:Home.G") == ["Home.Garage"])
        #expect(try bash("taskline list --so") == ["--sort"])

        // fish, when it is there, from the same words.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/fish") {
            let fish = try run(
                ["fish", "-c", "source '\(prefix)/share/fish/vendor_completions.d/taskline.fish'; complete -C 'taskline done --db \(database) '"],
                environment: path)
            #expect(fish.output == "\(shortID)\tFix bike\n", "\(fish.errors)")
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") {
            #expect(try run(["zsh", "-n", "\(prefix)/share/zsh/site-functions/_taskline"]).status == 0)
        }

        // The manual page renders, and says what --help says.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/man") {
            let manual = try run(
                ["man", "-l", "\(prefix)/share/man/man1/taskline.1"], environment: ["MANWIDTH": "200", "MANPAGER": "cat", "PAGER": "cat"])
            #expect(manual.status == 0, "\(manual.errors)")
            let commands = try run(["\(prefix)/bin/taskline", "completion", "--words", "commands"]).output
                .split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
            #expect(commands.count >= 15)
            for command in [""] + commands {
                let help = try run(["\(prefix)/bin/taskline"] + (command.isEmpty ? [] : [command]) + ["--help"]).output
                for line in help.split(separator: "\n") {
                    #expect(manual.output.contains(line.trimmingCharacters(in: .whitespaces)), "\(line)")
                }
            }
        }

        // The terminal UI starts from its own copy of the client.
        let tui = try run(["\(prefix)/bin/taskline-tui", "--help"])
        #expect(tui.status == 0, "\(tui.errors)")
        #expect(tui.output.contains("--db"))

        // The editor packages load from where the printed instructions point.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/nvim") {
            let nvim = try run([
                "nvim", "--headless", "-u", "NONE", "-i", "NONE", "--cmd", "lua vim.opt.rtp:append([[\(prefix)/share/taskline/nvim]])",
                "-c", "runtime plugin/taskline.lua", "-c", "lua io.stdout:write(vim.fn.exists(':Taskline'))", "-c", "qa!",
            ])
            #expect(nvim.output == "2", "\(nvim.errors)")
            // :help taskline finds the installed help: its tags were made at install.
            let help = try run([
                "nvim", "--headless", "-u", "NONE", "-i", "NONE", "--cmd", "lua vim.opt.rtp:append([[\(prefix)/share/taskline/nvim]])",
                "-c", "help taskline-keys", "-c", "lua io.stdout:write(vim.fn.expand('%:t'))", "-c", "qa!",
            ])
            #expect(help.output == "taskline.txt", "\(help.errors)")
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/emacs") {
            let emacs = try run([
                "emacs", "--batch", "-Q", "-L", "\(prefix)/share/taskline/emacs",
                "--eval", "(progn (require 'taskline) (princ (fboundp 'taskline)))",
            ])
            #expect(emacs.output == "t", "\(emacs.errors)")
        }

        // Installing again replaces the installation; uninstalling leaves what was there.
        #expect(try install(prefix).status == 0)
        let removed = try run(["\(Self.repository)/scripts/install", "--uninstall", "--prefix", prefix])
        #expect(removed.status == 0, "\(removed.errors)")
        #expect(contents(prefix) == before)
        #expect(try run(["\(Self.repository)/scripts/install", "--uninstall", "--prefix", prefix]).status == 1)
    }

    @Test func aFileInTheWayIsLeftAloneAndNothingIsInstalled() throws {
        let prefix = directory.file("taken")
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try "someone else's".write(toFile: prefix + "/bin/taskline", atomically: true, encoding: .utf8)
        let refused = try install(prefix)
        #expect(refused.status == 1)
        #expect(refused.errors.contains("\(prefix)/bin/taskline is in the way and was not installed by scripts/install"))
        #expect(contents(prefix) == ["bin", "bin/taskline"])
        #expect(try String(contentsOfFile: prefix + "/bin/taskline", encoding: .utf8) == "someone else's")
    }
}
