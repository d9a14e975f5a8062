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

    /// The syncs of the threads the server started (its checkpoints': `Checkpointer`) while
    /// it answered `applies` applies of 100 creates each, with `--durability normal`: the
    /// `fsync` and `fdatasync` calls of the thread ids that `clone` returned.
    private func checkpointThreadSyncs(applies: Int) throws -> Int {
        let directory = TemporaryDirectory()
        let trace = directory.file("syncs.trace")
        let server = try ServerProcess(
            ["-f", "-qq", "-e", "trace=fsync,fdatasync,clone,clone3", "-o", trace, ServerProcess.binaryPath,
             "--db", directory.file("tasks.sqlite"), "--durability", "normal"],
            executable: "/usr/bin/strace")
        try server.initialize(#"{"initializationOptions":{"notifications":false}}"#)
        for id in 1...applies {
            let creates = (0..<100).map { #"{"create":{"title":"task \#(id) \#($0)"}}"# }.joined(separator: ",")
            let response = try server.call(id, "tasks/apply", #"{"operations":[\#(creates)]}"#)
            #expect(response["result"] != nil, "\(response)")
        }
        // The exit waits for the checkpoint the commits asked for.
        #expect(try server.call(0, "shutdown")["result"] == .null)
        server.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(server.waitForExit() == 0)
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let threads = Set(lines.filter { $0.contains("clone") }.compactMap { $0.split(separator: "= ").last.map(String.init) })
        return lines.filter { $0.contains("sync(") && threads.contains(String($0.prefix { $0 != " " })) }.count
    }

    @Test func backgroundCheckpointsSyncWithNormal() throws {
        // 12,000 creates fill some 5,200 WAL frames, past the 4,000 at which a commit asks
        // for a checkpoint; 100 fill none.
        let many = try checkpointThreadSyncs(applies: 120)
        #expect(many >= 2, "the checkpoints' thread synced \(many) times: the WAL before it copies, the file after")
        #expect(try checkpointThreadSyncs(applies: 1) == 0)
    }

    @Test func fullSyncsEveryCommitAndNormalNone() throws {
        // The difference between 25 and 5 creates leaves out what start-up and exit sync.
        let full = try syncCalls(durability: "full", creates: 25) - syncCalls(durability: "full", creates: 5)
        let normal = try syncCalls(durability: "normal", creates: 25) - syncCalls(durability: "normal", creates: 5)
        #expect(full >= 20, "--durability full: \(full) syncs for 20 more commits")
        #expect(normal == 0, "--durability normal: \(normal) syncs for 20 more commits")
    }
}
