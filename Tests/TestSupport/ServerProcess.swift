import Foundation
import JSON
import JSONRPC

/// The real `taskline` binary, spawned over pipes, for end-to-end tests.
///
/// The binary is `$TASKLINE_SERVER` when set, else the package's `.build/debug/taskline`.
public final class ServerProcess: @unchecked Sendable {
    public static var binaryPath: String {
        if let path = ProcessInfo.processInfo.environment["TASKLINE_SERVER"], !path.isEmpty { return path }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent(".build/debug/taskline").path
    }

    public let process = ChildProcess()
    private let input = Pipe.closedOnExec()
    private let output = Pipe.closedOnExec()
    private let errors = Pipe.closedOnExec()
    private var decoder: FrameDecoder
    private var received: [JSON] = []
    private let stderrLock = NSLock()
    private var stderrData = Data()
    private let stderrClosed = DispatchSemaphore(value: 0)

    /// `executable`: a program that ends up running the server (a wrapper that sets the stage
    /// and then `exec`s it); by default the server itself.
    public init(_ arguments: [String], executable: String? = nil, framing: Framing? = nil, environment: [String: String] = [:]) throws {
        pipeSignalIgnored
        decoder = FrameDecoder(framing: framing, maxMessageBytes: 1 << 30)
        process.executableURL = URL(fileURLWithPath: executable ?? Self.binaryPath)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardInput = .pipe(input)
        process.standardOutput = .pipe(output)
        process.standardError = .pipe(errors)
        try process.run()
        collectStandardError()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Reads the server's stderr on a thread of its own until the server closes it.
    ///
    /// The thread holds the pipe's read end, so the descriptor stays open for as long as it
    /// is read, whenever this object goes away; a `readabilityHandler` leaves a dispatch
    /// source watching a descriptor that the handle's release closes, and its number's next
    /// owner then confuses the source.
    private func collectStandardError() {
        let reader = errors.fileHandleForReading
        let thread = Thread { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(reader.fileDescriptor, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                guard let self else { continue }  // keep draining, so the server never blocks on stderr
                self.stderrLock.lock()
                self.stderrData.append(contentsOf: buffer[0..<count])
                self.stderrLock.unlock()
            }
            self?.stderrClosed.signal()
            try? reader.close()
        }
        thread.start()
    }

    public var stderr: String {
        stderrLock.lock()
        defer { stderrLock.unlock() }
        return String(decoding: stderrData, as: UTF8.self)
    }

    // MARK: - Sending

    /// Writes everything, or stops early when the server has closed its stdin (returns false).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        writeAll(bytes, to: input.fileHandleForWriting.fileDescriptor)
    }

    @discardableResult
    public func write(_ text: String) -> Bool {
        write(Array(text.utf8))
    }

    /// One message in LSP framing.
    public func sendLSP(_ json: String) {
        write("Content-Length: \(json.utf8.count)\r\n\r\n\(json)")
    }

    /// One message as a line of newline-delimited JSON.
    public func sendLine(_ json: String) {
        write(json + "\n")
    }

    public func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    public func closeOutput() {
        try? output.fileHandleForReading.close()
    }

    // MARK: - Receiving

    public struct Timeout: Error, CustomStringConvertible {
        public let description: String
    }

    /// The next message the server writes, waiting at most `timeout` seconds.
    public func next(timeout: Double = 60) throws -> JSON {
        let deadline = Date().addingTimeInterval(timeout)
        while received.isEmpty {
            guard let chunk = try readChunk(until: deadline) else {
                throw Timeout(description: "stdout ended with no message; stderr: \(stderr)")
            }
            for event in chunk.withUnsafeBufferPointer({ decoder.feed($0) }) {
                guard case .message(let bytes) = event else {
                    throw Timeout(description: "server wrote a bad frame: \(event)")
                }
                received.append(try JSONParser.parse(bytes))
            }
        }
        return received.removeFirst()
    }

    /// Every message until the server closes stdout.
    public func readToEnd(timeout: Double = 60) throws -> [JSON] {
        let deadline = Date().addingTimeInterval(timeout)
        var all = received
        received = []
        while let chunk = try readChunk(until: deadline) {
            for event in chunk.withUnsafeBufferPointer({ decoder.feed($0) }) {
                guard case .message(let bytes) = event else { throw Timeout(description: "server wrote a bad frame: \(event)") }
                all.append(try JSONParser.parse(bytes))
            }
        }
        return all
    }

    /// All of stdout as raw bytes (for the non-protocol outputs: --help, --version).
    public func readChunkedToEnd(timeout: Double = 60) throws -> [UInt8] {
        let deadline = Date().addingTimeInterval(timeout)
        var bytes: [UInt8] = []
        while let chunk = try readChunk(until: deadline) { bytes += chunk }
        return bytes
    }

    /// Raw bytes from stdout, or nil at end of file.
    public func readChunk(until deadline: Date) throws -> [UInt8]? {
        do {
            return try output.fileHandleForReading.readChunk(until: deadline).map { Array($0) }
        } catch is FileHandle.ReadTimeout {
            throw Timeout(description: "no output within the time limit; stderr: \(stderr)")
        }
    }

    /// Sends a request and returns its response, failing if anything else comes first.
    public func call(_ id: Int, _ method: String, _ params: String? = nil, lsp: Bool = false) throws -> JSON {
        let json = #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)""# + (params.map { #","params":\#($0)"# } ?? "") + "}"
        lsp ? sendLSP(json) : sendLine(json)
        return try next()
    }

    /// Sends `initialize` as a line of JSON and returns its response.
    @discardableResult
    public func initialize(_ params: String = #"{"clientInfo":{"name":"e2e"}}"#) throws -> JSON {
        sendLine(#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":\#(params)}"#)
        return try next()
    }

    /// The changes of the `tasks/didChange` notifications that arrive until `count` changes
    /// have come (failing if anything else arrives, or nothing for `timeout` seconds).
    public func didChanges(count: Int, timeout: Double = 60) throws -> [JSON] {
        var changes: [JSON] = []
        while changes.count < count {
            let message = try next(timeout: timeout)
            guard message["method"] == "tasks/didChange", let batch = message["params"]?["changes"]?.arrayValue else {
                throw Timeout(description: "expected tasks/didChange, got \(JSONWriter.string(message))")
            }
            changes += batch
        }
        return changes
    }

    // MARK: - The process

    public var pid: Int32 { process.processIdentifier }

    /// The most memory the process has held (VmHWM), in KiB; nil once it has exited.
    public var peakResidentKilobytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    /// CPU time the process has used (user and system), in clock ticks; nil once it has exited.
    public var cpuTicks: Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ")?.upperBound
        else { return nil }
        // After the name: state is field 3, utime and stime are fields 14 and 15.
        let fields = stat[afterName...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    // MARK: - Exit

    /// Waits for the process to end; nil if it is still running after `timeout` seconds.
    public func waitForExit(timeout: Double = 60) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let status = exitStatus() {
                _ = stderrClosed.wait(timeout: .now() + 2)  // so that `stderr` holds everything it wrote
                return status
            }
            guard Date() < deadline else { return nil }
            usleep(5_000)
        }
    }

    /// The exit code (128 + the signal for a killed process), or nil while it runs.
    private func exitStatus() -> Int32? {
        guard !process.isRunning else { return nil }
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }
}
