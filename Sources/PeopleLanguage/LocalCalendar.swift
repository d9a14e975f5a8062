import TaskModel

#if canImport(Glibc)
import Glibc
#endif

/// Local time: the offset from UTC at each instant, as the time zone (TZ) says.
public struct LocalCalendar: Sendable {
    /// Seconds to add to a UTC time (seconds since the epoch) to get the local wall-clock time.
    public let offsetAt: @Sendable (Int64) -> Int64

    public init(offsetAt: @escaping @Sendable (Int64) -> Int64) {
        self.offsetAt = offsetAt
    }

    /// The process's time zone: TZ, else /etc/localtime.
    public static let system = LocalCalendar { seconds in
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return Int64(parts.tm_gmtoff)
    }

    public static func fixed(offsetSeconds: Int64) -> LocalCalendar {
        LocalCalendar { _ in offsetSeconds }
    }

    /// The IANA time zone `name` (`Europe/Paris`), read from the system's time zone
    /// database (TZDIR, else /usr/share/zoneinfo); nil when it has no such zone.
    public static func named(_ name: String) -> LocalCalendar? {
        ZoneInfo.load(name).map { zone in LocalCalendar { zone.offset(at: $0) } }
    }

    /// The local day (days since 1970-01-01) of a UTC time in milliseconds.
    public func day(ofMilliseconds milliseconds: Int64) -> Int64 {
        let seconds = floorDiv(milliseconds, 1000)
        return floorDiv(seconds + offsetAt(seconds), 86_400)
    }

    /// The UTC time (seconds) of a local wall-clock time (seconds since the epoch, as if
    /// local time were UTC). In a gap (spring forward) or an overlap, the offset found after
    /// one correction is taken, as mktime does.
    public func utcSeconds(ofLocal local: Int64) -> Int64 {
        let guess = local - offsetAt(local)
        return local - offsetAt(guess)
    }

    /// `2026-12-05T17:00:00+01:00`: a local wall-clock time with its offset.
    public func rfc3339(local: Int64) -> String {
        let offset = offsetAt(utcSeconds(ofLocal: local))
        let sign = offset < 0 ? "-" : "+"
        return "\(PeopleDates.dateText(floorDiv(local, 86_400)))T\(PeopleDates.clock(local, seconds: true))"
            + "\(sign)\(pad(abs(offset) / 3600))\(":")\(pad(abs(offset) / 60 % 60))"
    }
}

public func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let (quotient, remainder) = a.quotientAndRemainder(dividingBy: b)
    return remainder < 0 ? quotient - 1 : quotient
}

func pad(_ value: Int64, _ width: Int = 2) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}
