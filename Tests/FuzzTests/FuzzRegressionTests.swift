import Foundation
import FuzzHarness
import Testing

/// Every input the fuzzer ever crashed on (Fuzz/crashers) is replayed through the same
/// harness in the normal test run, with the seed corpus's small hand-made cases.
@Suite struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/crashers")

    static var crashers: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
    }

    @Test(arguments: crashers)
    func keptCrasherRunsCleanly(name: String) throws {
        let input = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(name)))
        let problems = input.withUnsafeBufferPointer(FuzzHarness.run)
        #expect(problems.isEmpty, "\(name): \(problems)")
    }

    @Test func harnessChecksWhatTheServerDid() {
        let session = """
            {"jsonrpc":"2.0","id":0,"method":"initialize"}
            {"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"fuzz","tags":["a"],"due":"2026-01-01"}}
            {"jsonrpc":"2.0","id":2,"method":"tasks/fetch"}
            """
        for config: UInt8 in [0, 0b0000_0110, 0b0001_1110, 0b0110_0000] {
            let input = [config] + Array(session.utf8)
            #expect(input.withUnsafeBufferPointer(FuzzHarness.run) == [], "configuration \(config)")
        }
        #expect(FuzzHarness.Configuration(0b0100_1101) == FuzzHarness.Configuration(0b0100_1101))
    }
}
