import Foundation
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
            [
                "-f", "-qq", "-e", "trace=fsync,fdatasync", "-o", trace, ServerProcess.binaryPath,
                "--db", directory.file("tasks.sqlite"), "--durability", durability,
            ],
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
    /// it answered `applies` applies of 1,000 creates with 2,000 characters of notes each,
    /// with `--durability normal`: the
    /// `fsync` and `fdatasync` calls of the thread ids that `clone` returned.
    private func checkpointThreadSyncs(applies: Int) throws -> Int {
        let directory = TemporaryDirectory()
        let trace = directory.file("syncs.trace")
        let server = try ServerProcess(
            [
                "-f", "-qq", "-e", "trace=fsync,fdatasync,clone,clone3", "-o", trace, ServerProcess.binaryPath,
                "--db", directory.file("tasks.sqlite"), "--durability", "normal",
            ],
            executable: "/usr/bin/strace")
        try server.initialize(#"{"initializationOptions":{"notifications":false}}"#)
        for id in stride(from: 1, through: applies, by: 1) {
            let notes = String(repeating: "n", count: 2000)
            let creates = (0..<1000).map { #"{"create":{"title":"task \#(id) \#($0)","notes":"\#(notes)"}}"# }
                .joined(separator: ",")
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
        // Each apply writes a page of notes a task, over 1,000 frames: three fill more than
        // the 4,000 at which large commits ask for a checkpoint. A server that writes
        // nothing copies nothing.
        let many = try checkpointThreadSyncs(applies: 3)
        #expect(many >= 2, "the checkpoints' thread synced \(many) times: the WAL before it copies, the file after")
        #expect(try checkpointThreadSyncs(applies: 0) == 0)
    }

    @Test func fullSyncsEveryCommitAndNormalNone() throws {
        // The difference between 25 and 5 creates leaves out what start-up and exit sync.
        let full = try syncCalls(durability: "full", creates: 25) - syncCalls(durability: "full", creates: 5)
        let normal = try syncCalls(durability: "normal", creates: 25) - syncCalls(durability: "normal", creates: 5)
        #expect(full >= 20, "--durability full: \(full) syncs for 20 more commits")
        #expect(normal == 0, "--durability normal: \(normal) syncs for 20 more commits")
    }
}
