import Foundation
import TestSupport
import Testing

/// Recurring tasks against the real binary: the next occurrence in the completion's
/// `tasks/didChange`, and exactly one of it when several processes complete an occurrence.
@Suite struct RecurrenceTests {
    func start(_ database: TestDatabase) throws -> Client {
        let client = Client(try ServerProcess(["--db", database.argument]))
        _ = try client.request("initialize", "{}")
        return client
    }

    @Test(arguments: StoreKind.allCases)
    func theNextOccurrenceComesInTheSameDidChangeAsTheCompletion(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let client = try start(database)
        let first = try client.request(
            "tasks/create",
            #"{"title":"Pay rent","tags":["home"],"priority":2,"project":"Home","due":"2026-12-31T09:00:00+01:00","recurrence":{"rule":"FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=2"}}"#
        )
        let id = try #require(first["id"]?.stringValue)
        #expect(first["recurrence"] == ["rule": "FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=2"])
        #expect(first["seriesId"] == .string(id))
        _ = try client.waitForChanges(count: 1)
        let done = try client.request("tasks/update", #"{"id":"\#(id)","changes":{"done":true}}"#)
        #expect(done["done"] == true)
        let notification = try client.nextNotification()
        let changes = try #require(notification["changes"]?.arrayValue)
        #expect(changes.map { $0["kind"] } == ["created", "updated"])
        let next = try #require(changes.first?["task"])
        #expect(next["due"] == "2027-01-31T09:00:00+01:00")
        #expect(next["recurrence"] == ["rule": "FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=1"])
        #expect(next["seriesId"] == .string(id) && next["title"] == "Pay rent" && next["tags"] == ["home"] && next["project"] == "Home")
        // The last of the two makes none.
        let nextID = try #require(next["id"]?.stringValue)
        _ = try client.request("tasks/update", #"{"id":"\#(nextID)","changes":{"done":true}}"#)
        #expect(try client.waitForChanges(count: 1).map { $0["kind"] } == ["updated"])
        // A recurring task keeps its due; seriesId is not the client's to set.
        let refused = try client.requestError("tasks/update", #"{"id":"\#(id)","changes":{"due":null}}"#)
        #expect(refused["code"] == -32602 && refused["data"]?["field"] == "changes.due")
        let readOnly = try client.requestError("tasks/update", #"{"id":"\#(id)","changes":{"seriesId":"x"}}"#)
        #expect(readOnly["data"]?["field"] == "changes.seriesId")
    }

    /// Four servers on one database; in each round every one of them completes the series' open
    /// occurrence, reopens it and completes it again, all at once. Each round ends with exactly
    /// one new occurrence: the completion is judged inside the write transaction, and an
    /// occurrence completed again after being reopened makes none.
    @Test(arguments: StoreKind.allCases)
    func fourProcessesCompletingTheSameOccurrenceMakeExactlyOneNext(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let clients = try (0..<4).map { _ in try start(database) }
        let first = try clients[0].request(
            "tasks/create", #"{"title":"Stand-up","due":"2026-12-01","recurrence":{"rule":"FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR"}}"#)
        let seriesID = try #require(first["id"]?.stringValue)
        var open = seriesID
        var dues: [String] = []
        for round in 0..<8 {
            let sent = clients.map { client in
                ["true", "false", "true"].map { client.send("tasks/update", #"{"id":"\#(open)","changes":{"done":\#($0)}}"#) }
            }
            for (client, ids) in zip(clients, sent) {
                for id in ids { #expect(try client.response(id)["result"] != nil, "round \(round)") }
            }
            let pending = try clients[0].request("tasks/fetch", #"{"filter":{"done":false},"limit":10}"#)["tasks"]?.arrayValue ?? []
            #expect(pending.count == 1, "round \(round): \(pending.count) open occurrences")
            let next = try #require(pending.first)
            #expect(next["seriesId"] == .string(seriesID))
            dues.append(next["due"]?.stringValue ?? "")
            open = try #require(next["id"]?.stringValue)
        }
        #expect(dues == ["2026-12-02", "2026-12-03", "2026-12-04", "2026-12-07", "2026-12-08", "2026-12-09", "2026-12-10", "2026-12-11"])
        let log = try clients[0].request("tasks/changes", #"{"since":0,"limit":1000}"#)["changes"]?.arrayValue ?? []
        #expect(log.filter { $0["kind"] == "created" }.count == 9)
        let all = try clients[0].request("tasks/fetch", #"{"limit":100}"#)["tasks"]?.arrayValue ?? []
        #expect(all.count == 9)
        for client in clients { client.server.closeInput() }
        let check = try runTaskline(["check", "--db", database.argument])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.lines.last == "sound")
    }

    @Test(arguments: StoreKind.allCases)
    func exportAndImportKeepTheRuleAndTheSeries(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let client = try start(database)
        let first = try client.request("tasks/create", #"{"title":"Backup","due":"2026-12-06","recurrence":{"rule":"FREQ=WEEKLY;INTERVAL=2"}}"#)
        let id = try #require(first["id"]?.stringValue)
        _ = try client.request("tasks/update", #"{"id":"\#(id)","changes":{"done":true}}"#)
        client.server.closeInput()
        let export = try runTaskline(["export", "--db", database.argument])
        #expect(export.status == 0)
        let copy = try TestDatabase.fresh(store)
        let imported = try runTaskline(["import", "-", "--db", copy.argument], stdin: Data(export.output.utf8))
        #expect(imported.status == 0, "\(imported.output)")
        let again = try runTaskline(["export", "--db", copy.argument])
        #expect(again.output == export.output)
        #expect(export.output.contains(#""recurrence":{"rule":"FREQ=WEEKLY;INTERVAL=2"},"seriesId":"\#(id)""#))
        #expect(export.output.contains(#""due":"2026-12-20""#))
    }
}
