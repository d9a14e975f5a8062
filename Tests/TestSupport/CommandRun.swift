import Foundation

/// What a run of the real `taskline` binary as a command (`taskline export`, …) gave.
public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: Data
    public var stderr: String

    public var output: String { String(decoding: stdout, as: UTF8.self) }
    /// stdout's lines, without the empty one after the last newline.
    public var lines: [String] { output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
}

/// Runs `taskline arguments…` to its end and collects its exit status, stdout and stderr.
/// `stdin`: bytes to feed it (closed after), else it reads an empty stdin. `environment`:
/// variables set (or, with "", emptied) on top of this process's.
public func runTaskline(
    _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
    timeout: Double = 120
) throws -> CommandResult {
    let process = ChildProcess()
    process.executableURL = URL(fileURLWithPath: ServerProcess.binaryPath)
    process.arguments = arguments
    // The command line reads the person's settings, whose context would filter every
    // listing: a test reads none unless it names its own XDG_CONFIG_HOME.
    let noSettings = ["XDG_CONFIG_HOME": FileManager.default.temporaryDirectory.appendingPathComponent("taskline-tests-no-settings").path]
    process.environment = ProcessInfo.processInfo.environment.merging(noSettings) { $1 }.merging(environment) { $1 }
    let input = Pipe.closedOnExec()
    let output = Pipe.closedOnExec()
    let errors = Pipe.closedOnExec()
    process.standardInput = .pipe(input)
    process.standardOutput = .pipe(output)
    process.standardError = .pipe(errors)
    try process.run()
    // Both outputs are drained at once, so a large output never blocks the process, each on
    // a thread of its own rather than on Dispatch's global queue, which other tests' blocking
    // reads can hold.
    let collected = CollectedOutput()
    let group = DispatchGroup()
    for (pipe, isStdout) in [(output, true), (errors, false)] {
        group.enter()
        Thread {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            collected.set(data, stdout: isStdout)
            group.leave()
        }.start()
    }
    // The process may exit before it reads its input (a usage error): the write then fails
    // with EPIPE and stops, rather than kill the test process.
    if let stdin { writeAll(Array(stdin), to: input.fileHandleForWriting.fileDescriptor) }
    try input.fileHandleForWriting.close()
    guard group.wait(timeout: .now() + timeout) == .success else {
        let exited = !process.isRunning
        process.terminate()
        throw ServerProcess.Timeout(
            description: "taskline \(arguments.joined(separator: " ")) did not finish in \(timeout) s "
                + (exited ? "(it had exited, but its output had not ended)" : "(it was still running)"))
    }
    return CommandResult(
        status: try exitStatus(of: process, timeout: timeout), stdout: collected.stdout,
        stderr: String(decoding: collected.stderr, as: UTF8.self))
}

/// The exit status of `process`, whose output has ended, as `terminationStatus` gives it (the
/// signal's number when a signal ended it). Past `timeout` seconds it is terminated, and the
/// wait fails.
func exitStatus(of process: ChildProcess, timeout: Double) throws -> Int32 {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning {
        guard Date() < deadline else {
            process.terminate()
            throw ServerProcess.Timeout(description: "\(process.executableURL?.lastPathComponent ?? "a process") did not exit in \(timeout) s")
        }
        usleep(1_000)
    }
    return process.terminationStatus
}

private final class CollectedOutput: @unchecked Sendable {  // every access holds the lock
    private let lock = NSLock()
    private var data: (stdout: Data, stderr: Data) = (Data(), Data())

    func set(_ bytes: Data, stdout: Bool) {
        lock.withLock {
            if stdout { data.stdout = bytes } else { data.stderr = bytes }
        }
    }

    var stdout: Data { lock.withLock { data.stdout } }
    var stderr: Data { lock.withLock { data.stderr } }
}

/// Runs `taskline arguments…` with its stderr on a pseudo-terminal (stdin and stdout stay
/// pipes), and returns everything written to that terminal, with the exit status.
public func runTasklineWithTerminalStderr(_ arguments: [String], timeout: Double = 120) throws -> (status: Int32, terminal: String) {
    // posix_openpt and friends, by hand: Swift's Glibc module does not offer them.
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    var unlock: CInt = 0
    var number: CInt = 0
    let setLock: UInt = 0x4004_5431  // TIOCSPTLCK
    let getNumber: UInt = 0x8004_5430  // TIOCGPTN
    guard master >= 0, ioctl(master, setLock, &unlock) == 0, ioctl(master, getNumber, &number) == 0 else {
        throw ServerProcess.Timeout(description: "no pseudo-terminal: \(String(cString: strerror(errno)))")
    }
    let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
    guard slave >= 0 else { throw ServerProcess.Timeout(description: "cannot open the terminal's other end") }
    let process = ChildProcess()
    process.executableURL = URL(fileURLWithPath: ServerProcess.binaryPath)
    process.arguments = arguments
    process.standardInput = .nullDevice
    process.standardOutput = .nullDevice
    process.standardError = .fileHandle(FileHandle(fileDescriptor: slave, closeOnDealloc: true))
    try process.run()
    var text = Data()
    let deadline = Date().addingTimeInterval(timeout)
    var buffer = [UInt8](repeating: 0, count: 4096)
    // Read until the process has ended and the terminal has nothing more.
    while Date() < deadline {
        var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        if poll(&poller, 1, 50) > 0 {
            let count = read(master, &buffer, buffer.count)
            if count > 0 {
                text.append(contentsOf: buffer[0..<count])
                continue
            }
        }
        if !process.isRunning { break }
    }
    process.waitUntilExit()
    close(master)
    return (process.terminationStatus, String(decoding: text, as: UTF8.self))
}

/// Writes all of `bytes` to `fd`, or stops early when the reader has gone (returns false).
@discardableResult
public func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
    pipeSignalIgnored
    var offset = 0
    while offset < bytes.count {
        let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return false }
        offset += count
    }
    return true
}

/// Tests write to processes that may have died (killed on purpose, gone after `exit`, or
/// exited on a usage error before reading): that must fail the write with EPIPE, not kill
/// the test process.
let pipeSignalIgnored: Void = { signal(SIGPIPE, SIG_IGN) }()
