import Foundation
import JSON
import TestSupport
import Testing

/// `tasks/undo`, `tasks/redo` and `taskline undo/redo` against the real binary: two
/// connections to one database, restarts, and the command line.
@Suite struct UndoEndToEndTests {
    func start(_ database: TestDatabase) throws -> Client {
        let client = Client(try ServerProcess(["--db", database.argument]))
        _ = try client.request("initialize", "{}")
        return client
    }

    func id(_ task: JSON) throws -> String {
        try #require(task["id"]?.stringValue)
    }

    @Test(arguments: StoreKind.allCases)
    func aDeletedTaskComesBackWithItsFieldsTagsAndDependenciesAndEveryClientHears(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let a = try start(database)
        let b = try start(database)
        _ = try a.request("tasks/create", #"{"id":"target","title":"target"}"#)
        let task = try a.request(
            "tasks/create",
            #"{"id":"t","title":"T","notes":"n","priority":3,"tags":["x","y"],"due":"2026-12-05","#
                + #""project":"Home","dependsOn":["target"],"wait":"2026-12-01T08:00:00Z","meta":{"editor":{"line":4}}}"#)
        _ = try a.request("tasks/create", #"{"id":"dependent","title":"d","dependsOn":["t"]}"#)
        _ = try a.request("tasks/delete", #"{"id":"t"}"#)
        #expect(try a.request("tasks/get", #"{"id":"dependent"}"#)["dependsOn"] == [])
        _ = try b.waitForChanges(count: 5)

        let undone = try a.request("tasks/undo")
        #expect(undone["undone"]?["kind"] == "write" && undone["undone"]?["own"] == true)
        #expect(undone["deleted"] == [])
        let back = try a.request("tasks/get", #"{"id":"t"}"#)
        for field in ["title", "notes", "priority", "tags", "due", "project", "dependsOn", "wait", "meta", "createdAt", "completedAt"] {
            #expect(back[field] == task[field], "\(field)")
        }
        #expect(back["version"] == 2)
        #expect(try a.request("tasks/get", #"{"id":"dependent"}"#)["dependsOn"] == ["t"])
        // The reversal is new changes, after the delete's, which the other client hears.
        let heard = try b.waitForChanges(count: 2)
        #expect(heard.map { $0["seq"] } == [6, 7])
        #expect(Set(heard.compactMap { $0["id"]?.stringValue }) == ["t", "dependent"])
        // The other connection has nothing of its own to undo.
        #expect(try b.request("tasks/undo") == .object([:]))
        #expect(try b.request("tasks/redo") == .object([:]))

        let redone = try a.request("tasks/redo")
        #expect(redone["redone"]?["kind"] == "undo")
        #expect(redone["deleted"] == ["t"])
        #expect(try a.requestError("tasks/get", #"{"id":"t"}"#)["code"] == 1001)
    }

    @Test(arguments: StoreKind.allCases)
    func anEditByAnotherConnectionIsAnUndoConflictUntilForced(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let a = try start(database)
        let b = try start(database)
        let task = try a.request("tasks/create", #"{"title":"mine"}"#)
        let taskID = try id(task)
        _ = try a.request("tasks/update", #"{"id":"\#(taskID)","changes":{"title":"mine, edited"}}"#)
        _ = try b.request("tasks/update", #"{"id":"\#(taskID)","changes":{"done":true}}"#)
        let seq = try a.request("tasks/fetch", #"{"limit":1}"#)["seq"]

        let conflict = try a.requestError("tasks/undo", "{}")
        #expect(conflict["code"] == 1007)
        #expect(conflict["data"]?["tasks"]?.arrayValue?.first?["done"] == true)
        #expect(conflict["data"]?["tasks"]?.arrayValue?.first?["version"] == 3)
        #expect(conflict["data"]?["deleted"] == [])
        #expect(try a.request("tasks/fetch", #"{"limit":1}"#)["seq"] == seq, "nothing was reverted")

        let forced = try a.request("tasks/undo", #"{"force":true}"#)
        #expect(forced["tasks"]?.arrayValue?.first?["title"] == "mine")
        #expect(forced["tasks"]?.arrayValue?.first?["done"] == false)
        #expect(forced["tasks"]?.arrayValue?.first?["version"] == 4)
        // The other connection undoes its own edit on top: a conflict with the forced undo.
        #expect(try b.requestError("tasks/undo", "{}")["code"] == 1007)
    }

    /// An undo on one server is a new change that the other server's client hears; the
    /// other's edit since is a conflict (1007) for the first's redo until forced; and the
    /// other undoes the first's redo across servers (scope database), which the first hears.
    @Test(arguments: StoreKind.allCases)
    func anUndoOnOneServerIsHeardOnTheOtherAndItsEditsConflictWithTheRedo(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let a = try start(database)
        let b = try start(database)
        #expect(try a.request("tasks/create", #"{"id":"t","title":"Before"}"#)["version"] == 1)
        _ = try a.request("tasks/update", #"{"id":"t","changes":{"title":"After","tags":["x"]}}"#)
        _ = try b.waitForChanges(count: 2)

        let undone = try a.request("tasks/undo")
        #expect(undone["undone"]?["firstSeq"] == 2 && undone["undone"]?["own"] == true)
        #expect(undone["tasks"]?.arrayValue?.first?["title"] == "Before" && undone["tasks"]?.arrayValue?.first?["version"] == 3)
        let heard = try b.waitForChanges(count: 1)[0]
        #expect(heard["seq"] == 3 && heard["kind"] == "updated" && heard["task"]?["title"] == "Before")
        #expect(heard["task"]?["tags"] == [])

        // B's scope has no group of its own; its edit now conflicts with A's redo.
        #expect(try b.request("tasks/undo") == .object([:]))
        _ = try b.request("tasks/update", #"{"id":"t","changes":{"notes":"theirs"}}"#)
        let conflict = try a.requestError("tasks/redo", "{}")
        #expect(conflict["code"] == 1007)
        #expect(conflict["data"]?["tasks"]?.arrayValue?.first?["notes"] == "theirs")
        let forced = try a.request("tasks/redo", #"{"force":true}"#)
        #expect(forced["redone"]?["kind"] == "undo")
        #expect(forced["tasks"]?.arrayValue?.first?["title"] == "After" && forced["tasks"]?.arrayValue?.first?["notes"] == "")
        let redoneHeard = try b.waitForChanges(count: 2).last
        #expect(redoneHeard?["seq"] == 5 && redoneHeard?["task"]?["title"] == "After")

        let theirs = try b.request("tasks/undo", #"{"scope":"database"}"#)
        #expect(theirs["undone"]?["kind"] == "redo" && theirs["undone"]?["own"] == false)
        #expect(try a.waitForChanges(count: 6).last?["task"]?["title"] == "Before")
    }

    @Test(arguments: StoreKind.allCases)
    func scopeDatabaseUndoesAnyWritersGroupAndANewWriteClearsRedo(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let a = try start(database)
        let b = try start(database)
        _ = try a.request("tasks/apply", #"{"operations":[{"create":{"id":"1","title":"one"}},{"create":{"id":"2","title":"two"}}]}"#)
        _ = try b.request("tasks/create", #"{"id":"3","title":"three"}"#)
        let theirs = try a.request("tasks/undo", #"{"scope":"database"}"#)
        #expect(theirs["undone"]?["own"] == false && theirs["deleted"] == ["3"])
        let mine = try a.request("tasks/undo", #"{"scope":"connection"}"#)
        #expect(mine["deleted"] == ["1", "2"])
        _ = try a.request("tasks/create", #"{"id":"4","title":"four"}"#)
        #expect(try a.request("tasks/redo") == .object([:]))
        #expect(try a.request("tasks/redo", #"{"scope":"database"}"#) == .object([:]))
    }

    @Test(arguments: StoreKind.allCases)
    func groupsSurviveARestartForScopeDatabase(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        do {
            let a = try start(database)
            _ = try a.request("tasks/create", #"{"id":"kept","title":"kept"}"#)
            _ = try a.request("tasks/update", #"{"id":"kept","changes":{"tags":["late"]}}"#)
            _ = try a.request("shutdown", "null")
            a.server.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
            #expect(a.server.waitForExit() == 0)
        }
        let c = try start(database)
        #expect(try c.request("tasks/undo") == .object([:]), "a new connection has no groups of its own")
        let undone = try c.request("tasks/undo", #"{"scope":"database"}"#)
        #expect(undone["tasks"]?.arrayValue?.first?["tags"] == [])
        #expect(undone["undone"]?["own"] == false)
    }

    @Test(arguments: StoreKind.allCases)
    func badParamsAreRefusedWithTheirField(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let a = try start(database)
        for (method, params, field) in [
            ("tasks/undo", #"{"scope":"everything"}"#, "scope"), ("tasks/undo", #"{"scope":1}"#, "scope"),
            ("tasks/redo", #"{"force":"yes"}"#, "force"), ("tasks/redo", #"{"forced":true}"#, "forced"),
        ] {
            let error = try a.requestError(method, params)
            #expect(error["code"] == -32602)
            #expect(error["data"]?["field"]?.stringValue == field, "\(method) \(params)")
        }
        #expect(try a.requestError("tasks/undo", "[1]")["code"] == -32602)
    }

    @Test(arguments: StoreKind.allCases)
    func theCommandLineUndoesAndRedoesItsOwnChangesOnly(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let path = database.argument
        let server = try start(database)
        _ = try server.request("tasks/create", #"{"id":"from-editor","title":"from the editor"}"#)
        #expect(try runTaskline(["add", "--db", path, "Buy", "milk"]).status == 0)
        let listed = try runTaskline(["list", "--db", path])
        let shortID = try #require(listed.lines.last?.split(separator: " ").first.map(String.init))
        #expect(try runTaskline(["done", "--db", path, shortID]).status == 0)

        let undo = try runTaskline(["undo", "--db", path])
        #expect(undo.status == 0)
        #expect(undo.lines.first == "undid 1 change")
        #expect(undo.lines.last?.contains("[ ]  Buy milk") == true)
        let undoAdd = try runTaskline(["undo", "--db", path])
        #expect(undoAdd.lines.first == "undid 1 change")
        let nothing = try runTaskline(["undo", "--db", path])
        #expect(nothing.status == 1 && nothing.stderr.contains("nothing to undo"))
        #expect(try runTaskline(["list", "--db", path]).lines.map { $0.contains("from the editor") } == [true])

        #expect(try runTaskline(["redo", "--db", path]).status == 0)
        let redone = try runTaskline(["redo", "--db", path])
        #expect(redone.lines.last?.contains("[x]  Buy milk") == true)
        #expect(try runTaskline(["redo", "--db", path]).status == 1)
        // The server hears the command line's changes.
        let heard = try server.waitForChanges(count: 7)
        #expect(heard.last?["task"]?["done"] == true)

        // An edit by the editor since is a conflict; --force reverts anyway.
        let id = try #require(heard.last?["id"]?.stringValue)
        _ = try server.request("tasks/update", #"{"id":"\#(id)","changes":{"title":"Buy oat milk"}}"#)
        let conflict = try runTaskline(["undo", "--db", path])
        #expect(conflict.status == 1 && conflict.stderr.contains("Buy oat milk"))
        let forced = try runTaskline(["undo", "--db", path, "--force"])
        #expect(forced.status == 0 && forced.lines.last?.contains("[ ]  Buy milk") == true)
    }

    @Test(arguments: StoreKind.allCases)
    func theCommandLineUndoesAnEditorsCompletionWithAny(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let path = database.argument
        let editor = try start(database)
        #expect(try runTaskline(["add", "--db", path, "Buy", "milk"]).status == 0)
        _ = try editor.request("tasks/create", #"{"id":"plants","title":"Water the plants"}"#)
        _ = try editor.request("tasks/update", #"{"id":"plants","changes":{"done":true}}"#)

        // Without --any, the command line's own: its add, then nothing, with the hint.
        let own = try runTaskline(["undo", "--db", path])
        #expect(own.lines.first == "undid 1 change")
        #expect(own.lines.last?.hasPrefix("  removed ") == true)
        let nothing = try runTaskline(["undo", "--db", path])
        #expect(nothing.status == 1 && nothing.stderr.contains("--any"))
        #expect(try editor.request("tasks/get", #"{"id":"plants"}"#)["done"] == true)

        // --any reaches the editor's completion.
        let any = try runTaskline(["undo", "--db", path, "--any"])
        #expect(any.status == 0, "\(any.stderr)")
        #expect(any.lines.first == "undid 1 change made by another program")
        #expect(any.lines.last?.contains("[ ]  Water the plants") == true)
        #expect(try editor.request("tasks/get", #"{"id":"plants"}"#)["done"] == false)
        let redone = try runTaskline(["redo", "--db", path, "--any"])
        #expect(redone.lines.last?.contains("[x]  Water the plants") == true)
    }
}
