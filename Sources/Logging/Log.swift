#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Log lines for people, on stderr. stdout belongs to the protocol, so nothing here ever
/// goes there. Each line is one `write(2)`, so lines from different threads never interleave.
public enum Log {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case error, warning, info, debug

        public init?(name: String) {
            switch name {
            case "error": self = .error
            case "warning", "warn": self = .warning
            case "info": self = .info
            case "debug": self = .debug
            default: return nil
            }
        }

        public var name: String {
            switch self {
            case .error: "error"
            case .warning: "warning"
            case .info: "info"
            case .debug: "debug"
            }
        }

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    /// Set once at start-up, before any other thread runs.
    nonisolated(unsafe) public static var level: Level = .warning

    public static func error(_ message: @autoclosure () -> String) { log(.error, message) }
    public static func warning(_ message: @autoclosure () -> String) { log(.warning, message) }
    public static func info(_ message: @autoclosure () -> String) { log(.info, message) }
    public static func debug(_ message: @autoclosure () -> String) { log(.debug, message) }

    public static func isEnabled(_ level: Level) -> Bool { level <= self.level }

    private static func log(_ level: Level, _ message: () -> String) {
        guard isEnabled(level) else { return }
        let line = "taskline: \(level.name): \(message())\n"
        let bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written < 0 && errno == EAGAIN {
                // stderr shares its open file with stdout (`2>&1`), which the protocol's
                // writer makes non-blocking: wait for room rather than lose the line, but
                // not for ever, so that a reader that stopped cannot stop the server.
                var poller = pollfd(fd: STDERR_FILENO, events: Int16(POLLOUT), revents: 0)
                if poll(&poller, 1, 5_000) == 0 { return }
                continue
            }
            if written <= 0 { return }
            offset += written
        }
    }
}
