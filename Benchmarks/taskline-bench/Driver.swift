import Foundation
import JSON

/// A `taskline` process driven over pipes with newline-delimited JSON, as a script would.
final class Driver {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var nextID = 1
    /// How `readSome` waits for the server; see there.
    var pollsForAnswers = true

    init(binary: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let fd = output.fileHandleForReading.fileDescriptor
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    var pid: Int32 { process.processIdentifier }

    func write(_ bytes: [UInt8]) {
        Self.write(bytes, to: input.fileHandleForWriting.fileDescriptor)
    }

    private static func write(_ bytes: [UInt8], to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            guard written > 0 else { fatalError("write to taskline failed: \(errno)") }
            offset += written
        }
    }

    /// The next line the server writes, without its newline.
    func readLine() -> ArraySlice<UInt8> {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                defer { start = newline + 1 }
                return buffer[start..<newline]
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            let count = readSome()
            guard count > 0 else { fatalError("taskline closed its output") }
            buffer += chunk[0..<count]
        }
    }

    /// Reads what the server has written, waiting for it: by polling for up to a
    /// millisecond when `pollsForAnswers`, then by sleeping in `poll`. A sleeping driver's
    /// own wake-up (its virtual CPU halted meanwhile) would be counted in
    /// every round trip, so timed loops poll, as latency tools such as sockperf's
    /// busy-poll mode do.
    private func readSome() -> Int {
        let fd = output.fileHandleForReading.fileDescriptor
        let sleepAfter = pollsForAnswers ? DispatchTime.now().uptimeNanoseconds + 1_000_000 : 0
        var target = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count >= 0 || errno != EAGAIN { return count }
            if DispatchTime.now().uptimeNanoseconds >= sleepAfter { _ = poll(&target, 1, -1) }
        }
    }

    /// The next response line, skipping notifications; stops the benchmark on an error answer.
    /// It is not decoded: timed loops measure the server and the pipes, not a client's parser.
    func readResponseLine() -> ArraySlice<UInt8> {
        while true {
            let line = readLine()
            // Notifications start with {"jsonrpc":"2.0","method": — responses with "id".
            if line.count > 20, line[line.startIndex + 18] == UInt8(ascii: "m") { continue }
            // An error answer is {"jsonrpc":"2.0","id":…,"error":{…}: the member after the id.
            let head = line.prefix(80)
            if let idEnd = head.dropFirst(22).firstIndex(of: UInt8(ascii: ",")),
                head[(idEnd + 1)...].starts(with: #""error""#.utf8)
            {
                fatalError("taskline answered an error: \(String(decoding: line, as: UTF8.self))")
            }
            return line
        }
    }

    /// The next response, decoded.
    func readResponse() -> JSON {
        let line = readResponseLine()
        guard let json = try? JSONParser.parse(line) else { fatalError("bad line from taskline") }
        return json
    }

    /// Waits for the next notification, skipping anything else.
    func readNotification() {
        while true {
            let line = readLine()
            if line.count > 20, line[line.startIndex + 18] == UInt8(ascii: "m") { return }
        }
    }

    /// CPU time the process has used so far, in seconds (user + system, from /proc).
    func cpuSeconds() -> Double {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        // Fields after the command name, which is in parentheses and may contain spaces.
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func requestLine(_ method: String, _ params: String) -> String {
        defer { nextID += 1 }
        return #"{"jsonrpc":"2.0","id":\#(nextID),"method":"\#(method)","params":\#(params)}"# + "\n"
    }

    /// Sends one request and waits for its answer; returns the result.
    @discardableResult
    func call(_ method: String, _ params: String = "{}") -> JSON {
        write(Array(requestLine(method, params).utf8))
        return readResponse()["result"] ?? JSON.null
    }

    /// A request as the bytes a timed loop sends, made before the clock starts: a round trip
    /// times the pipes and the server, not the making of the request (Foundation's
    /// `String(format:)` for a task id alone costs more than a tenth of a get).
    func request(_ method: String, _ params: String = "{}") -> [UInt8] {
        Array(requestLine(method, params).utf8)
    }

    /// Sends `request` and waits for its answer without decoding it: what timed loops use.
    func roundTrip(_ request: [UInt8]) {
        write(request)
        _ = readResponseLine()
    }

    /// Sends `lines` from another thread while reading `lines.count` responses here, so
    /// neither side waits for the other: the pipelined case.
    func pipeline(_ lines: [String]) {
        let bytes = Array(lines.joined().utf8)
        let fd = input.fileHandleForWriting.fileDescriptor
        let writer = Thread { Self.write(bytes, to: fd) }
        writer.start()
        for _ in lines { _ = readResponseLine() }
    }

    func initialize(notifications: Bool = true) {
        call("initialize", #"{"initializationOptions":{"notifications":\#(notifications)}}"#)
    }

    func shutdown() {
        call("shutdown")
        write(Array(#"{"jsonrpc":"2.0","method":"exit"}"#.utf8) + [10])
        process.waitUntilExit()
    }

    /// Peak and current resident memory, in KiB, from /proc.
    func memory() -> (peak: Int, current: Int) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name) } ?? ""
            return Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "0") ?? 0
        }
        return (field("VmHWM:"), field("VmRSS:"))
    }
}

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ samples: [Double]) -> Double {
    percentile(0.5, of: samples)
}

/// The sample that `fraction` of the others are at most: 0.99 for the 99th percentile.
func percentile(_ fraction: Double, of samples: [Double]) -> Double {
    samples.sorted()[min(samples.count - 1, Int(Double(samples.count) * fraction))]
}

/// Runs `body` `count` times and returns each run's time, in microseconds.
func microseconds(_ count: Int, _ body: () -> Void) -> [Double] {
    (0..<count).map { _ in seconds(body) * 1e6 }
}

/// Runs `body` `count` times and returns the median time of one run, in microseconds.
func medianMicroseconds(_ count: Int, _ body: () -> Void) -> Double {
    median(microseconds(count, body))
}

/// Runs each of `bodies` in turn, `count` rounds, and returns each one's median time in
/// microseconds. Taken side by side, every figure sees the same machine: this VM's speed
/// drifts, by 2× for seconds at a time, more than the differences being measured.
func interleavedMedianMicroseconds(_ count: Int, _ bodies: [() -> Void]) -> [Double] {
    var samples = Array(repeating: [Double](), count: bodies.count)
    for _ in 0..<count {
        for (index, body) in bodies.enumerated() { samples[index].append(seconds(body)) }
    }
    return samples.map { median($0) * 1e6 }
}

/// The machine's CPU time so far, from /proc/stat: all of it, and the part the hypervisor
/// gave to other guests ("steal"), which makes a virtual machine's timings drift.
struct CPUTimes {
    var total = 0.0
    var stolen = 0.0

    static func now() -> CPUTimes {
        let stat = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)) ?? ""
        let fields = stat.split(separator: "\n").first?.split(separator: " ").dropFirst().compactMap { Double($0) } ?? []
        // user nice system idle iowait irq softirq steal guest guest_nice; guests are in user.
        return CPUTimes(total: fields.prefix(8).reduce(0, +), stolen: fields.count > 7 ? fields[7] : 0)
    }

    /// Percent of the CPU time since `earlier` that was stolen.
    func stolenPercent(since earlier: CPUTimes) -> Double {
        let total = self.total - earlier.total
        return total > 0 ? (stolen - earlier.stolen) / total * 100 : 0
    }
}
