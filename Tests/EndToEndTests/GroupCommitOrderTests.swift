import Foundation
import JSON
import TestSupport
import Testing

/// Group commit through the real binary: a pipelined run of writes, some of which fail,
/// against a model of the store kept by the test. Each write gets its own answer, in the
/// order sent; the failures change nothing; the others are stored; and the changes are
/// announced in `seq` order, which is the order of the writes that succeeded.
@Suite struct GroupCommitOrderTests {
    /// What the model expects of one write.
    enum Outcome: Equatable {
        case written(kind: String, id: String, version: Int)
        case failed(code: Int)
    }

    /// Writes of every kind, chosen by a fixed linear congruential sequence, each with the
    /// outcome the model gives it: creates (new ids, taken ids, bad params), updates (right
    /// and wrong `ifVersion`, missing ids) and deletes (live and missing ids).
    static func plannedWrites(count: Int) -> (requests: [String], outcomes: [Outcome], live: [String: Int]) {
        var live: [String: Int] = [:]
        var order: [String] = []  // live ids, oldest first, so that choices are reproducible
        var requests: [String] = []
        var outcomes: [Outcome] = []
        var state: UInt64 = 12_345
        for index in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let choice = Int(state >> 33)
            let target = order.isEmpty ? nil : order[choice / 8 % order.count]
            let request: String
            switch (choice % 8, target) {
            case (2, let id?):
                request = #""method":"tasks/create","params":{"id":"\#(id)","title":"again"}"#
                outcomes.append(.failed(code: 1003))
            case (3, _):
                request = #""method":"tasks/create","params":{"id":"bad\#(index)","title":"bad","priority":9}"#
                outcomes.append(.failed(code: -32602))
            case (4, let id?):
                live[id]! += 1
                request = #""method":"tasks/update","params":{"id":"\#(id)","ifVersion":\#(live[id]! - 1),"changes":{"title":"u\#(index)"}}"#
                outcomes.append(.written(kind: "updated", id: id, version: live[id]!))
            case (5, let id?):
                request = #""method":"tasks/update","params":{"id":"\#(id)","ifVersion":\#(live[id]! + 5),"changes":{"done":true}}"#
                outcomes.append(.failed(code: 1002))
            case (6, _):
                let verb =
                    choice % 16 < 8
                    ? #""method":"tasks/delete","params":{"id":"gone\#(index)"}"#
                    : #""method":"tasks/update","params":{"id":"gone\#(index)","changes":{"done":true}}"#
                request = verb
                outcomes.append(.failed(code: 1001))
            case (7, let id?):
                request = #""method":"tasks/delete","params":{"id":"\#(id)"}"#
                outcomes.append(.written(kind: "deleted", id: id, version: live[id]!))  // the version it had
                live[id] = nil
                order.removeAll { $0 == id }
            default:
                let id = "g\(index)"
                request = #""method":"tasks/create","params":{"id":"\#(id)","title":"t\#(index)"}"#
                outcomes.append(.written(kind: "created", id: id, version: 1))
                live[id] = 1
                order.append(id)
            }
            requests.append(#"{"jsonrpc":"2.0","id":\#(index + 1),\#(request)}"#)
        }
        return (requests, outcomes, live)
    }

    @Test(arguments: StoreKind.allCases)
    func aPipelinedRunOfWritesFailsAloneAndIsAnsweredAndAnnouncedInOrder(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let (requests, outcomes, live) = Self.plannedWrites(count: 36)
        let written = outcomes.compactMap { outcome -> (kind: String, id: String, version: Int)? in
            guard case .written(let kind, let id, let version) = outcome else { return nil }
            return (kind, id, version)
        }
        #expect(written.count >= 10 && written.count <= 30, "the plan mixes successes and failures")
        let run = requests.joined(separator: "\n") + "\n"
        #expect(run.utf8.count < 4096, "one write to the pipe, read whole")

        let server = try ServerProcess(["--db", database.argument])
        try server.initialize()
        _ = server.write(run)
        var responses: [JSON] = []
        var notifications: [JSON] = []
        while responses.count < requests.count || notifications.flatMap({ $0["changes"]?.arrayValue ?? [] }).count < written.count {
            let message = try server.next()
            if message["method"] == "tasks/didChange" {
                notifications.append(message["params"] ?? .null)
            } else {
                responses.append(message)
            }
        }

        // One answer each, in the order sent, each the one the model expects.
        #expect(responses.map { $0["id"] } == (1...requests.count).map { JSON.integer(Int64($0)) })
        for (response, outcome) in zip(responses, outcomes) {
            switch outcome {
            case .failed(let code):
                #expect(response["error"]?["code"] == .integer(Int64(code)), "\(response)")
            case .written(let kind, let id, let version):
                #expect(response["result"]?["id"] == .string(id), "\(response)")
                if kind != "deleted" { #expect(response["result"]?["version"] == .integer(Int64(version)), "\(response)") }
            }
        }

        // The changes: one per successful write, numbered 1, 2, 3… in the order the writes
        // were sent, and each notification's seq the last of its changes.
        let changes = notifications.flatMap { $0["changes"]?.arrayValue ?? [] }
        #expect(changes.map { $0["seq"] } == (1...written.count).map { JSON.integer(Int64($0)) })
        #expect(changes.map { $0["kind"]?.stringValue ?? "" } == written.map(\.kind))
        #expect(changes.map { $0["id"]?.stringValue ?? "" } == written.map(\.id))
        #expect(changes.map { $0["version"] } == written.map { JSON.integer(Int64($0.version)) })
        #expect(notifications.map { $0["seq"] } == notifications.map { $0["changes"]?.arrayValue?.last?["seq"] ?? .null })
        // Committed together: fewer notifications than writes (one per commit).
        #expect(notifications.count < written.count)

        server.sendLine(#"{"jsonrpc":"2.0","id":"end","method":"shutdown"}"#)
        _ = try server.next()
        server.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(server.waitForExit() == 0)

        // Stored: exactly the model's live tasks, at the model's versions.
        let export = try runTaskline(["export", "--db", database.argument])
        #expect(export.status == 0, "\(export.stderr)")
        var stored: [String: JSON] = [:]
        for line in export.lines {
            let task = try JSONParser.parse(Array(line.utf8))
            stored[task["id"]?.stringValue ?? ""] = task["version"]
        }
        #expect(stored == live.mapValues { JSON.integer(Int64($0)) })
    }
}
