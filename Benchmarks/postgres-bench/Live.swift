import Foundation
import JSON
import PostgreSQL

/// A write on one connection to the news of it on each listening one: the writes go out on
/// a schedule (`writesPerSecond`), each listener notes when it heard of which write and
/// under which seq, and the seqs tell changes missed or heard twice.
struct Live {
    let writes: Int
    let listeners: Int
    let writesPerSecond: Double

    struct Heard {
        var write: Int
        var seq: Int64
        var at: UInt64
    }

    struct Outcome {
        var latencies: [Double] = []
        var missed = 0
        var doubled = 0
        /// The share of the machine's CPU time busy (not idle, not waiting for I/O) meanwhile.
        var busyPercent = 0.0
    }

    /// Runs `listen(number, deadline)` on a thread per listener, then `write(index)` at the
    /// schedule's times, and waits for the listeners.
    func run(listen: @escaping @Sendable (Int, UInt64) -> [Heard], write: (Int) -> Void) -> Outcome {
        let heard = (0..<listeners).map { _ in Box() }
        let deadline = now() + UInt64((Double(writes) / writesPerSecond + 15) * 1e9)
        let busyBefore = CPUTime.now()
        let group = DispatchGroup()
        for (number, box) in heard.enumerated() {
            group.enter()
            Thread {
                box.value = listen(number, deadline)
                group.leave()
            }.start()
        }
        var sent = [UInt64](repeating: 0, count: writes)
        let start = now()
        let interval = UInt64(1e9 / writesPerSecond)
        for index in 0..<writes {
            let due = start + UInt64(index) * interval
            while case let current = now(), current < due { usleep(UInt32(max(1, (due - current) / 2_000))) }
            sent[index] = now()
            write(index)
        }
        group.wait()
        var outcome = Outcome(busyPercent: CPUTime.now().busyPercent(since: busyBefore))
        for box in heard {
            let seqs = Set(box.value.map(\.seq))
            outcome.missed += Set(1...Int64(writes)).subtracting(seqs).count
            outcome.doubled += box.value.count - seqs.count
            outcome.latencies += box.value.map { Double($0.at - sent[$0.write]) / 1e6 }
        }
        return outcome
    }

    private final class Box: @unchecked Sendable {
        var value: [Heard] = []
    }

    /// A listening server's tasks/didChange lines, kept as they come and read after the run,
    /// so that reading one does not delay the next; each write is known by its task's title.
    static func listen(to server: Server, writes: Int, deadline: UInt64) -> [Heard] {
        var lines: [(line: ArraySlice<UInt8>, at: UInt64)] = []
        var changes = 0
        while changes < writes, let line = server.line(by: deadline) {
            guard Server.isNotification(line) else { continue }
            lines.append((line, server.lastReadAt))
            changes += occurrences(of: Array(#""kind":"#.utf8), in: line)
        }
        return lines.flatMap { line, at -> [Heard] in
            guard let json = try? JSONParser.parse(line), json["method"]?.stringValue == "tasks/didChange" else { return [] }
            return (json["params"]?["changes"]?.arrayValue ?? []).compactMap { change in
                guard case .integer(let seq) = change["seq"], let title = change["task"]?["title"]?.stringValue,
                    let write = Int(title.dropFirst("live ".count))
                else { return nil }
                return Heard(write: write, seq: seq, at: at)
            }
        }
    }

    private static func occurrences(of needle: [UInt8], in line: ArraySlice<UInt8>) -> Int {
        var count = 0
        var index = line.startIndex
        while let first = line[index...].firstIndex(of: needle[0]) {
            if line[first...].starts(with: needle) { count += 1 }
            index = first + 1
        }
        return count
    }

    /// The baseline's listener: LISTEN, and on each wake-up the log read a woken server runs;
    /// a change is heard when that read returns it.
    /// One writer on one connection: write n (from 0) has seq n + 1.
    static func listen(on connection: PostgresConnection, channel: String, writes: Int, deadline: UInt64) -> [Heard] {
        var heard: [Heard] = []
        var last: Int64 = 0
        while heard.count < writes, now() < deadline {
            // A notification that came with the last read's answer is queued already.
            if connection.notifications().isEmpty {
                var target = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
                guard poll(&target, 1, 100) > 0 else { continue }
                try! connection.consumeInput()
                guard !connection.notifications().isEmpty else { continue }
            }
            var seqs: [Int64]
            repeat {
                seqs = try! Baseline.changes(since: last, on: connection)
                let at = now()
                heard += seqs.map { Heard(write: Int($0) - 1, seq: $0, at: at) }
                last = seqs.last ?? last
            } while seqs.count == 100
        }
        return heard
    }
}

/// The machine's CPU time so far, from /proc/stat's first line.
struct CPUTime {
    var total = 0.0
    var idle = 0.0

    static func now() -> CPUTime {
        let stat = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)) ?? ""
        let fields = stat.split(separator: "\n").first?.split(separator: " ").dropFirst().compactMap { Double($0) } ?? []
        // user nice system idle iowait irq softirq steal; guests are counted in user.
        guard fields.count >= 8 else { return CPUTime() }
        return CPUTime(total: fields.prefix(8).reduce(0, +), idle: fields[3] + fields[4])
    }

    func busyPercent(since earlier: CPUTime) -> Double {
        let total = self.total - earlier.total
        return total > 0 ? (1 - (idle - earlier.idle) / total) * 100 : 0
    }
}
