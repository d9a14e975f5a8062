import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct RobustnessTests {
    static let initialize = #"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#

    @Test func exitsWithinASecondOfTheClientProcessDying() throws {
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/bin/sleep")
        client.arguments = ["60"]
        try client.run()
        let server = try ServerProcess(["--db", ":memory:"])
        server.sendLine(#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":\#(client.processIdentifier)}}"#)
        _ = try server.next()
        #expect(server.process.isRunning)
        kill(client.processIdentifier, SIGKILL)
        client.waitUntilExit()
        let killed = Date()
        while server.process.isRunning && Date().timeIntervalSince(killed) < 3 { usleep(5_000) }
        #expect(Date().timeIntervalSince(killed) < 1.5)
        #expect(server.waitForExit() == 1)
    }

    @Test func closedStdoutEndsTheProcessCleanly() throws {
        let server = try ServerProcess(["--db", ":memory:"])
        server.closeOutput()
        server.sendLine(Self.initialize)
        for id in 1...10 {
            server.sendLine(#"{"jsonrpc":"2.0","id":\#(id),"method":"tasks/fetch"}"#)
        }
        // Killed by SIGPIPE would be 128 + 13; a clean exit is 0 or 1.
        #expect(server.waitForExit() == 1)
    }

    @Test func inputEndingMidMessageIsAnsweredThenTheProcessExits() throws {
        let server = try ServerProcess(["--db", ":memory:"])
        server.sendLSP(Self.initialize)
        _ = try server.next()
        server.write("Content-Length: 100\r\n\r\n{\"jsonrpc\":")
        server.closeInput()
        let rest = try server.readToEnd()
        #expect(rest.map { $0["error"]?["code"] } == [-32700])
        #expect(server.waitForExit() == 1)
    }

    @Test func readingNeverWaitsForAClientThatDoesNotReadStdout() throws {
        let server = try ServerProcess(["--db", ":memory:", "--log-level", "error"])
        var text = Self.initialize + "\n"
        let count = 5000
        for id in 1...count {
            text += #"{"jsonrpc":"2.0","id":\#(id),"method":"tasks/get","params":{"id":"missing-\#(id)"}}"# + "\n"
        }
        text += #"{"jsonrpc":"2.0","id":"last","method":"shutdown"}"# + "\n"
        // Several MB of answers pile up unread while we write: the writes must still complete.
        let written = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { [text] in
            server.write(text)
            server.closeInput()
            written.signal()
        }
        #expect(written.wait(timeout: .now() + 20) == .success, "the server stopped reading stdin while stdout was full")
        let output = try server.readToEnd(timeout: 30)
        #expect(output.count == count + 2)
        #expect(output.last?["id"] == "last")
        #expect(server.waitForExit() == 0)
    }

    @Test func garbageBetweenMessagesIsAnsweredAndTheStreamRecovers() throws {
        let server = try ServerProcess(["--db", ":memory:"])
        server.sendLSP(Self.initialize)
        _ = try server.next()
        server.write("Content-Length: abc\r\n\r\n")
        #expect(try server.next()["error"]?["code"] == -32700)
        server.write("Content-Length: 2\r\n\r\n[]")
        #expect(try server.next()["error"]?["code"] == -32600)
        server.write(Array("Content-Length: 3\r\n\r\n".utf8) + [0xFF, UInt8(ascii: "{"), UInt8(ascii: "}")])
        #expect(try server.next()["error"]?["code"] == -32700)
        #expect(try server.call(1, "tasks/fetch", lsp: true)["result"]?["tasks"] == [])
    }
}
