import Foundation
import Testing

@testable import FuzzHarness

/// Every input the fuzzer ever crashed on (Fuzz/crashers) is replayed through the same
/// harness in the normal test run, with the seed corpus's small hand-made cases.
@Suite struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/crashers")

    static var crashers: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
    }

    @Test(arguments: crashers)
    func keptCrasherRunsCleanly(name: String) async throws {
        let input = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(name)))
        let problems = await Self.run(input)
        #expect(problems.isEmpty, "\(name): \(problems)")
    }

    /// The harness holds its thread in the event loop until the server ends, while the
    /// server's nonisolated async work needs a thread of the cooperative pool, which is as
    /// wide as the machine has cores. Run on a pool thread, two runs at once on two cores
    /// would each wait for the thread the other holds, forever.
    static func run(_ input: [UInt8]) async -> [String] {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: input.withUnsafeBufferPointer(FuzzHarness.run)) }.start()
        }
    }

    @Test func harnessChecksWhatTheServerDid() async {
        let session = """
            {"jsonrpc":"2.0","id":0,"method":"initialize"}
            {"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"fuzz","tags":["a"],"due":"2026-01-01"}}
            {"jsonrpc":"2.0","id":2,"method":"tasks/fetch"}
            """
        for config: UInt8 in [0, 0b0000_0110, 0b0001_1110, 0b0110_0000] {
            let input = [config] + Array(session.utf8)
            #expect(await Self.run(input) == [], "configuration \(config)")
        }
        #expect(FuzzHarness.Configuration(0b0100_1101) == FuzzHarness.Configuration(0b0100_1101))
        // The notifications a server may send: tasks/didChange, and tasks/remind to a client
        // that asked for reminders; any other is a finding.
        let notifications = """
            {"jsonrpc":"2.0","method":"tasks/didChange","params":{"changes":[]}}
            {"jsonrpc":"2.0","method":"tasks/remind","params":{"tasks":[]}}
            {"jsonrpc":"2.0","method":"tasks/other","params":{}}
            """
        #expect(FuzzHarness.check(output: Array(notifications.utf8)).count == 1)
    }
}
