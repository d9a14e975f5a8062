import TaskModel

/// The dates people type (`tomorrow`, `fri`, `+3d`, `2026-12-05T17:00`) and the way dates
/// are shown to them (`tomorrow`, `in 3 days`, `2 days overdue`). Pure functions of the
/// text, the current time and the calendar.
public enum PeopleDates {
    /// What `due:`, `wait:`, `--due` and the filters take, for messages and help.
    public static let accepted =
        "today, tomorrow, yesterday, a weekday (mon … sunday), a day of the month (1st … 31st), "
        + "sod, sow, som, soy, eod, eow, eom, eoy, next-week, next-month, next-year, later (someday), now, "
        + "+3d, 2w, 1m, 1y, 4h, 2026-12-05, a time of day (9am, 5:30pm, 17:30, noon: the next one), "
        + "a day and a time of day (fri 9am, tomorrow 17:30), 2026-12-05T17:00 (local time) or an RFC 3339 time"

    public static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// The wire text for `text`: a date (`2026-12-05`) for the forms that name a day, an
    /// RFC 3339 time with the local offset for those with a time of day. Nil when `text` is
    /// none of the accepted forms. `now`: milliseconds since the epoch.
    public static func parse(_ text: String, now: Int64, calendar: LocalCalendar) -> String? {
        let word = text.lowercased()
        let today = calendar.day(ofMilliseconds: now)
        let nowSeconds = floorDiv(now, 1000)
        let nowLocal = nowSeconds + calendar.offsetAt(nowSeconds)
        if let ofDay = clock(word) {
            // The next such time: today's if it is still ahead, else tomorrow's.
            let todays = today * 86_400 + ofDay
            return calendar.rfc3339(local: todays > nowLocal ? todays : todays + 86_400)
        }
        let parts = word.split(separator: " ")
        if parts.count == 2, let ofDay = clock(String(parts[1])), let day = parse(String(parts[0]), now: now, calendar: calendar),
            day.utf8.count == 10, let midnight = Timestamp.parse(day)
        {
            return calendar.rfc3339(local: midnight / 1000 + ofDay)
        }
        let (year, month, dayOfMonth) = Timestamp.civil(fromDays: today)
        switch word {
        case "today", "sod", "eod": return dateText(today)
        case "tomorrow": return dateText(today + 1)
        case "yesterday": return dateText(today - 1)
        case "now": return calendar.rfc3339(local: nowLocal)
        case "sow": return dateText(today - weekday(of: today))
        case "eow": return dateText(today + (6 - weekday(of: today)))
        case "next-week", "sonw": return dateText(today - weekday(of: today) + 7)
        case "som": return dateText(Timestamp.days(fromCivil: year, month, 1))
        case "eom": return dateText(Timestamp.days(fromCivil: year, month, Timestamp.daysIn(month: month, year: year)))
        case "next-month", "sonm": return dateText(addMonths(1, to: Timestamp.days(fromCivil: year, month, 1)))
        case "soy": return dateText(Timestamp.days(fromCivil: year, 1, 1))
        case "eoy": return dateText(Timestamp.days(fromCivil: year, 12, 31))
        case "next-year", "sony": return dateText(Timestamp.days(fromCivil: year + 1, 1, 1))
        // Taskwarrior's far future: a date no plan reaches, still an ordinary date.
        case "later", "someday": return "9999-12-30"
        default: break
        }
        if let date = ordinal(word) {
            // The next such day after today, in the first month that has it (`31st` in
            // February is March's).
            var monthIndex = year * 12 + (month - 1) + (date > dayOfMonth ? 0 : 1)
            while true {
                let candidateYear = floorDiv(monthIndex, 12)
                let candidateMonth = monthIndex - candidateYear * 12 + 1
                if date <= Timestamp.daysIn(month: candidateMonth, year: candidateYear) {
                    return dateText(Timestamp.days(fromCivil: candidateYear, candidateMonth, date))
                }
                monthIndex += 1
            }
        }
        if word.count >= 3, let index = weekdays.firstIndex(where: { $0.hasPrefix(word) }) {
            // The next such day after today: `fri` on a Friday is a week away.
            let ahead = (Int64(index) - weekday(of: today) + 6) % 7 + 1
            return dateText(today + ahead)
        }
        if let offset = relative(word) {
            switch offset.unit {
            case "d": return dateText(today + offset.count)
            case "w": return dateText(today + 7 * offset.count)
            case "m": return dateText(addMonths(offset.count, to: today))
            case "y": return dateText(addMonths(12 * offset.count, to: today))
            default: return calendar.rfc3339(local: nowLocal + offset.count * 3600)
            }
        }
        if let local = localDateTime(text) {
            return calendar.rfc3339(local: local)
        }
        return Timestamp.parse(text) != nil ? text : nil
    }

    /// `1st`, `2nd`, `23rd`, `15th`, up to `31st`: the day of the month; nil for anything else.
    private static func ordinal(_ word: String) -> Int64? {
        let digits = word.prefix { $0.isASCII && $0.isNumber }
        guard (1...2).contains(digits.count), digits.first != "0", let day = Int64(digits), (1...31).contains(day) else { return nil }
        let suffix: String
        switch (day % 10, day / 10 == 1) {
        case (1, false): suffix = "st"
        case (2, false): suffix = "nd"
        case (3, false): suffix = "rd"
        default: suffix = "th"
        }
        return word.dropFirst(digits.count) == suffix ? day : nil
    }

    /// `9am`, `12pm`, `5:30pm`, `17:30`, `noon`: seconds into the day; nil for anything else.
    public static func clock(_ word: String) -> Int64? {
        if word.lowercased() == "noon" { return 12 * 3600 }
        var text = Substring(word.lowercased())
        var afternoon: Bool?
        if text.hasSuffix("am") || text.hasSuffix("pm") {
            afternoon = text.hasSuffix("pm")
            text = text.dropLast(2)
        }
        let pieces = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(pieces.count), afternoon != nil || pieces.count == 2,
            pieces.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let hour = Int64(pieces[0]), let minute = pieces.count == 2 ? Int64(pieces[1]) : 0,
            pieces.count == 1 || pieces[1].count == 2, minute < 60
        else { return nil }
        switch afternoon {
        case nil: return hour < 24 ? hour * 3600 + minute * 60 : nil
        case let pm?:
            guard (1...12).contains(hour) else { return nil }
            return ((hour % 12) + (pm ? 12 : 0)) * 3600 + minute * 60
        }
    }

    /// `+3d`, `3d`, `-2w`, `1m`, `4h`: a signed count and its unit.
    private static func relative(_ word: String) -> (count: Int64, unit: Character)? {
        guard let unit = word.last, "dwmyh".contains(unit) else { return nil }
        var digits = word.dropLast()
        var sign: Int64 = 1
        if digits.first == "+" {
            digits = digits.dropFirst()
        } else if digits.first == "-" {
            sign = -1
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy(\.isASCII), let count = Int64(digits) else { return nil }
        return (sign * count, unit)
    }

    /// `2026-12-05T17:00`, `2026-12-05T17:00:30` or with a space for the T: local
    /// wall-clock seconds since the epoch.
    private static func localDateTime(_ text: String) -> Int64? {
        let parts = text.split(whereSeparator: { $0 == "T" || $0 == "t" || $0 == " " })
        guard parts.count == 2, parts[0].count == 10, let midnight = Timestamp.parse(String(parts[0])) else { return nil }
        let clock = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(clock.count), clock.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int64(clock[0]), let minute = Int64(clock[1]), hour < 24, minute < 60
        else { return nil }
        let second = clock.count == 3 ? Int64(clock[2]) ?? 99 : 0
        guard second < 60 else { return nil }
        return midnight / 1000 + hour * 3600 + minute * 60 + second
    }

    private static func addMonths(_ months: Int64, to day: Int64) -> Int64 {
        let (year, month, date) = Timestamp.civil(fromDays: day)
        let index = year * 12 + (month - 1) + months
        let newYear = floorDiv(index, 12)
        let newMonth = index - newYear * 12 + 1
        return Timestamp.days(fromCivil: newYear, newMonth, min(date, Timestamp.daysIn(month: newMonth, year: newYear)))
    }

    /// 0 for Monday … 6 for Sunday. 1970-01-01 was a Thursday.
    public static func weekday(of day: Int64) -> Int64 {
        ((day + 3) % 7 + 7) % 7
    }

    public static func dateText(_ day: Int64) -> String {
        let (year, month, date) = Timestamp.civil(fromDays: day)
        return "\(pad(year, 4))-\(pad(month))-\(pad(date))"
    }

    /// `17:05` (or `17:05:30`) of a local time in seconds.
    public static func clock(_ local: Int64, seconds: Bool = false) -> String {
        let ofDay = local - floorDiv(local, 86_400) * 86_400
        return "\(pad(ofDay / 3600)):\(pad(ofDay / 60 % 60))" + (seconds ? ":\(pad(ofDay % 60))" : "")
    }

    // MARK: - Showing dates

    /// A due date or wait time, as stored, in the reader's terms.
    public struct Shown: Equatable, Sendable {
        public enum Urgency: Equatable, Sendable {
            case overdue, today, later
        }

        /// `tomorrow`, `in 3 days 17:00`, `2 days overdue`, `2027-01-15`.
        public var relative: String
        /// `2026-12-05` or `2026-12-05 17:00` in local time.
        public var absolute: String
        public var urgency: Urgency
        /// Whole local days from today (negative: past).
        public var days: Int64
    }

    /// Whole local days from today to `stored` (a task's `due` or `wait`; negative: past),
    /// as `show` counts them without the text; nil when it is not a time.
    public static func days(until stored: String, now: Int64, calendar: LocalCalendar) -> Int64? {
        guard let milliseconds = Timestamp.parse(stored) else { return nil }
        // A date is the same day everywhere: it is not moved into the local zone.
        let day = stored.utf8.count == 10 ? floorDiv(milliseconds, 86_400_000) : calendar.day(ofMilliseconds: milliseconds)
        return day - calendar.day(ofMilliseconds: now)
    }

    /// How `stored` (a task's `due` or `wait`) reads at `now`; nil when it is not a time.
    /// `open`: a past date of an open task is overdue; of anything else, just past.
    public static func show(_ stored: String, now: Int64, calendar: LocalCalendar, open: Bool = true) -> Shown? {
        guard let milliseconds = Timestamp.parse(stored) else { return nil }
        let today = calendar.day(ofMilliseconds: now)
        let dateOnly = stored.count == 10
        let day: Int64
        var time = ""
        if dateOnly {
            // A date is the same day everywhere: it is not moved into the local zone.
            day = floorDiv(milliseconds, 86_400_000)
        } else {
            let seconds = floorDiv(milliseconds, 1000)
            let local = seconds + calendar.offsetAt(seconds)
            day = floorDiv(local, 86_400)
            time = clock(local)
        }
        let days = day - today
        let past = dateOnly ? days < 0 : milliseconds < now
        let urgency: Shown.Urgency = open && past ? .overdue : days == 0 ? .today : .later
        var relative: String
        // "2 days overdue" says enough; elsewhere the time of day follows.
        var clockShown = !time.isEmpty
        switch days {
        case 0: relative = "today"
        case 1: relative = "tomorrow"
        case -1 where !open: relative = "yesterday"
        case 2...13: relative = "in \(days) days"
        case ..<0 where open && past:
            relative = "\(-days) day\(days == -1 ? "" : "s") overdue"
            clockShown = false
        case (-13)...(-2): relative = "\(-days) days ago"
        default: relative = dateText(day)
        }
        if clockShown { relative += " " + time }
        return Shown(
            relative: relative, absolute: dateText(day) + (time.isEmpty ? "" : " " + time),
            urgency: urgency, days: days)
    }
}
