import JSON
import Testing

@Suite struct MethodTests {
    @Test func createGetUpdateDeleteWithNotificationsAfterResponses() async throws {
        let run = try await ServerHarness().run([
            request(1, "tasks/create", #"{"id":"t","title":"Write tests","tags":["dev"],"priority":2,"due":"2026-12-01"}"#),
            request(2, "tasks/get", #"{"id":"t"}"#),
            request(3, "tasks/update", #"{"id":"t","changes":{"done":true,"due":null},"ifVersion":1}"#),
            request(4, "tasks/update", #"{"id":"t","changes":{"done":true}}"#),
            request(5, "tasks/delete", #"{"id":"t","ifVersion":2}"#),
        ])
        let created = try #require(run.result(1))
        #expect(created["title"] == "Write tests")
        #expect(created["version"] == 1)
        #expect(created["due"] == "2026-12-01")
        #expect(created["completedAt"] == .null)
        #expect(run.result(2) == created)
        #expect(run.result(3)?["version"] == 2)
        #expect(run.result(3)?["due"] == .null)
        #expect(run.result(3)?["completedAt"]?.stringValue?.hasSuffix("Z") == true)
        #expect(run.result(4)?["version"] == 2)
        #expect(run.result(5) == ["id": "t", "deleted": true])

        // A write's notification comes right after its response. Writes 3–5 were waiting
        // together, so they were committed together and announced together after the last
        // of their responses; the no-op update (4) made no change.
        let order = run.output.map { $0["id"].map { "r\(JSONWriter.string($0))" } ?? "n\(JSONWriter.string($0["params"]!["seq"]!))" }
        #expect(order == ["r1", "n1", "r2", "r3", "r4", "r5", "n3"])
        let changes = run.notifications.flatMap { $0["params"]!["changes"]!.arrayValue! }
        try #require(changes.count == 3)
        #expect(changes.map { $0["kind"] } == ["created", "updated", "deleted"])
        #expect(changes[0]["task"] == created)
        #expect(changes[2]["task"] == nil)
        #expect(changes[2]["version"] == 2)
    }

    @Test func applicationErrorsCarryTheirData() async throws {
        let run = try await ServerHarness().run([
            request(1, "tasks/get", #"{"id":"missing"}"#),
            request(2, "tasks/create", #"{"id":"a","title":"A"}"#),
            request(3, "tasks/create", #"{"id":"a","title":"again"}"#),
            request(4, "tasks/update", #"{"id":"a","changes":{"title":"B"},"ifVersion":7}"#),
            request(5, "tasks/delete", #"{"id":"missing"}"#),
        ])
        #expect(run.error(1)?["code"] == 1001)
        #expect(run.error(1)?["data"] == ["id": "missing"])
        #expect(run.error(3)?["code"] == 1003)
        #expect(run.error(3)?["data"] == ["id": "a"])
        #expect(run.error(4)?["code"] == 1002)
        #expect(run.error(4)?["data"]?["task"] == run.result(2))
        #expect(run.error(5)?["code"] == 1001)
    }

    @Test(arguments: [
        (#"[1]"#, ""),
        (#""x""#, ""),
        (#"{"title":"ok","titel":"typo"}"#, "titel"),
        (#"{}"#, "title"),
        (#"{"title":5}"#, "title"),
        (#"{"title":"ok","priority":"high"}"#, "priority"),
        (#"{"title":"ok","priority":1.5}"#, "priority"),
        (#"{"title":"ok","priority":7}"#, "priority"),
        (#"{"title":"ok","tags":"a"}"#, "tags"),
        (#"{"title":"ok","tags":["a",1]}"#, "tags[1]"),
        (#"{"title":"ok","done":"yes"}"#, "done"),
        (#"{"title":"ok","due":"soon"}"#, "due"),
        (#"{"title":"  "}"#, "title"),
    ])
    func createParamErrorsNameTheField(params: String, field: String) async throws {
        let run = try await ServerHarness().run([request(1, "tasks/create", params), request(2, "tasks/fetch", #"{"includeTotal":true}"#)])
        #expect(run.error(1)?["code"] == -32602)
        #expect(run.error(1)?["data"]?["field"] == .string(field))
        #expect(run.result(2)?["total"] == 0)
    }

    @Test(arguments: [
        ("tasks/update", #"{"id":"t","changes":{"priority":"x"}}"#, "changes.priority"),
        ("tasks/update", #"{"id":"t","changes":{"colour":"red"}}"#, "changes.colour"),
        ("tasks/update", #"{"id":"t"}"#, "changes"),
        ("tasks/update", #"{"id":"t","changes":{},"ifVersion":"1"}"#, "ifVersion"),
        ("tasks/update", #"{"id":"t","changes":{"due":5}}"#, "changes.due"),
        ("tasks/update", #"{"id":"t","changes":{"title":null}}"#, "changes.title"),
        ("tasks/update", #"{"id":"t","changes":{"tags":null}}"#, "changes.tags"),
        ("tasks/delete", #"{"id":"t","force":true}"#, "force"),
        ("tasks/get", #"{}"#, "id"),
        ("tasks/fetch", #"{"filter":{"tags":["a","b c"]}}"#, "filter.tags[1]"),
        ("tasks/fetch", #"{"filter":{"state":"open"}}"#, "filter.state"),
        ("tasks/fetch", #"{"sort":[{"field":"colour"}]}"#, "sort[0].field"),
        ("tasks/fetch", #"{"sort":[{"field":"due","order":"up"}]}"#, "sort[0].order"),
        ("tasks/fetch", #"{"sort":{"field":"due"}}"#, "sort"),
        ("tasks/fetch", #"{"limit":0}"#, "limit"),
        ("tasks/fetch", #"{"limit":1e30}"#, "limit"),
        ("tasks/fetch", #"{"cursor":"not-a-cursor"}"#, "cursor"),
        ("tasks/fetch", #"{"cursor":"00","offset":3}"#, "offset"),
    ])
    func paramErrorsNameTheField(method: String, params: String, field: String) async throws {
        let run = try await ServerHarness().run([request(0, "tasks/create", #"{"id":"t","title":"T"}"#), request(1, method, params)])
        #expect(run.error(1)?["code"] == -32602)
        #expect(run.error(1)?["data"]?["field"] == .string(field))
    }

    @Test func fetchPagesWithCursorsAndTotals() async throws {
        // Ids in creation order: tasks made within one millisecond are ordered by id.
        var lines = (1...5).map { request(100 + $0, "tasks/create", #"{"id":"t\#($0)","title":"task \#($0)"}"#) }
        lines.append(request(1, "tasks/fetch", #"{"limit":2,"includeTotal":true}"#))
        let first = try await ServerHarness().run(lines)
        let page = try #require(first.result(1))
        #expect(page["tasks"]?.arrayValue?.map { $0["title"] } == ["task 1", "task 2"])
        #expect(page["total"] == 5)
        #expect(page["nextCursor"]?.stringValue != nil)
    }

    @Test func notificationsCanBeTurnedOff() async throws {
        let run = try await ServerHarness().run(
            [
                #"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"initializationOptions":{"notifications":false}}}"#,
                request(1, "tasks/create", #"{"title":"quiet"}"#),
            ], initialized: false)
        #expect(run.result("init")?["capabilities"]?["notifications"]?["didChange"] == false)
        #expect(run.result(1)?["title"] == "quiet")
        #expect(run.notifications.isEmpty)
    }

    @Test func methodsSentAsNotificationsAreCarriedOutSilently() async throws {
        let run = try await ServerHarness().run([
            notification("tasks/create", #"{"id":"n","title":"fire and forget"}"#),
            notification("tasks/create", #"{"title":5}"#),
            request(1, "tasks/get", #"{"id":"n"}"#),
        ])
        #expect(run.output.filter { $0["id"] != nil }.count == 1)
        #expect(run.result(1)?["title"] == "fire and forget")
        #expect(run.notifications.count == 1)
    }

    @Test func batchesAnswerInOneArrayThenNotify() async throws {
        let batch =
            "["
            + [
                request(1, "tasks/create", #"{"id":"b","title":"in batch"}"#),
                notification("tasks/update", #"{"id":"b","changes":{"priority":1}}"#),
                "1",
                request(2, "tasks/get", #"{"id":"b"}"#),
            ].joined(separator: ",") + "]"
        let run = try await ServerHarness().run([batch, "[" + notification("initialized") + "]"])
        #expect(run.output.count == 2)
        let responses = try #require(run.output.first?.arrayValue)
        #expect(responses.count == 3)
        #expect(responses[0]["id"] == 1)
        #expect(responses[1]["error"]?["code"] == -32600)
        #expect(responses[1]["id"] == .null)
        #expect(responses[2]["result"]?["priority"] == 1)
        // The batch's changes come together, after its responses.
        #expect(run.notifications.map { $0["params"]?["seq"] } == [2])
        #expect(run.notifications.first?["params"]?["changes"]?.arrayValue?.map { $0["seq"] } == [1, 2])
    }
}

@Suite struct GroupCommitTests {
    @Test func waitingWritesCommitTogetherAndFailAlone() async throws {
        let run = try await ServerHarness().run([
            request(1, "tasks/create", #"{"id":"a","title":"first"}"#),
            request(2, "tasks/create", #"{"id":"a","title":"duplicate"}"#),
            request(3, "tasks/create", #"{"title":"bad","priority":9}"#),
            request(4, "tasks/update", #"{"id":"a","changes":{"typo":1}}"#),
            request(5, "tasks/create", #"{"id":"cancelled","title":"never"}"#),
            notification("$/cancelRequest", #"{"id":5}"#),
            request(6, "tasks/update", #"{"id":"a","changes":{"done":true},"ifVersion":1}"#),
            request(7, "tasks/delete", #"{"id":"missing"}"#),
            request(8, "tasks/get", #"{"id":"a"}"#),
        ])
        #expect(run.result(1)?["title"] == "first")
        #expect(run.error(2)?["code"] == 1003)
        #expect(run.error(3)?["data"]?["field"] == "priority")
        #expect(run.error(4)?["data"]?["field"] == "changes.typo")
        #expect(run.error(5)?["code"] == -32800)
        #expect(run.result(6)?["version"] == 2)
        #expect(run.error(7)?["code"] == 1001)
        #expect(run.result(8)?["done"] == true)
        // Responses keep request order; the group's two changes come in one notification
        // after the last response of the group (7), before the read that follows it (8).
        let ids = run.output.map { $0["id"] ?? "note" }
        #expect(ids == [1, 2, 3, 4, 5, 6, 7, "note", 8])
        #expect(run.notifications.first?["params"]?["changes"]?.arrayValue?.map { $0["kind"] } == ["created", "updated"])
    }
}
