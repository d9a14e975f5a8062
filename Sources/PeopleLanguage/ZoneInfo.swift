import TaskModel

#if canImport(Glibc)
import Glibc
#endif

/// One IANA time zone as the system's database holds it (a TZif file, RFC 8536): its
/// transitions, and the POSIX TZ rule of its footer for the times after the last one.
/// Read without touching the process's TZ, so that each client of a server has its own.
struct ZoneInfo: Sendable {
    /// UTC seconds at which each offset starts, ascending, and the offset from then on.
    let transitions: [Int64]
    let offsets: [Int64]
    /// The offset before the first transition (the file's local time type 0).
    let initialOffset: Int64
    let rule: PosixZoneRule?

    /// `Europe/Paris`: letters, digits, `_`, `-`, `+` and `/`, no `.` component, so that a
    /// name never reaches outside the database.
    static func load(_ name: String) -> ZoneInfo? {
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
        }
        guard !name.isEmpty, name.utf8.count <= 255, allowed, !name.hasPrefix("/"),
            !name.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty)
        else { return nil }
        let directory = getenv("TZDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"
        guard let bytes = read(directory + "/" + name) else { return nil }
        return ZoneInfo(tzif: bytes)
    }

    private static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while bytes.count < 1 << 20 {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    /// Reads a TZif file: the 64-bit block of version 2 and later, else the 32-bit one.
    init?(tzif bytes: [UInt8]) {
        var reader = ByteReader(bytes: bytes)
        guard let header = reader.header() else { return nil }
        var counts = header.counts
        var timeSize = 4
        if header.version >= 2 {
            // Skip the 32-bit block: its times stop at 2038.
            guard reader.skip(counts.dataSize(timeSize: 4)), let second = reader.header() else { return nil }
            counts = second.counts
            timeSize = 8
        }
        var transitions: [Int64] = []
        for _ in 0..<counts.times {
            guard let time = reader.signed(size: timeSize) else { return nil }
            transitions.append(time)
        }
        var typeIndices: [Int] = []
        for _ in 0..<counts.times {
            guard let index = reader.signed(size: 1) else { return nil }
            typeIndices.append(Int(UInt8(truncatingIfNeeded: index)))
        }
        var typeOffsets: [Int64] = []
        for _ in 0..<counts.types {
            guard let offset = reader.signed(size: 4), reader.skip(2) else { return nil }
            typeOffsets.append(offset)
        }
        guard !typeOffsets.isEmpty, typeIndices.allSatisfy({ $0 < typeOffsets.count }) else { return nil }
        guard reader.skip(counts.charCount + counts.leaps * (timeSize + 4) + counts.standardFlags + counts.utFlags) else { return nil }
        self.transitions = transitions
        offsets = typeIndices.map { typeOffsets[$0] }
        initialOffset = typeOffsets[0]
        rule = header.version >= 2 ? reader.footer().flatMap(PosixZoneRule.init) : nil
    }

    /// Seconds to add to the UTC time `seconds` for the zone's wall-clock time.
    func offset(at seconds: Int64) -> Int64 {
        guard let last = transitions.last else { return rule?.offset(at: seconds) ?? initialOffset }
        if seconds >= last, let rule { return rule.offset(at: seconds) }
        // The last transition at or before `seconds`.
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= seconds { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? initialOffset : offsets[low - 1]
    }
}

/// A TZif file's bytes, read big-endian from the front.
private struct ByteReader {
    struct Counts {
        var utFlags = 0, standardFlags = 0, leaps = 0, times = 0, types = 0, charCount = 0

        func dataSize(timeSize: Int) -> Int {
            times * timeSize + times + types * 6 + charCount + leaps * (timeSize + 4) + standardFlags + utFlags
        }
    }

    let bytes: [UInt8]
    var position = 0

    mutating func header() -> (version: Int, counts: Counts)? {
        guard position + 44 <= bytes.count, Array(bytes[position..<position + 4]) == Array("TZif".utf8) else { return nil }
        let version = bytes[position + 4] == 0 ? 1 : Int(bytes[position + 4]) - 0x30
        position += 20
        var values: [Int] = []
        for _ in 0..<6 {
            guard let value = signed(size: 4), value >= 0, value < 1 << 20 else { return nil }
            values.append(Int(value))
        }
        return (
            version,
            Counts(
                utFlags: values[0], standardFlags: values[1], leaps: values[2], times: values[3],
                types: values[4], charCount: values[5])
        )
    }

    mutating func skip(_ count: Int) -> Bool {
        guard position + count <= bytes.count else { return false }
        position += count
        return true
    }

    mutating func signed(size: Int) -> Int64? {
        guard position + size <= bytes.count else { return nil }
        var value: UInt64 = 0
        for byte in bytes[position..<position + size] { value = value << 8 | UInt64(byte) }
        position += size
        let shift = UInt64(64 - 8 * size)
        return Int64(bitPattern: value << shift) >> Int64(shift)
    }

    /// The text between the two newlines after the data.
    mutating func footer() -> String? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\n") else { return nil }
        let rest = bytes[(position + 1)...]
        guard let end = rest.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        return String(decoding: rest[..<end], as: UTF8.self)
    }
}

/// A POSIX TZ rule (`CET-1CEST,M3.5.0,M10.5.0/3`): a standard offset, and a daylight one
/// between two yearly dates. Offsets here are seconds east of UTC (POSIX writes west).
struct PosixZoneRule: Sendable {
    /// A yearly date: `Mm.w.d` (the w-th weekday d of month m, 5 the last), `Jn` (day n of
    /// 365, February 29th never counted) or `n` (day n from 0, leap days counted).
    enum Day: Sendable {
        case monthWeekDay(month: Int64, week: Int64, weekday: Int64)
        case julian(Int64)
        case zeroBased(Int64)

        /// Days since 1970-01-01 of this date in `year`.
        func day(in year: Int64) -> Int64 {
            let newYear = Timestamp.days(fromCivil: year, 1, 1)
            switch self {
            case .julian(let n):
                let leap = Timestamp.daysIn(month: 2, year: year) == 29
                return newYear + n - 1 + (leap && n >= 60 ? 1 : 0)
            case .zeroBased(let n):
                return newYear + n
            case .monthWeekDay(let month, let week, let weekday):
                let first = Timestamp.days(fromCivil: year, month, 1)
                let firstWeekday = (PeopleDates.weekday(of: first) + 1) % 7  // 0: Sunday, as POSIX counts
                var date = (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
                while date >= Timestamp.daysIn(month: month, year: year) { date -= 7 }
                return first + date
            }
        }
    }

    let standard: Int64
    let daylight: (offset: Int64, start: Day, startTime: Int64, end: Day, endTime: Int64)?

    init?(_ text: String) {
        var scanner = Scanner(text: Array(text.utf8))
        guard scanner.name(), let standardWest = scanner.offset() else { return nil }
        standard = -standardWest
        guard !scanner.atEnd else {
            daylight = nil
            return
        }
        guard scanner.name() else { return nil }
        var daylightOffset = standard + 3600
        if !scanner.peek(",") {
            guard let west = scanner.offset() else { return nil }
            daylightOffset = -west
        }
        guard scanner.take(","), let start = scanner.day() else { return nil }
        let startTime = scanner.take("/") ? scanner.offset() : 7200
        guard let startTime, scanner.take(","), let end = scanner.day() else { return nil }
        let endTime = scanner.take("/") ? scanner.offset() : 7200
        guard let endTime, scanner.atEnd else { return nil }
        daylight = (daylightOffset, start, startTime, end, endTime)
    }

    func offset(at seconds: Int64) -> Int64 {
        guard let daylight else { return standard }
        let year = Timestamp.civil(fromDays: floorDiv(seconds + standard, 86_400)).year
        // The start is written in standard time, the end in daylight time.
        let start = daylight.start.day(in: year) * 86_400 + daylight.startTime - standard
        let end = daylight.end.day(in: year) * 86_400 + daylight.endTime - daylight.offset
        let inDaylight = start < end ? (start <= seconds && seconds < end) : !(end <= seconds && seconds < start)
        return inDaylight ? daylight.offset : standard
    }

    private struct Scanner {
        let text: [UInt8]
        var position = 0

        var atEnd: Bool { position == text.count }

        func peek(_ character: Character) -> Bool {
            position < text.count && text[position] == character.asciiValue!
        }

        mutating func take(_ character: Character) -> Bool {
            guard peek(character) else { return false }
            position += 1
            return true
        }

        /// `CET`, or `<+03>`: at least three characters.
        mutating func name() -> Bool {
            let start = position
            if take("<") {
                while position < text.count, text[position] != UInt8(ascii: ">") { position += 1 }
                return take(">") && position - start >= 5
            }
            while position < text.count, (text[position] | 0x20) >= UInt8(ascii: "a"), (text[position] | 0x20) <= UInt8(ascii: "z") {
                position += 1
            }
            return position - start >= 3
        }

        mutating func number() -> Int64? {
            let start = position
            var value: Int64 = 0
            while position < text.count, position - start < 3, text[position] >= 0x30, text[position] <= 0x39 {
                value = value * 10 + Int64(text[position] - 0x30)
                position += 1
            }
            return position > start ? value : nil
        }

        /// `[+-]hh[:mm[:ss]]`, in seconds.
        mutating func offset() -> Int64? {
            let sign: Int64 = take("-") ? -1 : (take("+") ? 1 : 1)
            guard let hours = number() else { return nil }
            var seconds = hours * 3600
            if take(":") {
                guard let minutes = number() else { return nil }
                seconds += minutes * 60
                if take(":") {
                    guard let rest = number() else { return nil }
                    seconds += rest
                }
            }
            return sign * seconds
        }

        mutating func day() -> Day? {
            if take("M") {
                guard let month = number(), take("."), let week = number(), take("."), let weekday = number(),
                    (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday)
                else { return nil }
                return .monthWeekDay(month: month, week: week, weekday: weekday)
            }
            if take("J") {
                guard let n = number(), (1...365).contains(n) else { return nil }
                return .julian(n)
            }
            guard let n = number(), n <= 365 else { return nil }
            return .zeroBased(n)
        }
    }
}
