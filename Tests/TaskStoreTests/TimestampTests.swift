import TaskModel
import TaskStore
import Testing

@Suite struct TimestampTests {
    func formatted(_ milliseconds: Int64) -> String {
        var text: [UInt8] = []
        Timestamp.append(milliseconds: milliseconds, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    @Test func formatsUTCWithMilliseconds() {
        #expect(formatted(0) == "1970-01-01T00:00:00.000Z")
        #expect(formatted(1_780_000_000_042) == "2026-05-28T20:26:40.042Z")
        #expect(formatted(951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(formatted(-1) == "1969-12-31T23:59:59.999Z")
    }

    @Test func parsesRFC3339() {
        #expect(Timestamp.parse("1970-01-01T00:00:00Z") == 0)
        #expect(Timestamp.parse("1970-01-01T01:00:00+01:00") == 0)
        #expect(Timestamp.parse("1969-12-31T19:00:00.5-05:00") == 500)
        #expect(Timestamp.parse("2026-05-28T20:26:40.042123z") == 1_780_000_000_042)
        #expect(Timestamp.parse("2000-02-29") == 951_782_400_000)
    }

    @Test(arguments: [
        "", "2026", "2026-13-01", "2026-02-29", "2026-04-31", "2026-01-01T24:00:00Z",
        "2026-01-01T10:00:00", "2026-01-01T10:00Z", "2026-01-01T10:00:00.Z", "2026-01-01T10:00:00+0100",
        "2026-01-01 extra", "２０２６-01-01",
    ])
    func rejects(_ text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test func roundTrips() {
        for milliseconds: Int64 in [0, 1, 999, 86_399_999, 1_780_000_000_042, 4_102_444_800_000] {
            #expect(Timestamp.parse(formatted(milliseconds)) == milliseconds)
        }
    }
}
