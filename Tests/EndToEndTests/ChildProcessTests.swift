import Foundation
import Synchronization
import TestSupport
import Testing

/// The tests' own launcher, TestSupport's `ChildProcess`: how a child ended, what it inherits,
/// end of file through its pipes, many launched at once, and no test back on Foundation's
/// `Process`.
@Suite struct ChildProcessTests {
    static func child(_ executable: String, _ arguments: [String]) -> ChildProcess {
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = arguments
        return child
    }

    @Test func anExitAndASignalAreTold() throws {
        let exiting = Self.child("/bin/sh", ["-c", "exit 7"])
        try exiting.run()
        // Not reaped until asked: a peek with WNOWAIT sees the exit.
        var info = siginfo_t()
        #expect(waitid(P_PID, id_t(exiting.processIdentifier), &info, WEXITED | WNOWAIT) == 0)
        #expect(info.si_code == CLD_EXITED && info._sifields._sigchld.si_status == 7)
        #expect(!exiting.isRunning)
        #expect(exiting.terminationReason == .exit)
        #expect(exiting.terminationStatus == 7)

        let sleeping = Self.child("/bin/sleep", ["60"])
        try sleeping.run()
        #expect(sleeping.isRunning)
        sleeping.terminate()
        sleeping.waitUntilExit()
        #expect(!sleeping.isRunning)
        #expect(sleeping.terminationReason == .uncaughtSignal)
        #expect(sleeping.terminationStatus == SIGTERM)
    }

    @Test func aMissingProgramFailsToRun() {
        #expect(throws: ChildProcess.LaunchError.self) { try Self.child("/nonexistent/program", []).run() }
    }

    /// A pipe from Foundation's `Pipe()` is inheritable, yet the child holds only its standard
    /// streams and what `ls` opens itself: the folder it lists.
    @Test func aChildInheritsOnlyItsStandardStreams() throws {
        let inheritable = Pipe()
        #expect(fcntl(inheritable.fileHandleForWriting.fileDescriptor, F_GETFD) & FD_CLOEXEC == 0)
        let output = Pipe.closedOnExec()
        let ls = Self.child("/bin/ls", ["/proc/self/fd"])
        ls.standardOutput = .pipe(output)
        try ls.run()
        let listed = String(decoding: try output.fileHandleForReading.readAll(within: 30), as: UTF8.self)
        ls.waitUntilExit()
        #expect(ls.terminationStatus == 0)
        #expect(listed == "0\n1\n2\n3\n")
    }

    /// stdin reaches end of file when this process closes its end, and stdout when the child
    /// exits: this process keeps no copy of the child's ends.
    @Test func pipesEndWithTheirWriters() throws {
        let input = Pipe.closedOnExec()
        let output = Pipe.closedOnExec()
        let cat = Self.child("/bin/cat", [])
        cat.standardInput = .pipe(input)
        cat.standardOutput = .pipe(output)
        cat.standardError = .nullDevice
        try cat.run()
        #expect(writeAll(Array("through cat\n".utf8), to: input.fileHandleForWriting.fileDescriptor))
        try input.fileHandleForWriting.close()
        #expect(try output.fileHandleForReading.readAll(within: 30) == Data("through cat\n".utf8))
        cat.waitUntilExit()
        #expect(cat.terminationReason == .exit && cat.terminationStatus == 0)
    }

    /// Launched from eight threads at once, as the tests do, each child's output and status
    /// come back whole.
    @Test func manyChildrenFromSeveralThreadsAtOnce() {
        let threads = 8
        let perThread = 25
        let results = Mutex<[String]>([])
        let finished = DispatchGroup()
        for thread in 0..<threads {
            finished.enter()
            Thread {
                for index in 0..<perThread {
                    let name = "\(thread)-\(index)"
                    let output = Pipe.closedOnExec()
                    let echo = Self.child("/bin/sh", ["-c", "echo \"$0\"; exit $1", name, "\(index % 3)"])
                    echo.standardOutput = .pipe(output)
                    do {
                        try echo.run()
                        let text = String(decoding: try output.fileHandleForReading.readAll(within: 60), as: UTF8.self)
                        echo.waitUntilExit()
                        results.withLock { $0.append("\(text.dropLast()) \(echo.terminationStatus)") }
                    } catch {
                        results.withLock { $0.append("\(name): \(error)") }
                    }
                }
                finished.leave()
            }.start()
        }
        #expect(finished.wait(timeout: .now() + 300) == .success)
        let expected = (0..<threads).flatMap { thread in (0..<perThread).map { "\(thread)-\($0) \($0 % 3)" } }
        #expect(results.withLock { $0.sorted() } == expected.sorted())
    }

    /// Foundation's `Process.run()` crashes the test process now and then (see `ChildProcess`):
    /// no test goes back to it.
    @Test func noTestUsesFoundationsProcess() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let files = try #require(FileManager.default.enumerator(atPath: tests.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50)
        var uses: [String] = []
        for file in files {
            let text = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(/(^|\W)Process\s*[(.]/) {
                uses.append("\(file):\(number + 1): \(line)")
            }
        }
        #expect(uses.isEmpty, "use ChildProcess: \(uses)")
    }
}
