import Glibc

/// RFC 3339 timestamps, written and read by hand: this is on every response's path, and
/// Foundation's formatters cost far more than the few integer operations needed here.
public enum Timestamp {
    /// Milliseconds since the Unix epoch, from the system's real-time clock.
    public static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Appends the RFC 3339 text of `milliseconds` to `out`, `2026-11-29T15:02:11.042Z`:
    /// UTC, always with milliseconds. Bytes, not a String: three of these go into every task
    /// on every response.
    public static func append(milliseconds: Int64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxTextCount) { text in
            let count = write(milliseconds: milliseconds, into: text.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[..<count]))
        }
    }

    /// The most bytes `write(milliseconds:into:)` writes: 24 for the years 0000 to 9999, and
    /// up to 30 for the expanded years of Int64's extremes.
    public static let maxTextCount = 32

    /// Writes the text `append(milliseconds:to:)` appends at `text`, which has room for
    /// `maxTextCount` bytes; returns how many it wrote.
    public static func write(milliseconds: Int64, into text: UnsafeMutablePointer<UInt8>) -> Int {
        let (days, msOfDay) = floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        guard (0...9999).contains(year) else {
            let wide = Array(formatWideYear(year, month, day, msOfDay).utf8.prefix(maxTextCount))
            text.update(from: wide, count: wide.count)
            return wide.count
        }
        /// Two digits of `value` (0…99) at `offset`.
        func two(_ value: Int64, at offset: Int) {
            text[offset] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10)
            text[offset + 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
        }
        let (seconds, millisecond) = (msOfDay / 1000, msOfDay % 1000)
        two(year / 100, at: 0)
        two(year % 100, at: 2)
        text[4] = UInt8(ascii: "-")
        two(month, at: 5)
        text[7] = UInt8(ascii: "-")
        two(day, at: 8)
        text[10] = UInt8(ascii: "T")
        two(seconds / 3600, at: 11)
        text[13] = UInt8(ascii: ":")
        two(seconds / 60 % 60, at: 14)
        text[16] = UInt8(ascii: ":")
        two(seconds % 60, at: 17)
        text[19] = UInt8(ascii: ".")
        text[20] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: millisecond / 100)
        two(millisecond % 100, at: 21)
        text[23] = UInt8(ascii: "Z")
        return 24
    }

    /// Years outside 0…9999 (only reachable through hand-edited data): RFC 3339 has no form
    /// for them, so they are written as ISO 8601's expanded years.
    private static func formatWideYear(_ year: Int64, _ month: Int64, _ day: Int64, _ msOfDay: Int64) -> String {
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(year < 0 ? "-" : "+")\(pad(abs(year), 6))-\(pad(month, 2))-\(pad(day, 2))T\(pad(msOfDay / 3_600_000, 2)):"
            + "\(pad(msOfDay / 60_000 % 60, 2)):\(pad(msOfDay / 1000 % 60, 2)).\(pad(msOfDay % 1000, 3))Z"
    }

    /// Reads an RFC 3339 `date-time` (`2026-12-01T17:00:00.5+01:00`, `…Z`) or a `full-date`
    /// (`2026-12-01`, taken as midnight UTC) and returns milliseconds since the epoch,
    /// or nil when the text is not one of those. Fractions below a millisecond are dropped.
    public static func parse(_ text: String) -> Int64? {
        var reader = DigitReader(Array(text.utf8))
        guard let year = reader.number(4), reader.skip("-"),
            let month = reader.number(2), reader.skip("-"),
            let day = reader.number(2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let dayStart = days(fromCivil: year, month, day) * 86_400_000
        if reader.atEnd { return dayStart }

        guard reader.skip("T") || reader.skip("t"),
            let hour = reader.number(2), reader.skip(":"),
            let minute = reader.number(2), reader.skip(":"),
            let second = reader.number(2),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        var millis: Int64 = 0
        if reader.skip(".") {
            var digits = 0
            while let digit = reader.digit() {
                if digits < 3 { millis = millis * 10 + Int64(digit) }
                digits += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { millis *= 10 }
        }
        var offsetMinutes: Int64 = 0
        if reader.skip("Z") || reader.skip("z") {
            offsetMinutes = 0
        } else {
            let sign: Int64
            if reader.skip("+") { sign = 1 } else if reader.skip("-") { sign = -1 } else { return nil }
            guard let offsetHour = reader.number(2), reader.skip(":"), let offsetMinute = reader.number(2),
                offsetHour < 24, offsetMinute < 60
            else { return nil }
            offsetMinutes = sign * (offsetHour * 60 + offsetMinute)
        }
        guard reader.atEnd else { return nil }
        let local = dayStart + (hour * 3600 + minute * 60 + second) * 1000 + millis
        return local - offsetMinutes * 60_000
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, after Howard Hinnant's algorithms)

    public static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    public static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// For every `a`, Int64.min included (a time another program stored): nothing overflows.
    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = a.quotientAndRemainder(dividingBy: b)
        return remainder < 0 ? (quotient - 1, remainder + b) : (quotient, remainder)
    }
}

private struct DigitReader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { position == bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    mutating func digit() -> Int? {
        guard position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) else { return nil }
        defer { position += 1 }
        return Int(bytes[position] - UInt8(ascii: "0"))
    }

    /// Exactly `count` decimal digits.
    mutating func number(_ count: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + Int64(digit)
        }
        return value
    }
}
