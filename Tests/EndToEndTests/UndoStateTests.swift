import Foundation
import JSON
import TestSupport
import Testing

/// What `tasks/undo` and `tasks/redo` bring back, against the real binary on both stores:
/// each task of a group goes back to its state before the group's first change of it, and
/// a redo to its state after the group's last.
@Suite struct UndoStateTests {
    func start(_ database: TestDatabase) throws -> Client {
        let client = Client(try ServerProcess(["--db", database.argument]))
        _ = try client.request("initialize", "{}")
        return client
    }

    /// Every task, by id, without the fields a reversal moves on (`version`, `updatedAt`).
    func state(_ client: Client) throws -> [String: JSON] {
        var tasks: [String: JSON] = [:]
        var cursor = "null"
        repeat {
            let page = try client.request("tasks/fetch", #"{"limit":1000,"cursor":\#(cursor)}"#)
            for task in page["tasks"]?.arrayValue ?? [] {
                guard var object = task.objectValue, let id = task["id"]?.stringValue else { continue }
                object["version"] = nil
                object["updatedAt"] = nil
                tasks[id] = .object(object)
            }
            cursor = page["nextCursor"].map { JSONWriter.string($0) } ?? "null"
        } while cursor != "null"
        return tasks
    }

    /// The tasks that differ between `found` and `expected`, as each has them.
    func difference(_ found: [String: JSON], _ expected: [String: JSON]) -> String {
        Set(found.keys).union(expected.keys).sorted().filter { found[$0] != expected[$0] }
            .map {
                "\($0): \(found[$0].map { JSONWriter.string($0) } ?? "absent") expected \(expected[$0].map { JSONWriter.string($0) } ?? "absent")"
            }
            .joined(separator: "; ")
    }

    @Test(arguments: StoreKind.allCases)
    func aTaskCreatedAndThenChangedInOneGroupIsDeletedByItsUndo(store: StoreKind) throws {
        let client = try start(try TestDatabase.fresh(store))
        _ = try client.request(
            "tasks/apply",
            #"{"operations":[{"create":{"id":"c","title":"made"}},"#
                + #"{"update":{"id":"c","changes":{"title":"changed","tags":["x"]}}}]}"#)
        let undone = try client.request("tasks/undo")
        #expect(undone["deleted"] == ["c"] && undone["tasks"] == [])
        #expect(try client.requestError("tasks/get", #"{"id":"c"}"#)["code"] == 1001)

        let redone = try client.request("tasks/redo")
        #expect(redone["tasks"]?.arrayValue?.first?["title"] == "changed")
        #expect(try client.request("tasks/get", #"{"id":"c"}"#)["tags"] == ["x"])
    }

    @Test(arguments: StoreKind.allCases)
    func aTaskCreatedAndDeletedInOneGroupStaysAbsentThroughUndoAndRedo(store: StoreKind) throws {
        let client = try start(try TestDatabase.fresh(store))
        _ = try client.request("tasks/create", #"{"id":"kept","title":"kept"}"#)
        _ = try client.request(
            "tasks/apply",
            #"{"operations":[{"create":{"id":"a","title":"brief"}},{"delete":{"id":"a"}},"#
                + #"{"update":{"id":"kept","changes":{"notes":"n"}}}]}"#)
        let undone = try client.request("tasks/undo")
        #expect(undone["deleted"] == ["a"])
        #expect(try client.requestError("tasks/get", #"{"id":"a"}"#)["code"] == 1001)
        #expect(try client.request("tasks/get", #"{"id":"kept"}"#)["notes"] == "")
        // The undo changed `kept` alone: the redo's group has no `a`.
        let redone = try client.request("tasks/redo")
        #expect(redone["tasks"]?.arrayValue?.map { $0["id"] } == ["kept"] && redone["deleted"] == [])
        #expect(try client.requestError("tasks/get", #"{"id":"a"}"#)["code"] == 1001)
        #expect(try client.request("tasks/get", #"{"id":"kept"}"#)["notes"] == "n")
    }

    @Test(arguments: StoreKind.allCases)
    func aTaskUpdatedTwiceInOneGroupGoesBackToItsStateBeforeTheFirst(store: StoreKind) throws {
        let client = try start(try TestDatabase.fresh(store))
        _ = try client.request("tasks/create", #"{"id":"t","title":"first","priority":1}"#)
        _ = try client.request(
            "tasks/apply",
            #"{"operations":[{"update":{"id":"t","changes":{"title":"second"}}},"#
                + #"{"update":{"id":"t","changes":{"title":"third","priority":3}}}]}"#)
        let undone = try client.request("tasks/undo")
        #expect(undone["tasks"]?.arrayValue?.first?["title"] == "first")
        #expect(undone["tasks"]?.arrayValue?.first?["priority"] == 1)
        let redone = try client.request("tasks/redo")
        #expect(redone["tasks"]?.arrayValue?.first?["title"] == "third")
        #expect(redone["tasks"]?.arrayValue?.first?["priority"] == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func aRecurringCompletionsSuccessorIsDeletedByTheUndoOfItsGroupAndTheOccurrenceReopened(store: StoreKind) throws {
        let client = try start(try TestDatabase.fresh(store))
        _ = try client.request("tasks/create", #"{"id":"r","title":"water","due":"2027-01-04","recurrence":{"rule":"FREQ=WEEKLY"}}"#)
        _ = try client.request("tasks/update", #"{"id":"r","changes":{"done":true}}"#)
        let successor = try #require(try state(client).keys.first { $0 != "r" })
        _ = try client.request(
            "tasks/apply",
            #"{"operations":[{"update":{"id":"\#(successor)","changes":{"done":true}}},"#
                + #"{"update":{"id":"\#(successor)","changes":{"title":"water twice"}}}]}"#)
        let made = try state(client).filter { $0.value["done"] == false }
        #expect(made.count == 1)
        let next = try #require(made.keys.first)
        // The apply made `next` and changed `successor`; its undo deletes one and reopens the other.
        let undone = try client.request("tasks/undo")
        #expect(undone["deleted"] == [.string(next)])
        let back = try client.request("tasks/get", #"{"id":"\#(successor)"}"#)
        #expect(back["done"] == false && back["title"] == "water")
    }

    /// D7: an edit by another program that keeps the version is still a change (§5: they always count).
    @Test func anEditByTheSQLite3ShellThatKeepsTheVersionIsAnUndoConflict() throws {
        let database = try TestDatabase.fresh(.sqlite)
        let client = try start(database)
        _ = try client.request("tasks/create", #"{"id":"t","title":"mine"}"#)
        _ = try client.request("tasks/update", #"{"id":"t","changes":{"notes":"by me"}}"#)
        let shell = ChildProcess()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [
            "-bail", "-cmd", ".timeout 10000", database.argument, "UPDATE task SET notes = 'by hand', notes_fold = 'by hand' WHERE id = 't'",
        ]
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        #expect(try client.waitForChanges(count: 3).last?["task"]?["notes"] == "by hand")

        let conflict = try client.requestError("tasks/undo", "{}")
        #expect(conflict["code"] == 1007)
        #expect(conflict["data"]?["tasks"]?.arrayValue?.first?["notes"] == "by hand")
        #expect(try client.request("tasks/get", #"{"id":"t"}"#)["notes"] == "by hand")
        #expect(try client.request("tasks/undo", #"{"force":true}"#)["tasks"]?.arrayValue?.first?["notes"] == "")
    }

    /// Creates `t`, a monthly task, completes it and deletes the occurrence it made: that
    /// occurrence's id.
    func occurrenceMadeAndDeleted(by client: Client) throws -> String {
        _ = try client.request("tasks/create", #"{"id":"t","title":"rent","due":"2027-01-31","recurrence":{"rule":"FREQ=MONTHLY"}}"#)
        _ = try client.request("tasks/update", #"{"id":"t","changes":{"done":true}}"#)
        let first = try #require(try state(client).keys.first { $0 != "t" })
        _ = try client.request("tasks/delete", #"{"id":"\#(first)"}"#)
        return first
    }

    /// D8: an undo that would bring back an occurrence whose maker has made another since.
    @Test(arguments: StoreKind.allCases)
    func bringingBackAnOccurrenceWhoseMakerMadeAnotherIsAnUndoConflict(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let a = try start(database)
        let b = try start(database)
        let first = try occurrenceMadeAndDeleted(by: a)
        _ = try b.request("tasks/update", #"{"id":"t","changes":{"done":false}}"#)
        _ = try b.request("tasks/update", #"{"id":"t","changes":{"done":true}}"#)
        let second = try #require(try state(b).keys.first { $0 != "t" })

        let conflict = try a.requestError("tasks/undo", "{}")
        #expect(conflict["code"] == 1007)
        #expect(conflict["data"]?["tasks"]?.arrayValue?.map { $0["id"] } == ["t"])
        #expect(Set(try state(a).keys) == ["t", second], "nothing was reverted")
        // Forced, the occurrence comes back beside the other, as asked.
        _ = try a.request("tasks/undo", #"{"force":true}"#)
        #expect(Set(try state(a).keys) == ["t", first, second])
    }

    @Test(arguments: StoreKind.allCases)
    func bringingBackAnOccurrenceWhoseMakerHasMadeNoOtherIsNoConflict(store: StoreKind) throws {
        let client = try start(try TestDatabase.fresh(store))
        let first = try occurrenceMadeAndDeleted(by: client)
        _ = try client.request("tasks/undo")
        #expect(Set(try state(client).keys) == ["t", first])
        // Completing `t` again makes none: the one it made exists again.
        _ = try client.request("tasks/update", #"{"id":"t","changes":{"done":false}}"#)
        _ = try client.request("tasks/update", #"{"id":"t","changes":{"done":true}}"#)
        #expect(Set(try state(client).keys) == ["t", first])
    }

    /// The next occurrence an occurrence made is part of its state: undone, a group that
    /// deleted it and made another brings the first back as the one made, so completing the
    /// occurrence again makes none beside it.
    @Test(arguments: StoreKind.allCases)
    func anUndoneGroupLeavesEachOccurrenceOneNextOccurrence(store: StoreKind) throws {
        let client = try start(try TestDatabase.fresh(store))
        let first = try occurrenceMadeAndDeleted(by: client)
        _ = try client.request("tasks/undo")
        _ = try client.request(
            "tasks/apply",
            #"{"operations":[{"delete":{"id":"\#(first)"}},{"update":{"id":"t","changes":{"done":false}}},"#
                + #"{"update":{"id":"t","changes":{"done":true}}}]}"#)
        #expect(try state(client).count == 2, "t and the occurrence it made again")
        _ = try client.request("tasks/undo")
        #expect(Set(try state(client).keys) == ["t", first])
        _ = try client.request("tasks/update", #"{"id":"t","changes":{"done":false}}"#)
        _ = try client.request("tasks/update", #"{"id":"t","changes":{"done":true}}"#)
        #expect(Set(try state(client).keys) == ["t", first], "completed again, t makes none beside the one it made")
    }

    /// Random groups of creates, updates, deletes and completions (some recurring, some with
    /// dependencies), each undone and redone, against a model that keeps every task as it was
    /// before the group and after it.
    @Test(arguments: StoreKind.allCases)
    func undoAndRedoOfRandomGroupsRestoreTheStatesBeforeAndAfter(store: StoreKind) throws {
        let client = try start(try TestDatabase.fresh(store))
        var random = SplitMix64(seed: 0x5eed_0052)
        func pick(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }
        var made = 0
        for round in 0..<60 {
            let before = try state(client)
            var live = Array(before.keys).sorted()
            var operations: [String] = []
            for _ in 0...pick(5) {
                switch pick(6) {
                case 0, 1:
                    made += 1
                    let id = "t\(made)"
                    var fields = [#""id":"\#(id)""#, #""title":"task \#(made)""#, #""tags":["r\#(pick(3))"]"#]
                    if pick(3) == 0 { fields += [#""due":"2027-01-31""#, #""recurrence":{"rule":"FREQ=MONTHLY"}"#] }
                    if !live.isEmpty, pick(3) == 0 { fields.append(#""dependsOn":["\#(live[pick(live.count)])"]"#) }
                    operations.append(#"{"create":{\#(fields.joined(separator: ","))}}"#)
                    live.append(id)
                case 2,
                    3 where !live.isEmpty:
                    let changes = [
                        #""title":"edit \#(round)""#, #""done":true"#, #""done":false"#, #""tags":["e\#(round)"]"#,
                        #""priority":\#(pick(4))"#, #""notes":"n\#(round)""#,
                        #""addAnnotations":[{"text":"a\#(round)"}]"#, #""startedAt":"2027-01-0\#(1 + pick(9))T08:00:00Z""#,
                        #""startedAt":null"#,
                    ][pick(9)]
                    operations.append(#"{"update":{"id":"\#(live[pick(live.count)])","changes":{\#(changes)}}}"#)
                case 4 where !live.isEmpty:
                    operations.append(#"{"delete":{"id":"\#(live.remove(at: pick(live.count)))"}}"#)
                default:
                    continue
                }
            }
            guard !operations.isEmpty else { continue }
            _ = try client.request("tasks/apply", #"{"operations":[\#(operations.joined(separator: ","))]}"#)
            let after = try state(client)
            guard after != before else { continue }
            _ = try client.request("tasks/undo")
            let undone = try state(client)
            #expect(difference(undone, before).isEmpty, "round \(round): the undo of \(operations): \(difference(undone, before))")
            _ = try client.request("tasks/redo")
            let redone = try state(client)
            #expect(difference(redone, after).isEmpty, "round \(round): the redo of \(operations): \(difference(redone, after))")
        }
    }
}
