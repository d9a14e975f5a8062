import TaskModel
import Testing

@testable import PeopleLanguage

/// Time zones named by clients (`initializationOptions.timeZone`), read from the system's
/// time zone database without touching TZ.
@Suite struct ZoneInfoTests {
    static func seconds(_ text: String) -> Int64 {
        Timestamp.parse(text)! / 1000
    }

    static let cases: [(zone: String, time: String, offset: Int64)] = [
        ("Europe/Paris", "2027-01-15T12:00:00Z", 3600), ("Europe/Paris", "2027-07-01T12:00:00Z", 7200),
        // After the file's last transition, the footer's rule: the same seasons.
        ("Europe/Paris", "2090-01-15T12:00:00Z", 3600), ("Europe/Paris", "2090-07-01T12:00:00Z", 7200),
        // Daylight time across the new year, in the south.
        ("Australia/Sydney", "2090-01-15T12:00:00Z", 39_600), ("Australia/Sydney", "2090-07-01T12:00:00Z", 36_000),
        // The spring-forward instant: 02:00 EST is 07:00 UTC.
        ("America/New_York", "2027-03-14T06:59:59Z", -18_000), ("America/New_York", "2027-03-14T07:00:00Z", -14_400),
        ("America/New_York", "2095-03-13T06:59:59Z", -18_000), ("America/New_York", "2095-03-13T07:00:00Z", -14_400),
        ("Asia/Kolkata", "2027-01-15T12:00:00Z", 19_800), ("UTC", "2027-01-15T12:00:00Z", 0),
        // Before the first transition: local mean time (Paris: +0:09:21).
        ("Europe/Paris", "1800-01-01T00:00:00Z", 561),
    ]

    @Test func offsets() throws {
        for (zone, time, offset) in Self.cases {
            let calendar = try #require(LocalCalendar.named(zone), "\(zone)")
            #expect(calendar.offsetAt(Self.seconds(time)) == offset, "\(zone) at \(time)")
        }
    }

    /// Names outside the database are not found, whatever files lie there.
    @Test(arguments: [
        "", "Mars/Olympus_Mons", "../../etc/passwd", "/etc/localtime", "Europe//Paris", "Europe/./Paris",
        "Europe/Paris ", "zone.tab", "Europe",
    ])
    func unknownNames(name: String) {
        #expect(LocalCalendar.named(name) == nil)
    }

    /// The rule a TZif footer holds, with dates of every form.
    @Test func posixRules() throws {
        let newYork = try #require(PosixZoneRule("EST5EDT,M3.2.0,M11.1.0"))
        #expect(newYork.offset(at: Self.seconds("2100-03-14T06:59:59Z")) == -5 * 3600)
        #expect(newYork.offset(at: Self.seconds("2100-03-14T07:00:00Z")) == -4 * 3600)
        // The end is written in daylight time: 02:00 EDT is 06:00 UTC.
        #expect(newYork.offset(at: Self.seconds("2100-11-07T05:59:59Z")) == -4 * 3600)
        #expect(newYork.offset(at: Self.seconds("2100-11-07T06:00:00Z")) == -5 * 3600)
        let tehran = try #require(PosixZoneRule("<+0330>-3:30"))
        #expect(tehran.offset(at: 0) == 12_600)
        // J60 is March 1st, leap year or not; 59 (from 0) is February 29th in a leap year.
        let julian = try #require(PosixZoneRule("AAA0BBB,J60/0,J300/0"))
        #expect(julian.offset(at: Self.seconds("2028-02-29T12:00:00Z")) == 0)
        #expect(julian.offset(at: Self.seconds("2028-03-01T12:00:00Z")) == 3600)
        let zeroBased = try #require(PosixZoneRule("AAA0BBB,59/0,J300/0"))
        #expect(zeroBased.offset(at: Self.seconds("2028-02-29T12:00:00Z")) == 3600)
        #expect(zeroBased.offset(at: Self.seconds("2027-02-28T12:00:00Z")) == 0)
        for text in ["", "E", "EST", "EST5EDT,M13.1.0,M11.1.0", "EST5EDT,M3.2.0", "EST5EDT,M3.2.0,M11.1.0x"] {
            #expect(PosixZoneRule(text) == nil, "\(text)")
        }
    }
}
