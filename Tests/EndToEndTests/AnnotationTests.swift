import JSON
import TestSupport
import Testing

/// Annotations and the start time, against the real binary on both stores: additions that
/// two servers make at once are all kept, completion stops a task, and undo puts both back.
@Suite struct AnnotationTests {
    func start(_ database: TestDatabase) throws -> Client {
        let client = Client(try ServerProcess(["--db", database.argument]))
        _ = try client.request("initialize", #"{"initializationOptions":{"notifications":false}}"#)
        return client
    }

    func texts(_ task: JSON) -> [String] {
        task["annotations"]?.arrayValue?.compactMap { $0["text"]?.stringValue } ?? []
    }

    @Test(arguments: StoreKind.allCases)
    func additionsTwoServersSendAtOnceWithoutIfVersionAreAllKept(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let (a, b) = (try start(database), try start(database))
        _ = try a.request("tasks/create", #"{"id":"t","title":"shared"}"#)
        // Each server gets its requests in one burst, before either answers: their writes interleave.
        let count = 20
        let sentByA = (1...count).map { a.send("tasks/update", #"{"id":"t","changes":{"addAnnotations":[{"text":"a\#($0)"}]}}"#) }
        let sentByB = (1...count).map { b.send("tasks/update", #"{"id":"t","changes":{"addAnnotations":[{"text":"b\#($0)"}]}}"#) }
        for id in sentByA { #expect(try a.response(id)["result"] != nil) }
        for id in sentByB { #expect(try b.response(id)["result"] != nil) }
        let task = try a.request("tasks/get", #"{"id":"t"}"#)
        let kept = texts(task)
        #expect(Set(kept) == Set((1...count).flatMap { ["a\($0)", "b\($0)"] }) && kept.count == 2 * count)
        #expect(kept.filter { $0.hasPrefix("a") } == (1...count).map { "a\($0)" }, "one server's additions keep their order")
        #expect(task["version"] == .integer(Int64(1 + 2 * count)))
        let times = task["annotations"]?.arrayValue?.compactMap { $0["at"]?.stringValue } ?? []
        #expect(times == times.sorted(), "in order of time")
    }

    @Test(arguments: StoreKind.allCases)
    func theLimitsNameTheFieldAndTheCountTakesInWhatTheTaskHas(store: StoreKind) throws {
        let client = try start(try TestDatabase.fresh(store))
        let many = (1...99).map { #"{"text":"n\#($0)","at":"2026-01-01T00:00:00Z"}"# }.joined(separator: ",")
        _ = try client.request("tasks/create", #"{"id":"t","title":"full","annotations":[\#(many)]}"#)
        let over = try client.requestError("tasks/update", #"{"id":"t","changes":{"addAnnotations":[{"text":"x"},{"text":"y"}]}}"#)
        #expect(over["code"] == -32602 && over["data"]?["field"] == "changes.addAnnotations")
        let long = String(repeating: "é", count: 4097)
        let tooLong = try client.requestError("tasks/update", #"{"id":"t","changes":{"addAnnotations":[{"text":"\#(long)"}]}}"#)
        #expect(tooLong["data"]?["field"] == "changes.addAnnotations[0].text")
        let last = try client.request("tasks/update", #"{"id":"t","changes":{"addAnnotations":[{"text":"\#(long.dropLast())"}]}}"#)
        #expect(last["annotations"]?.arrayValue?.count == 100 && last["version"] == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func completingStopsATaskAndItsNextOccurrenceStartsInactiveWithoutAnnotations(store: StoreKind) throws {
        let client = try start(try TestDatabase.fresh(store))
        _ = try client.request(
            "tasks/create",
            #"{"id":"r","title":"water","due":"2027-01-04","recurrence":{"rule":"FREQ=WEEKLY"},"startedAt":"2027-01-04T08:00:00+01:00","annotations":[{"text":"dry"}]}"#
        )
        #expect(try client.request("tasks/get", #"{"id":"r"}"#)["startedAt"] == "2027-01-04T07:00:00.000Z")
        let done = try client.request("tasks/update", #"{"id":"r","changes":{"done":true}}"#)
        #expect(done["startedAt"] == .null && texts(done) == ["dry"])
        let next = try client.request("tasks/fetch", #"{"filter":{"done":false}}"#)["tasks"]?.arrayValue ?? []
        #expect(next.count == 1 && next.first?["startedAt"] == .null && next.first?["annotations"] == [])
        let refused = try client.requestError("tasks/update", #"{"id":"r","changes":{"startedAt":"2027-01-05T00:00:00Z"}}"#)
        #expect(refused["code"] == -32602 && refused["data"]?["field"] == "changes.startedAt")
    }

    @Test(arguments: StoreKind.allCases)
    func undoAndRedoPutAnnotationsAndTheStartTimeBackExactly(store: StoreKind) throws {
        let client = try start(try TestDatabase.fresh(store))
        _ = try client.request(
            "tasks/create",
            #"{"id":"t","title":"call","startedAt":"2026-03-01T10:00:00Z","annotations":[{"text":"rang","at":"2026-03-01T10:05:00Z"},{"text":"again","at":"2026-03-01T10:05:00Z"}]}"#
        )
        let before = try client.request("tasks/get", #"{"id":"t"}"#)
        let after = try client.request(
            "tasks/update",
            #"{"id":"t","changes":{"done":true,"removeAnnotations":[{"text":"rang","at":"2026-03-01T10:05:00.000Z"}],"addAnnotations":[{"text":"done it"}]}}"#
        )
        #expect(after["startedAt"] == .null && texts(after) == ["again", "done it"])
        let undone = try client.request("tasks/undo")["tasks"]?.arrayValue?.first
        #expect(undone?["annotations"] == before["annotations"] && undone?["startedAt"] == "2026-03-01T10:00:00.000Z")
        let redone = try client.request("tasks/redo")["tasks"]?.arrayValue?.first
        #expect(redone?["annotations"] == after["annotations"] && redone?["startedAt"] == .null)
    }
}
