import TaskModel
import Testing

@testable import TaskStore

/// RFC 5545 rules and the next due date they give. The expected dates of the first table
/// were checked against python-dateutil's rrule (`rrulestr(rule, dtstart=due).after(due)`).
@Suite struct RecurrenceRuleTests {
    static let dates: [(rule: String, due: String, next: String)] = [
        ("FREQ=DAILY", "2026-12-05", "2026-12-06"),
        ("FREQ=DAILY;INTERVAL=3", "2026-12-30", "2027-01-02"),
        ("FREQ=WEEKLY", "2026-12-05", "2026-12-12"),
        ("FREQ=WEEKLY;BYDAY=MO,WE,FR", "2026-12-02", "2026-12-04"),
        ("FREQ=WEEKLY;BYDAY=MO,WE,FR", "2026-12-04", "2026-12-07"),
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH", "2026-12-03", "2026-12-14"),
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU", "2026-12-01", "2026-12-06"),
        ("FREQ=MONTHLY", "2026-01-31", "2026-03-31"),
        ("FREQ=MONTHLY;BYMONTHDAY=31", "2026-01-31", "2026-03-31"),
        ("FREQ=MONTHLY;BYMONTHDAY=-1", "2026-01-31", "2026-02-28"),
        ("FREQ=MONTHLY;BYMONTHDAY=-1", "2028-01-31", "2028-02-29"),
        ("FREQ=MONTHLY;BYMONTHDAY=30", "2027-01-30", "2027-03-30"),
        ("FREQ=MONTHLY;BYDAY=-1FR", "2026-12-25", "2027-01-29"),
        ("FREQ=MONTHLY;BYDAY=2MO", "2026-12-14", "2027-01-11"),
        ("FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=1,15", "2026-12-15", "2027-02-01"),
        ("FREQ=YEARLY", "2028-02-29", "2032-02-29"),
        ("FREQ=YEARLY", "2026-12-05", "2027-12-05"),
        ("FREQ=YEARLY;INTERVAL=4", "2024-02-29", "2028-02-29"),
        ("FREQ=YEARLY;INTERVAL=100", "2000-02-29", "2400-02-29"),
        ("FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", "2026-12-04", "2026-12-07"),
        ("FREQ=DAILY;BYMONTHDAY=1", "2026-12-05", "2027-01-01"),
        ("FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13", "2026-11-13", "2027-08-13"),
        ("FREQ=YEARLY;BYDAY=20MO", "2026-05-18", "2027-05-17"),
        ("FREQ=YEARLY;BYDAY=-1SU", "2026-12-27", "2027-12-26"),
        ("FREQ=YEARLY;BYMONTHDAY=1", "2026-12-01", "2027-01-01"),
        ("FREQ=MONTHLY;INTERVAL=3;BYDAY=-1SU", "2026-12-27", "2027-03-28"),
        ("FREQ=MONTHLY;BYDAY=1MO,-1SU", "2026-12-27", "2027-01-04"),
        ("FREQ=WEEKLY;INTERVAL=3", "2026-12-31", "2027-01-21"),
        ("FREQ=DAILY;INTERVAL=7;BYDAY=SA", "2026-12-05", "2026-12-12"),
        ("FREQ=MONTHLY;BYMONTHDAY=29", "2027-01-29", "2027-03-29"),
        ("FREQ=MONTHLY;BYMONTHDAY=29", "2028-01-29", "2028-02-29"),
        ("FREQ=MONTHLY;BYDAY=5FR", "2026-10-30", "2027-01-29"),
    ]

    @Test func theNextDateIsTheRulesNextOccurrence() throws {
        for (rule, due, next) in Self.dates {
            let parsed = try RecurrenceRule(rule, field: "rule")
            #expect(parsed.next(after: due, ruleText: rule)?.due == next, "\(rule) after \(due)")
        }
    }

    /// RFC 7529's SKIP: a day the month lacks becomes its last day (BACKWARD) or the next
    /// month's first (FORWARD); a moved occurrence's rule names the day, so it does not drift.
    @Test func skipKeepsTheDayWithoutDrift() throws {
        let backward = "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD"
        var series: [String] = []
        var (due, rule) = ("2027-01-31", backward)
        for _ in 0..<5 {
            let next = try #require(try RecurrenceRule(rule, field: "rule").next(after: due, ruleText: rule))
            (due, rule) = next
            series.append(due)
        }
        #expect(series == ["2027-02-28", "2027-03-31", "2027-04-30", "2027-05-31", "2027-06-30"])
        #expect(rule == backward + ";BYMONTHDAY=31")
        let cases: [(rule: String, due: String, next: String, nextRule: String)] = [
            (backward, "2028-01-31", "2028-02-29", backward + ";BYMONTHDAY=31"),
            (backward, "2027-01-30", "2027-02-28", backward + ";BYMONTHDAY=30"),
            (backward, "2027-01-15", "2027-02-15", backward),
            (backward + ";BYMONTHDAY=31", "2027-02-28", "2027-03-31", backward + ";BYMONTHDAY=31"),
            ("FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=FORWARD", "2027-01-31", "2027-03-01", "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=FORWARD;BYMONTHDAY=31"),
            (
                "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=FORWARD;BYMONTHDAY=31", "2027-03-01", "2027-03-31",
                "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=FORWARD;BYMONTHDAY=31"
            ),
            ("FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=OMIT", "2027-01-31", "2027-03-31", "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=OMIT"),
            (
                "FREQ=MONTHLY;INTERVAL=3;RSCALE=GREGORIAN;SKIP=BACKWARD;COUNT=3", "2026-11-30", "2027-02-28",
                "FREQ=MONTHLY;INTERVAL=3;RSCALE=GREGORIAN;SKIP=BACKWARD;COUNT=2;BYMONTHDAY=30"
            ),
            (
                "rscale=gregorian;skip=backward;freq=monthly;bymonthday=29,31", "2027-01-31", "2027-02-28",
                "rscale=gregorian;skip=backward;freq=monthly;bymonthday=29,31"
            ),
        ]
        for (rule, due, next, nextRule) in cases {
            let found = try RecurrenceRule(rule, field: "rule").next(after: due, ruleText: rule)
            #expect(found?.due == next && found?.rule == nextRule, "\(rule) after \(due): \(String(describing: found))")
        }
        for refused in [
            "FREQ=MONTHLY;SKIP=BACKWARD", "FREQ=MONTHLY;RSCALE=HEBREW", "FREQ=YEARLY;RSCALE=GREGORIAN;SKIP=BACKWARD",
            "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=SIDEWAYS",
        ] {
            #expect(throws: TaskStoreError.self, "\(refused)") { try RecurrenceRule(refused, field: "rule") }
        }
    }

    @Test(arguments: [
        ("FREQ=DAILY;INTERVAL=3", "2026-12-30T09:00:00+01:00", "2027-01-02T09:00:00+01:00"),
        ("FREQ=DAILY", "2026-03-28T02:30:00.250+01:00", "2026-03-29T02:30:00.250+01:00"),
        ("FREQ=YEARLY", "2026-12-05t17:30:00z", "2027-12-05t17:30:00z"),
        ("FREQ=MONTHLY;BYMONTHDAY=-1", "2026-01-31T23:59:60-05:00", "2026-02-28T23:59:60-05:00"),
        ("freq=weekly;byday=mo,fr", "2026-12-04", "2026-12-07"),
    ])
    func aTimeOfDayAndOffsetAreKeptAsWritten(rule: String, due: String, next: String) throws {
        #expect(try RecurrenceRule(rule, field: "rule").next(after: due, ruleText: rule)?.due == next)
    }

    @Test func untilIsInclusiveAndCountCountsTheOccurrencesLeft() throws {
        func next(_ rule: String, _ due: String) throws -> (due: String, rule: String)? {
            try RecurrenceRule(rule, field: "rule").next(after: due, ruleText: rule)
        }
        #expect(try next("FREQ=DAILY;UNTIL=20261206", "2026-12-05")?.due == "2026-12-06")
        #expect(try next("FREQ=DAILY;UNTIL=20261206", "2026-12-06") == nil)
        #expect(try next("FREQ=DAILY;UNTIL=20261206", "2026-12-05T23:00:00-05:00")?.due == "2026-12-06T23:00:00-05:00")
        // A UTC UNTIL bounds a timed due's instant, and a date-only due's date in UTC.
        #expect(try next("FREQ=DAILY;UNTIL=20261206T080000Z", "2026-12-05T09:00:00+01:00")?.due == "2026-12-06T09:00:00+01:00")
        #expect(try next("FREQ=DAILY;UNTIL=20261206T080000Z", "2026-12-05T09:00:01+01:00") == nil)
        #expect(try next("FREQ=DAILY;UNTIL=20261206T000000Z", "2026-12-05")?.due == "2026-12-06")
        #expect(try next("FREQ=DAILY;UNTIL=20261205T235959Z", "2026-12-05") == nil)
        // COUNT=3: this occurrence and two more.
        let second = try #require(try next("FREQ=WEEKLY;COUNT=3;BYDAY=TU", "2026-12-01"))
        #expect(second.due == "2026-12-08" && second.rule == "FREQ=WEEKLY;COUNT=2;BYDAY=TU")
        let third = try #require(try next(second.rule, second.due))
        #expect(third.due == "2026-12-15" && third.rule == "FREQ=WEEKLY;COUNT=1;BYDAY=TU")
        #expect(try next(third.rule, third.due) == nil)
        #expect(try next("FREQ=DAILY;count=10", "2026-12-01")?.rule == "FREQ=DAILY;count=9")
    }

    @Test func aRuleWithoutAFurtherDateInTheYears0000To9999MakesNone() throws {
        #expect(try RecurrenceRule("FREQ=YEARLY", field: "rule").next(after: "9999-06-01", ruleText: "FREQ=YEARLY") == nil)
        #expect(try RecurrenceRule("FREQ=DAILY", field: "rule").next(after: "9999-12-31T10:00:00Z", ruleText: "FREQ=DAILY") == nil)
        // Every twelfth month from February is a February, which has no 30th.
        let never = "FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=30"
        #expect(try RecurrenceRule(never, field: "rule").next(after: "2026-02-28", ruleText: never) == nil)
        let neverDaily = "FREQ=DAILY;INTERVAL=7;BYDAY=MO"
        #expect(try RecurrenceRule(neverDaily, field: "rule").next(after: "2026-12-01", ruleText: neverDaily) == nil)
        #expect(try RecurrenceRule("FREQ=YEARLY", field: "rule").next(after: "0000-02-29", ruleText: "FREQ=YEARLY")?.due == "0004-02-29")
    }

    @Test(arguments: [
        "", "FREQ=HOURLY", "FREQ=DAILY;INTERVAL=0", "FREQ=DAILY;INTERVAL=-1", "FREQ=DAILY;INTERVAL=+2", "FREQ=DAILY;INTERVAL=10001",
        "FREQ=DAILY;COUNT=2;UNTIL=20270101", "FREQ=DAILY;COUNT=0", "FREQ=WEEKLY;BYDAY=XX", "FREQ=WEEKLY;BYDAY=MO,", "FREQ=WEEKLY;BYDAY=1MO",
        "FREQ=MONTHLY;BYDAY=6MO", "FREQ=MONTHLY;BYDAY=0MO", "FREQ=YEARLY;BYDAY=54MO", "FREQ=WEEKLY;BYMONTHDAY=1",
        "FREQ=DAILY;BYMONTHDAY=0", "FREQ=DAILY;BYMONTHDAY=32", "INTERVAL=2", "FREQ=DAILY;FREQ=WEEKLY", "FREQ=DAILY;",
        "FREQ=DAILY;BYHOUR=9", "FREQ=DAILY;WKST=SU", "FREQ=DAILY;UNTIL=20260230", "FREQ=DAILY;UNTIL=2026-12-01",
        "FREQ=DAILY;UNTIL=20261201T100000", "RRULE:FREQ=DAILY", " FREQ=DAILY", "FREQ=DAILY;INTERVAL",
        "FREQ=DAILY;" + String(repeating: "X", count: 250),
    ])
    func aRuleOutsideTheSubsetIsRefused(rule: String) {
        #expect(throws: TaskStoreError.self) { try RecurrenceRule(rule, field: "recurrence.rule") }
    }
}
