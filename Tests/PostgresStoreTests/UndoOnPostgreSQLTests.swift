import TestSupport
import Testing

/// `tasks/undo` and `tasks/redo` through two real servers on one PostgreSQL database.
extension ServerOnPostgreSQLTests {
    /// An undo on one server is a new change that the other server's client hears; the
    /// other's edit since is a conflict (1007) for the first until forced.
    @Test func anUndoOnOneServerIsHeardOnTheOtherAndItsEditsConflict() throws {
        let connectionString = try Cluster.freshSchema()
        let a = Client(try start(connectionString))
        let b = Client(try start(connectionString))
        let created = try a.request("tasks/create", #"{"id":"t","title":"Before"}"#)
        #expect(created["result"]?["version"] == 1)
        _ = try a.request("tasks/update", #"{"id":"t","changes":{"title":"After","tags":["x"]}}"#)
        _ = try b.waitForChanges(count: 2)

        let undone = try a.request("tasks/undo", "{}")
        #expect(undone["result"]?["undone"]?["firstSeq"] == 2 && undone["result"]?["undone"]?["own"] == true)
        #expect(undone["result"]?["tasks"]?.arrayValue?.first?["title"] == "Before" && undone["result"]?["tasks"]?.arrayValue?.first?["version"] == 3)
        let heard = try b.waitForChanges(count: 3)[2]
        #expect(heard["seq"] == 3 && heard["kind"] == "updated" && heard["task"]?["title"] == "Before")
        #expect(heard["task"]?["tags"] == .array([]))

        // B's scope has no group of its own; its edit now conflicts with A's redo.
        #expect(try b.request("tasks/undo", "{}")["result"] == .object([:]))
        _ = try b.request("tasks/update", #"{"id":"t","changes":{"notes":"theirs"}}"#)
        let conflict = try a.request("tasks/redo", "{}")
        #expect(conflict["error"]?["code"] == 1007)
        #expect(conflict["error"]?["data"]?["tasks"]?.arrayValue?.first?["notes"] == "theirs")
        let forced = try a.request("tasks/redo", #"{"force":true}"#)
        #expect(forced["result"]?["redone"]?["kind"] == "undo")
        #expect(forced["result"]?["tasks"]?.arrayValue?.first?["title"] == "After" && forced["result"]?["tasks"]?.arrayValue?.first?["notes"] == "")
        let redoneHeard = try b.waitForChanges(count: 5)[4]
        #expect(redoneHeard["seq"] == 5 && redoneHeard["task"]?["title"] == "After")

        // B undoes A's redo across servers (scope database); A hears it.
        let theirs = try b.request("tasks/undo", #"{"scope":"database"}"#)
        #expect(theirs["result"]?["undone"]?["kind"] == "redo" && theirs["result"]?["undone"]?["own"] == false)
        #expect(try a.waitForChanges(count: 6).last?["task"]?["title"] == "Before")
    }
}
