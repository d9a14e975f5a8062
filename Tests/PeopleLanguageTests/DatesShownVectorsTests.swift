import Foundation
import PeopleLanguage
import TaskModel
import Testing

/// The rule of protocol/dates.md, held to the vectors every front-end is tested against
/// (protocol/conformance/dates-shown.json).
@Suite struct DatesShownVectorsTests {
    struct Case: Decodable, CustomTestStringConvertible, Sendable {
        let name, stored, now, timeZone, shown: String
        let open, overdue: Bool
        var testDescription: String { name }
    }

    struct Vectors: Decodable {
        let cases: [Case]
    }

    static let cases: [Case] = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("protocol/conformance/dates-shown.json")
        guard let data = try? Data(contentsOf: file), let vectors = try? JSONDecoder().decode(Vectors.self, from: data) else {
            return []
        }
        return vectors.cases
    }()

    @Test func theVectorsAreRead() {
        #expect(Self.cases.count > 30)
    }

    @Test(arguments: cases)
    func shows(_ vector: Case) throws {
        let calendar = try #require(LocalCalendar.named(vector.timeZone), "\(vector.timeZone)")
        let now = try #require(Timestamp.parse(vector.now))
        let shown = try #require(PeopleDates.show(vector.stored, now: now, calendar: calendar, open: vector.open))
        #expect(shown.relative == vector.shown)
        #expect((shown.urgency == .overdue) == vector.overdue)
    }
}
