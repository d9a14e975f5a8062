import Foundation
import JSON

/// A `taskline --db …` process, driven over its stdin and stdout with newline-delimited JSON.
/// Each one is used by one thread at a time, but for `send`, which another thread may call
/// while one reads (pipelining).
final class Server: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []
    private var start = 0
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var nextID = 1
    /// Waits for output by spinning rather than by sleeping in `poll`, whose wake-up would be
    /// timed in every lock-step round trip. Off where many readers share the two cores.
    var spins = false
    /// When the latest output was read (uptime ns): when the server's last line arrived.
    private(set) var lastReadAt: UInt64 = 0

    init(binary: String, db: String) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--db", db, "--log-level", "error"]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let fd = output.fileHandleForReading.fileDescriptor
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    func send(_ bytes: [UInt8]) {
        let fd = input.fileHandleForWriting.fileDescriptor
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            guard written > 0 else { fatalError("write to taskline failed: \(errno)") }
            offset += written
        }
    }

    /// A request line, id included, ready to send.
    func request(_ method: String, _ params: String = "{}") -> [UInt8] {
        defer { nextID += 1 }
        return Array(#"{"jsonrpc":"2.0","id":\#(nextID),"method":"\#(method)","params":\#(params)}"#.utf8) + [10]
    }

    /// The next line, without its newline; nil when none came by `deadline` (uptime ns).
    func line(by deadline: UInt64 = .max) -> ArraySlice<UInt8>? {
        let fd = output.fileHandleForReading.fileDescriptor
        while true {
            if let newline = buffer[start...].firstIndex(of: 10) {
                defer { start = newline + 1 }
                return buffer[start..<newline]
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            let count = read(fd, &chunk, chunk.count)
            if count > 0 {
                lastReadAt = DispatchTime.now().uptimeNanoseconds
                buffer += chunk[0..<count]
                continue
            }
            guard count < 0, errno == EAGAIN else { fatalError("taskline closed its output") }
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= deadline { return nil }
            if !spins {
                var target = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let wait = deadline == .max ? -1 : Int32(min((deadline - now) / 1_000_000 + 1, 1_000))
                _ = poll(&target, 1, wait)
            }
        }
    }

    /// The next response, skipping notifications; stops the benchmark on an error answer.
    func response() -> ArraySlice<UInt8> {
        while true {
            let line = line()!
            if Self.isNotification(line) { continue }
            // {"jsonrpc":"2.0","id":N,"error":… — the member after the id.
            if let comma = line.dropFirst(22).prefix(24).firstIndex(of: UInt8(ascii: ",")),
                line[(comma + 1)...].starts(with: #""error""#.utf8)
            {
                fatalError("taskline answered an error: \(String(decoding: line, as: UTF8.self))")
            }
            return line
        }
    }

    /// {"jsonrpc":"2.0","method":… — a response has "id" there.
    static func isNotification(_ line: ArraySlice<UInt8>) -> Bool {
        line.count > 20 && line[line.startIndex + 18] == UInt8(ascii: "m")
    }

    @discardableResult
    func call(_ method: String, _ params: String = "{}") -> JSON {
        send(request(method, params))
        guard let json = try? JSONParser.parse(response()) else { fatalError("bad line from taskline") }
        return json["result"] ?? .null
    }

    func initialize(notifications: Bool) {
        call("initialize", #"{"initializationOptions":{"notifications":\#(notifications)}}"#)
    }

    func shutdown() {
        call("shutdown")
        send(Array(#"{"jsonrpc":"2.0","method":"exit"}"#.utf8) + [10])
        process.waitUntilExit()
    }
}
