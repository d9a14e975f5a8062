/// A task's recurrence: the subset of RFC 5545's RRULE (§3.3.10) that Taskline reads —
/// `FREQ` (`DAILY`, `WEEKLY`, `MONTHLY`, `YEARLY`), `INTERVAL`, `BYDAY`, `BYMONTHDAY`,
/// `COUNT` and `UNTIL` — with RFC 7529's `RSCALE=GREGORIAN` and `SKIP`, and the next due
/// date it gives.
///
/// The rule runs on the due date as written: the date part of `due` is the date of an
/// occurrence (its offset is not applied), the time of day and offset are kept. Weeks start
/// on Monday (RFC 5545's default `WKST`). An occurrence's due is the series' start for the
/// next one, as DTSTART is: it counts even when the rule would not generate it, and periods
/// (`INTERVAL`) are counted from its day, week, month or year.
///
/// `COUNT` is the number of occurrences left, this one included: the next occurrence's rule
/// says one fewer, and completing an occurrence whose rule says `COUNT=1` makes none. So a
/// rule of `COUNT=3` makes three occurrences in all, as RFC 5545 counts DTSTART as the first.
///
/// `SKIP` (RFC 7529) says what a monthly rule does in a month without its day (the 29th to
/// 31st): `OMIT` (RFC 5545's way, the default) skips the month, `BACKWARD` takes the month's
/// last day, `FORWARD` the next month's first. So that the day does not drift (January 31st,
/// February 28th, then March 31st), a moved occurrence's rule names the day it stands for:
/// `BYMONTHDAY=31` is added to its text when the rule had none.
public struct RecurrenceRule: Sendable, Hashable {
    public enum Frequency: String, Sendable {
        case daily = "DAILY"
        case weekly = "WEEKLY"
        case monthly = "MONTHLY"
        case yearly = "YEARLY"
    }

    /// A `BYDAY` element: a weekday (0 Monday … 6 Sunday), and for `MONTHLY` and `YEARLY` an
    /// optional ordinal (`2MO` the second Monday, `-1FR` the last Friday of the period).
    /// RFC 7529's `SKIP`: what becomes of a day the month lacks.
    package enum Skip: String, Hashable, Sendable {
        case omit = "OMIT"
        case backward = "BACKWARD"
        case forward = "FORWARD"
    }

    package struct Weekday: Hashable, Sendable {
        var ordinal: Int?
        var day: Int
    }

    /// `UNTIL`: a date (`20261231`), or a UTC date-time (`20261231T235959Z`) in ms.
    package enum Until: Hashable, Sendable {
        case date(days: Int64)
        case instant(milliseconds: Int64)
    }

    public let frequency: Frequency
    public let interval: Int
    package let weekdays: [Weekday]
    package let monthDays: [Int]
    public let count: Int?
    package let until: Until?
    package let skip: Skip

    public static let maxLength = 256
    public static let intervals = 1...10_000
    public static let counts = 1...100_000
    package static let weekdayNames = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

    /// Reads `text`, refusing with `TaskStoreError.invalid` (naming `field`) what is not in
    /// the subset or breaks RFC 5545's rules for it.
    public init(_ text: String, field: String) throws {
        func refuse(_ reason: String) -> TaskStoreError { .invalid(field: field, reason: reason) }
        guard text.unicodeScalars.count <= Self.maxLength else { throw refuse("must be at most \(Self.maxLength) characters") }
        var seen: Set<String> = []
        var frequency: Frequency?
        var interval = 1
        var count: Int?
        var until: Until?
        var weekdays: [Weekday] = []
        var monthDays: [Int] = []
        var skip = Skip.omit
        var calendarScale = false
        for part in text.split(separator: ";", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pieces.count == 2, !pieces[0].isEmpty, !pieces[1].isEmpty else {
                throw refuse("must be RFC 5545 rule parts NAME=VALUE joined by ';' (FREQ=WEEKLY;BYDAY=MO,TH)")
            }
            let name = pieces[0].uppercased()
            let value = pieces[1].uppercased()
            guard seen.insert(name).inserted else { throw refuse("has \(name) twice") }
            switch name {
            case "FREQ":
                guard let known = Frequency(rawValue: value) else { throw refuse("FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY") }
                frequency = known
            case "INTERVAL":
                guard let number = Self.number(value[...]), Self.intervals.contains(number) else {
                    throw refuse("INTERVAL must be an integer from \(Self.intervals.lowerBound) to \(Self.intervals.upperBound)")
                }
                interval = number
            case "COUNT":
                guard let number = Self.number(value[...]), Self.counts.contains(number) else {
                    throw refuse("COUNT must be an integer from \(Self.counts.lowerBound) to \(Self.counts.upperBound)")
                }
                count = number
            case "UNTIL":
                guard let parsed = Self.until(value) else {
                    throw refuse("UNTIL must be a date (20261231) or a UTC date-time (20261231T235959Z) in the years 0000 to 9999")
                }
                until = parsed
            case "BYDAY":
                weekdays = try value.split(separator: ",", omittingEmptySubsequences: false).map { element in
                    guard let weekday = Self.weekday(element) else {
                        throw refuse("BYDAY must list weekdays (MO, TU, WE, TH, FR, SA, SU), each with an optional ordinal (1MO, -1FR)")
                    }
                    return weekday
                }
            case "BYMONTHDAY":
                monthDays = try value.split(separator: ",", omittingEmptySubsequences: false).map { element in
                    guard let day = Self.signedNumber(element), day != 0, (-31...31).contains(day) else {
                        throw refuse("BYMONTHDAY must list days of the month, 1 to 31 or -31 to -1")
                    }
                    return day
                }
            case "RSCALE":
                guard value == "GREGORIAN" else { throw refuse("RSCALE must be GREGORIAN, the one calendar Taskline has") }
                calendarScale = true
            case "SKIP":
                guard let known = Skip(rawValue: value) else { throw refuse("SKIP must be OMIT, BACKWARD or FORWARD") }
                skip = known
            default:
                throw refuse("\(name) is not supported: a rule has FREQ and may have INTERVAL, BYDAY, BYMONTHDAY, COUNT, UNTIL, RSCALE or SKIP")
            }
        }
        guard let frequency else { throw refuse("must have FREQ") }
        if count != nil && until != nil { throw refuse("must not have both COUNT and UNTIL") }
        if frequency == .weekly && !monthDays.isEmpty { throw refuse("BYMONTHDAY is not allowed with FREQ=WEEKLY") }
        if seen.contains("SKIP") && !calendarScale { throw refuse("SKIP needs RSCALE=GREGORIAN (RFC 7529)") }
        if skip != .omit && frequency != .monthly { throw refuse("SKIP=\(skip.rawValue) needs FREQ=MONTHLY") }
        let ordinals: ClosedRange<Int>? =
            switch frequency {
            case .daily, .weekly: nil
            case .monthly: -5...5
            case .yearly: -53...53
            }
        for weekday in weekdays {
            guard let ordinal = weekday.ordinal else { continue }
            guard let ordinals else { throw refuse("BYDAY ordinals (1MO, -1FR) need FREQ=MONTHLY or FREQ=YEARLY") }
            guard ordinals.contains(ordinal) else {
                throw refuse("a BYDAY ordinal with FREQ=\(frequency.rawValue) is \(ordinals.lowerBound) to \(ordinals.upperBound), not 0")
            }
        }
        self.frequency = frequency
        self.interval = interval
        self.weekdays = weekdays
        self.monthDays = monthDays
        self.count = count
        self.until = until
        self.skip = skip
    }

    /// The next occurrence's due after an occurrence due `due` (a date or an RFC 3339
    /// date-time, as `Timestamp.parse` reads it), and its rule text (`text` with `COUNT`
    /// one less); nil when the rule makes none: `COUNT=1`, a date past `UNTIL` or past
    /// 9999-12-31, or a rule no date matches.
    public func next(after due: String, ruleText text: String) -> (due: String, rule: String)? {
        if count == 1 { return nil }
        let bytes = Array(due.utf8)
        guard bytes.count >= 10, Timestamp.parse(due) != nil,
            let year = Int64(String(decoding: bytes[0..<4], as: UTF8.self)),
            let month = Int64(String(decoding: bytes[5..<7], as: UTF8.self)),
            let day = Int64(String(decoding: bytes[8..<10], as: UTF8.self)),
            let nextDay = nextDate(after: Timestamp.days(fromCivil: year, month, day))
        else { return nil }
        let (y, m, d) = Timestamp.civil(fromDays: nextDay)
        let nextDue = Self.pad(y, 4) + "-" + Self.pad(m, 2) + "-" + Self.pad(d, 2) + String(decoding: bytes[10...], as: UTF8.self)
        guard let instant = Timestamp.parse(nextDue) else { return nil }
        switch until {
        case .date(let last)? where nextDay > last: return nil
        case .instant(let last)? where bytes.count == 10 ? nextDay > Self.floorDays(last) : instant > last: return nil
        default: break
        }
        var nextRule = count.map { Self.replacingCount(in: text, with: $0 - 1) } ?? text
        let startDay = Int(day)
        if skip != .omit, monthDays.isEmpty, weekdays.isEmpty, Int(d) != startDay { nextRule += ";BYMONTHDAY=\(startDay)" }
        return (nextDue, nextRule)
    }

    // MARK: - The next date

    /// The first date after `start` (days since 1970-01-01) that the rule gives, with
    /// `start` as the series' start. The calendar repeats every 400 years (146,097 days,
    /// 20,871 weeks, 4,800 months), so a rule that gives no date within that many of its
    /// periods never will.
    package func nextDate(after start: Int64) -> Int64? {
        let limit = Timestamp.days(fromCivil: 10_000, 1, 1)
        let cycle: Int64 =
            switch frequency {
            case .daily: 146_097
            case .weekly: 20_871
            case .monthly: 4_800
            case .yearly: 400
            }
        var period = self.period(of: start)
        for _ in 0..<cycle {
            let dates = candidates(in: period, start: start)
            if let found = dates.first(where: { $0 > start }) { return found < limit ? found : nil }
            period += Int64(interval)
            if firstDay(of: period) >= limit { return nil }
        }
        return nil
    }

    /// The index of the day, week (from Monday), month or year that holds `day`.
    private func period(of day: Int64) -> Int64 {
        switch frequency {
        case .daily: return day
        case .weekly: return Self.floorDivide(day + 3, 7)
        case .monthly:
            let (y, m, _) = Timestamp.civil(fromDays: day)
            return y * 12 + m - 1
        case .yearly: return Timestamp.civil(fromDays: day).year
        }
    }

    private func firstDay(of period: Int64) -> Int64 {
        switch frequency {
        case .daily: period
        case .weekly: period * 7 - 3
        case .monthly: Timestamp.days(fromCivil: period / 12, period % 12 + 1, 1)
        case .yearly: Timestamp.days(fromCivil: period, 1, 1)
        }
    }

    /// The dates the rule gives in `period`, in order, as RFC 5545 §3.3.10 expands and
    /// limits them: BYDAY and BYMONTHDAY limit a daily rule; BYDAY expands a weekly one;
    /// BYMONTHDAY expands a monthly or yearly one (every month of the year: there is no
    /// BYMONTH), and BYDAY then limits it, or expands it when there is no BYMONTHDAY. Without
    /// them the start's weekday, day of the month or date is used; a month without that day
    /// (the 31st, February 29th) is skipped. Years are 0000 to 9999: periods are not negative.
    private func candidates(in period: Int64, start: Int64) -> [Int64] {
        let first = firstDay(of: period)
        switch frequency {
        case .daily:
            return matches(first, in: first...first) ? [first] : []
        case .weekly:
            let days: [Int] = weekdays.isEmpty ? [Self.weekday(of: start)] : weekdays.map(\.day)
            return days.map { first + Int64($0) }.sorted()
        case .monthly:
            let (year, month) = (period / 12, period % 12 + 1)
            let length = Timestamp.daysIn(month: month, year: year)
            guard weekdays.isEmpty && monthDays.isEmpty else {
                let days = first...(first + length - 1)
                // Days past the month's end that SKIP moves into it, or to the next month's first.
                let moved = monthDays.filter { $0 > length }.compactMap { _ in skipped(length: length, first: first) }
                return Array(Set(days.filter { matches($0, in: days) } + moved.filter { matches($0, in: days, monthDays: false) })).sorted()
            }
            let day = Timestamp.civil(fromDays: start).day
            if day <= length { return [Timestamp.days(fromCivil: year, month, day)] }
            return skipped(length: length, first: first).map { [$0] } ?? []
        case .yearly:
            guard weekdays.isEmpty && monthDays.isEmpty else {
                let year = first...(Timestamp.days(fromCivil: period + 1, 1, 1) - 1)
                return year.filter { matches($0, in: year) }
            }
            let (_, month, day) = Timestamp.civil(fromDays: start)
            return day <= Timestamp.daysIn(month: month, year: period) ? [Timestamp.days(fromCivil: period, month, day)] : []
        }
    }

    /// The date SKIP gives for a day past the end of the month that starts on `first` and has
    /// `length` days: its last day (`BACKWARD`), the next month's first (`FORWARD`), or none.
    private func skipped(length: Int64, first: Int64) -> Int64? {
        switch skip {
        case .omit: nil
        case .backward: first + length - 1
        case .forward: first + length
        }
    }

    /// Whether `day` meets BYMONTHDAY (unless `monthDays` is false) and BYDAY; BYDAY's
    /// ordinals count within `scope`.
    private func matches(_ day: Int64, in scope: ClosedRange<Int64>, monthDays checkMonthDays: Bool = true) -> Bool {
        if checkMonthDays, !monthDays.isEmpty {
            let (y, m, d) = Timestamp.civil(fromDays: day)
            let length = Timestamp.daysIn(month: m, year: y)
            guard monthDays.contains(where: { Int64($0) == d || Int64($0) == d - length - 1 }) else { return false }
        }
        guard !weekdays.isEmpty else { return true }
        let weekday = Self.weekday(of: day)
        let fromStart = Int((day - scope.lowerBound) / 7) + 1
        let fromEnd = -(Int((scope.upperBound - day) / 7) + 1)
        return weekdays.contains { $0.day == weekday && ($0.ordinal == nil || $0.ordinal == fromStart || $0.ordinal == fromEnd) }
    }

    // MARK: - Reading and writing the parts

    /// 0 for Monday … 6 for Sunday; 1970-01-01 was a Thursday.
    package static func weekday(of day: Int64) -> Int {
        Int(day + 3 - floorDivide(day + 3, 7) * 7)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let (quotient, remainder) = a.quotientAndRemainder(dividingBy: b)
        return remainder < 0 ? quotient - 1 : quotient
    }

    private static func floorDays(_ milliseconds: Int64) -> Int64 {
        floorDivide(milliseconds, 86_400_000)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Digits only, leading zeros allowed as RFC 5545 allows them: no sign, no spaces (Int's
    /// parser takes a leading `+`). Nil past 9 significant digits, which no limit reaches.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        let significant = text.drop { $0 == "0" }
        guard significant.count <= 9 else { return nil }
        return significant.isEmpty ? 0 : Int(significant)
    }

    private static func signedNumber(_ text: Substring) -> Int? {
        if text.first == "-" { return number(text.dropFirst()).map { -$0 } }
        if text.first == "+" { return number(text.dropFirst()) }
        return number(text)
    }

    /// `MO`, `2MO`, `+2MO`, `-1FR`.
    private static func weekday(_ text: Substring) -> Weekday? {
        guard text.count >= 2, let day = weekdayNames.firstIndex(of: String(text.suffix(2))) else { return nil }
        let prefix = text.dropLast(2)
        if prefix.isEmpty { return Weekday(ordinal: nil, day: day) }
        guard let ordinal = signedNumber(prefix), ordinal != 0 else { return nil }
        return Weekday(ordinal: ordinal, day: day)
    }

    /// `YYYYMMDD` or `YYYYMMDDTHHMMSSZ`, read through `Timestamp.parse`.
    private static func until(_ text: String) -> Until? {
        let characters = Array(text)
        guard characters.count == 8 || (characters.count == 16 && characters[8] == "T" && characters[15] == "Z"),
            characters.enumerated().allSatisfy({ $0.offset == 8 || $0.offset == 15 || ("0"..."9").contains($0.element) })
        else { return nil }
        let date = String(characters[0..<4]) + "-" + String(characters[4..<6]) + "-" + String(characters[6..<8])
        if characters.count == 8 {
            return Timestamp.parse(date).map { .date(days: floorDays($0)) }
        }
        let time = String(characters[9..<11]) + ":" + String(characters[11..<13]) + ":" + String(characters[13..<15])
        return Timestamp.parse(date + "T" + time + "Z").map { .instant(milliseconds: $0) }
    }

    /// `text` with its COUNT part's value replaced, the other parts as written.
    private static func replacingCount(in text: String, with count: Int) -> String {
        text.split(separator: ";", omittingEmptySubsequences: false).map { part in
            part.uppercased().hasPrefix("COUNT=") ? part.prefix(6) + String(count) : part
        }.joined(separator: ";")
    }
}

extension TaskRules {
    /// A recurrence rule (`field` names the recurrence; its rule is `field.rule`) on a task
    /// that has a due date (`hasDue`): the rule needs one to start from.
    package static func validateRecurrence(_ rule: String, hasDue: Bool, field: String) throws {
        _ = try RecurrenceRule(rule, field: field + ".rule")
        guard hasDue else {
            throw TaskStoreError.invalid(field: field, reason: "needs a due date: a recurring task must have one")
        }
    }
}

extension TaskItem {
    /// Holds an updated task to the rules of recurrence, which depend on the fields it keeps:
    /// a recurring task has a due date, and belongs to a series (its own, when it starts one).
    /// A refusal names the field the update sent.
    package mutating func keepSeries(changes: TaskChanges) throws {
        guard recurrence != nil else { return }
        guard due != nil else {
            if changes.recurrence != nil {
                throw TaskStoreError.invalid(field: "changes.recurrence", reason: "needs a due date: a recurring task must have one")
            }
            throw TaskStoreError.invalid(
                field: "changes.due", reason: "must not be null while the task recurs: set recurrence to null to end the series")
        }
        if seriesId == nil { seriesId = id }
    }

    /// The next occurrence of this task, just completed, by its rule `parsed`, made at `now`
    /// with the id `id`; nil when it does not recur or the rule makes no further occurrence.
    package func successor(by parsed: RecurrenceRule, id: String, at now: Int64) -> TaskItem? {
        guard let rule = recurrence, let due, let (nextDue, nextRule) = parsed.next(after: due, ruleText: rule) else { return nil }
        return TaskItem(
            id: id, title: title, notes: notes, priority: priority, tags: tags, due: nextDue,
            project: project, recurrence: nextRule, seriesId: seriesId ?? self.id, createdAt: now, updatedAt: now)
    }
}
