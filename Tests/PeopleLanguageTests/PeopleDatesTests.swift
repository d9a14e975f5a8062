import PeopleLanguage
import TaskModel
import Testing

/// The dates people type, read at a fixed time: Wednesday 2026-12-02 09:30 UTC.
@Suite struct PeopleDatesTests {
    static let now = Timestamp.parse("2026-12-02T09:30:00Z")!
    static let berlin = LocalCalendar.fixed(offsetSeconds: 3600)
    static let newYork = LocalCalendar.fixed(offsetSeconds: -5 * 3600)

    @Test(arguments: [
        ("today", "2026-12-02"), ("TODAY", "2026-12-02"), ("eod", "2026-12-02"),
        ("tomorrow", "2026-12-03"), ("yesterday", "2026-12-01"),
        ("thu", "2026-12-03"), ("friday", "2026-12-04"), ("sun", "2026-12-06"), ("mon", "2026-12-07"),
        ("wed", "2026-12-09"),  // a weekday is the next one after today
        ("eow", "2026-12-06"), ("eom", "2026-12-31"), ("eoy", "2026-12-31"),
        ("sod", "2026-12-02"), ("sow", "2026-11-30"), ("som", "2026-12-01"), ("soy", "2026-01-01"),
        ("next-week", "2026-12-07"), ("sonw", "2026-12-07"), ("next-month", "2027-01-01"), ("next-year", "2027-01-01"),
        ("later", "9999-12-30"), ("someday", "9999-12-30"),
        ("1st", "2027-01-01"), ("2nd", "2027-01-02"), ("3rd", "2026-12-03"), ("15th", "2026-12-15"),
        ("21st", "2026-12-21"), ("22nd", "2026-12-22"), ("11th", "2026-12-11"), ("31st", "2026-12-31"),
        ("noon", "2026-12-02T12:00:00+01:00"), ("fri noon", "2026-12-04T12:00:00+01:00"),
        ("17:30", "2026-12-02T17:30:00+01:00"), ("fri 9am", "2026-12-04T09:00:00+01:00"),
        ("+3d", "2026-12-05"), ("3d", "2026-12-05"), ("-2d", "2026-11-30"), ("2w", "2026-12-16"),
        ("1m", "2027-01-02"), ("+1y", "2027-12-02"), ("0d", "2026-12-02"),
        ("2026-12-05", "2026-12-05"),
        ("2026-12-05T17:00", "2026-12-05T17:00:00+01:00"), ("2026-12-05 17:00:30", "2026-12-05T17:00:30+01:00"),
        ("2026-07-01T08:15", "2026-07-01T08:15:00+01:00"),
        ("now", "2026-12-02T10:30:00+01:00"), ("4h", "2026-12-02T14:30:00+01:00"),
        ("2026-12-05T17:00:00Z", "2026-12-05T17:00:00Z"),
    ])
    func readsInBerlin(text: String, wire: String) {
        #expect(PeopleDates.parse(text, now: Self.now, calendar: Self.berlin) == wire)
    }

    /// 09:30 UTC is 04:30 in New York, the same day; at 02:00 UTC it is still Tuesday there.
    @Test func theLocalDayIsTheTimeZones() {
        let early = Timestamp.parse("2026-12-02T02:00:00Z")!
        #expect(PeopleDates.parse("today", now: early, calendar: Self.newYork) == "2026-12-01")
        #expect(PeopleDates.parse("wed", now: early, calendar: Self.newYork) == "2026-12-02")
        #expect(PeopleDates.parse("now", now: early, calendar: Self.newYork) == "2026-12-01T21:00:00-05:00")
        #expect(PeopleDates.parse("today", now: early, calendar: Self.berlin) == "2026-12-02")
    }

    /// A day of the month is the next one after today, in the first month that has it.
    @Test func ordinalsSkipMonthsWithoutTheDay() {
        let february20 = Timestamp.parse("2027-02-20T12:00:00Z")!
        #expect(PeopleDates.parse("31st", now: february20, calendar: Self.berlin) == "2027-03-31")
        #expect(PeopleDates.parse("20th", now: february20, calendar: Self.berlin) == "2027-03-20")
        let december31 = Timestamp.parse("2026-12-31T12:00:00Z")!
        #expect(PeopleDates.parse("31st", now: december31, calendar: Self.berlin) == "2027-01-31")
        #expect(PeopleDates.parse("30th", now: december31, calendar: Self.berlin) == "2027-01-30")
        #expect(PeopleDates.parse("next-month", now: december31, calendar: Self.berlin) == "2027-01-01")
    }

    @Test func monthsEndOnTheLastDay() {
        let january31 = Timestamp.parse("2027-01-31T12:00:00Z")!
        #expect(PeopleDates.parse("1m", now: january31, calendar: Self.berlin) == "2027-02-28")
        #expect(PeopleDates.parse("eom", now: january31, calendar: Self.berlin) == "2027-01-31")
    }

    @Test(arguments: [
        "", "t", "mo", "0th", "32nd", "1th", "11st", "22th", "01st", "next-day", "2026-13-01", "2026-12-05T25:00", "2026-12-05T17", "3x", "+d",
        "123456d", "12/05/2026", "2026-12-5",
    ])
    func refuses(text: String) {
        #expect(PeopleDates.parse(text, now: Self.now, calendar: Self.berlin) == nil)
    }

    @Test(arguments: [
        ("2026-12-02", true, "today", PeopleDates.Shown.Urgency.today),
        ("2026-12-03", true, "tomorrow", .later),
        ("2026-12-05", true, "in 3 days", .later),
        ("2026-12-15", true, "in 13 days", .later),
        ("2026-12-16", true, "2026-12-16", .later),
        ("2026-12-01", true, "1 day overdue", .overdue),
        ("2026-11-30", true, "2 days overdue", .overdue),
        ("2026-11-30", false, "2 days ago", .later),
        ("2026-12-01", false, "yesterday", .later),
        // Times are shown in local time: 23:30 UTC is 00:30 the next day in Berlin.
        ("2026-12-02T23:30:00Z", true, "tomorrow 00:30", .later),
        ("2026-12-02T16:00:00Z", true, "today 17:00", .today),
        ("2026-12-02T08:00:00Z", true, "today 09:00", .overdue),
        ("2026-12-05T16:00:00Z", true, "in 3 days 17:00", .later),
        ("2026-11-29T16:00:00Z", true, "3 days overdue", .overdue),
    ])
    func shows(stored: String, open: Bool, relative: String, urgency: PeopleDates.Shown.Urgency) {
        let shown = PeopleDates.show(stored, now: Self.now, calendar: Self.berlin, open: open)
        #expect(shown?.relative == relative)
        #expect(shown?.urgency == urgency)
        // Urgency counts the days without the text.
        #expect(PeopleDates.days(until: stored, now: Self.now, calendar: Self.berlin) == shown?.days)
        #expect(
            PeopleDates.days(until: stored, now: Self.now, calendar: Self.newYork)
                == PeopleDates.show(stored, now: Self.now, calendar: Self.newYork)?.days)
    }

    /// A date is the same day in every zone: it is not moved to the previous day west of UTC.
    @Test func aDateStaysADate() {
        let shown = PeopleDates.show("2026-12-05", now: Self.now, calendar: Self.newYork)
        #expect(shown?.absolute == "2026-12-05")
        #expect(shown?.relative == "in 3 days")
        #expect(PeopleDates.days(until: "2026-12-05", now: Self.now, calendar: Self.newYork) == 3)
        #expect(PeopleDates.days(until: "next week", now: Self.now, calendar: Self.newYork) == nil)
    }
}
