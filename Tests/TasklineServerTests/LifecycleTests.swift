import JSON
import Testing

@Suite struct LifecycleTests {
    @Test func initializeAnswersWithServerInfoAndCapabilities() async throws {
        let run = try await ServerHarness().run([ServerHarness.initialize], initialized: false)
        let result = try #require(run.result("init"))
        #expect(result["serverInfo"]?["name"] == "taskline")
        #expect(result["protocolVersion"] == "1")
        #expect(
            result["capabilities"]?["methods"] == [
                "tasks/create", "tasks/get", "tasks/fetch", "tasks/update", "tasks/delete", "tasks/changes", "tasks/apply", "tasks/undo",
                "tasks/redo", "tasks/parse",
            ])
        #expect(result["capabilities"]?["notifications"] == ["didChange": true, "didMissChanges": true, "remind": false])
        #expect(run.exitCode == 1)
    }

    @Test func requestsBeforeInitializeGetServerNotInitialized() async throws {
        let run = try await ServerHarness().run(
            [
                request(1, "tasks/fetch"),
                request(2, "shutdown"),
                request(3, "no/such/method"),
                notification("tasks/create", #"{"title":"dropped"}"#),
                ServerHarness.initialize,
                request(4, "tasks/fetch"),
            ], initialized: false)
        for id: JSON in [1, 2, 3] {
            #expect(run.error(id)?["code"] == -32002)
        }
        #expect(run.result(4)?["tasks"] == [])
        #expect(run.output.count == 5)
    }

    @Test func secondInitializeIsInvalid() async throws {
        let run = try await ServerHarness().run([request(1, "initialize")])
        #expect(run.error(1)?["code"] == -32600)
    }

    @Test func shutdownThenRequestsAreRefusedAndExitCodeIsZero() async throws {
        let run = try await ServerHarness().run([
            request(1, "shutdown"),
            request(2, "tasks/fetch"),
            notification("tasks/create", #"{"title":"after shutdown"}"#),
            notification("exit"),
            request(3, "tasks/fetch"),
        ])
        #expect(run.response(1)?["result"] == .null)
        #expect(run.error(2)?["code"] == -32600)
        #expect(run.response(3) == nil)
        #expect(run.exitCode == 0)
        #expect(run.notifications.isEmpty)
    }

    @Test func exitWithoutShutdownIsCodeOne() async throws {
        let run = try await ServerHarness().run([notification("exit"), request(1, "tasks/fetch")])
        #expect(run.exitCode == 1)
        #expect(run.output.isEmpty)
    }

    @Test func unknownMethodsAndNotifications() async throws {
        let run = try await ServerHarness().run([
            request(1, "tasks/frobnicate"),
            request(2, "$/progress"),
            notification("$/setTrace", #"{"value":"off"}"#),
            notification("whatever"),
            notification("initialized"),
        ])
        #expect(run.error(1)?["code"] == -32601)
        #expect(run.error(1)?["data"]?["method"] == "tasks/frobnicate")
        #expect(run.error(2)?["code"] == -32601)
        #expect(run.output.count == 2)
    }

    @Test func idsAreEchoedWithTheirType() async throws {
        let run = try await ServerHarness().run([
            #"{"jsonrpc":"2.0","id":"1","method":"tasks/fetch"}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"tasks/fetch"}"#,
            #"{"jsonrpc":"2.0","id":null,"method":"tasks/fetch"}"#,
            #"{"jsonrpc":"2.0","id":-7.5,"method":"tasks/fetch"}"#,
        ])
        #expect(run.output.map { $0["id"] } == ["1", 1, .null, .number("-7.5")])
    }

    @Test func cancelledRequestsThatHaveNotStartedAreNotRun() async throws {
        let harness = try ServerHarness()
        let run = try await harness.run([
            request(1, "tasks/create", #"{"title":"first"}"#),
            request(2, "tasks/create", #"{"title":"cancelled"}"#),
            notification("$/cancelRequest", #"{"id":2}"#),
            notification("$/cancelRequest", #"{"id":99}"#),
            request(3, "tasks/fetch"),
        ])
        #expect(run.result(1)?["title"] == "first")
        #expect(run.error(2)?["code"] == -32800)
        #expect(run.result(3)?["tasks"]?.arrayValue?.count == 1)
    }

    @Test func unknownInitializationOptionsAreIgnoredAndKnownOnesChecked() async throws {
        let run = try await ServerHarness().run(
            [
                #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"initializationOptions":{"theme":"dark","notifications":"no"}}}"#,
                #"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"processId":"me"}}"#,
                #"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"processId":0}}"#,
                #"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"processId":1.0,"rootUri":null,"capabilities":null,"initializationOptions":{"theme":"dark","notifications":false}}}"#,
            ], initialized: false)
        #expect(run.error(1)?["data"]?["field"] == "initializationOptions.notifications")
        #expect(run.error(2)?["data"]?["field"] == "processId")
        #expect(run.error(3)?["data"]?["field"] == "processId")
        #expect(run.result(4)?["capabilities"]?["notifications"] == ["didChange": false, "didMissChanges": false, "remind": false])
    }

    @Test func aCancellationDoesNotReachInitialize() async throws {
        let run = try await ServerHarness().run(
            [
                ServerHarness.initialize,
                notification("$/cancelRequest", #"{"id":"init"}"#),
                request(1, "tasks/fetch"),
                notification("$/cancelRequest", #"{"id":1}"#),
            ], initialized: false)
        #expect(run.result("init")?["protocolVersion"] == "1")
        #expect(run.error(1)?["code"] == -32800)
    }

    @Test func shutdownParamsMustBeAnObject() async throws {
        let run = try await ServerHarness().run([
            request(1, "shutdown", "[1]"),
            request(2, "tasks/fetch"),
            request(3, "shutdown", #"{"force":true}"#),
            notification("exit"),
        ])
        #expect(run.error(1)?["data"]?["field"] == "")
        #expect(run.result(2)?["tasks"] == [])
        #expect(run.response(3)?["result"] == .null)
        #expect(run.exitCode == 0)
    }

    @Test func changesInTheBatchWithShutdownAreAnnounced() async throws {
        let run = try await ServerHarness().run([
            "[" + request(1, "tasks/create", #"{"title":"last"}"#) + "," + request(2, "shutdown") + "]",
            notification("exit"),
        ])
        #expect(run.output.count == 2)
        #expect(run.notifications.first?["params"]?["changes"]?.arrayValue?.first?["task"]?["title"] == "last")
        #expect(run.exitCode == 0)
    }
}
