import Foundation
import TestSupport
import Testing

/// The wire contract's own transcripts (protocol/conformance), replayed against the built
/// binary, so that `swift test` fails when the server and the contract drift apart.
@Suite struct ConformanceTests {
    @Test func everyTranscriptPasses() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let runner = ChildProcess()
        let output = Pipe.closedOnExec()
        runner.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        runner.arguments = ["python3", root.appendingPathComponent("protocol/conformance/run.py").path, "--", ServerProcess.binaryPath]
        runner.standardOutput = .pipe(output)
        runner.standardError = .pipe(output)
        try runner.run()
        let report = String(decoding: try output.fileHandleForReading.readAll(within: 900), as: UTF8.self)
        runner.waitUntilExit()
        #expect(runner.terminationStatus == 0, "\(report)")
        #expect(report.contains(" passed, 0 failed"), "\(report)")
    }
}
