import Foundation
import JSONRPC
import TestSupport
import Testing

/// `--durability` is what a user chooses between losing nothing on power loss and faster
/// commits, and no crash of the process can tell the two apart: so the choice is checked
/// where it acts, in the system calls. With `full` the server syncs the WAL at every commit
/// before it answers; with `normal` a commit makes no sync at all (SQLite syncs at
/// checkpoints, which a few small commits never reach).
@Suite struct DurabilitySettingTests {
    /// The number of `fsync` and `fdatasync` calls a server made while answering `creates`
    /// lock-step creates, counted by strace.
    private func syncCalls(durability: String, creates: Int) throws -> Int {
        let directory = TemporaryDirectory()
        let trace = directory.file("syncs.trace")
        let server = try ServerProcess(
            ["-f", "-qq", "-e", "trace=fsync,fdatasync", "-o", trace, ServerProcess.binaryPath,
             "--db", directory.file("tasks.sqlite"), "--durability", durability],
            executable: "/usr/bin/strace")
        try server.initialize(#"{"initializationOptions":{"notifications":false}}"#)
        for id in 1...creates {
            let response = try server.call(id, "tasks/create", #"{"title":"task \#(id)"}"#)
            #expect(response["result"]?["title"] == .string("task \(id)"), "\(response)")
        }
        #expect(try server.call(0, "shutdown")["result"] == .null)
        server.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(server.waitForExit() == 0)
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        return lines.filter { $0.contains("sync(") }.count
    }

    @Test func fullSyncsEveryCommitAndNormalNone() throws {
        // The difference between 25 and 5 creates leaves out what start-up and exit sync.
        let full = try syncCalls(durability: "full", creates: 25) - syncCalls(durability: "full", creates: 5)
        let normal = try syncCalls(durability: "normal", creates: 25) - syncCalls(durability: "normal", creates: 5)
        #expect(full >= 20, "--durability full: \(full) syncs for 20 more commits")
        #expect(normal == 0, "--durability normal: \(normal) syncs for 20 more commits")
    }
}
