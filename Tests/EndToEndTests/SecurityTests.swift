import Foundation
import TestSupport
import Testing

/// What the threat model (docs/security.md) promises beyond input handling: the server's only channels
/// are the pipes it was given, and its files are private to the user.
@Suite struct SecurityTests {
    let directory = TemporaryDirectory()

    /// Every descriptor the running server holds (with its watchers of the client process and
    /// of the database folder started) is a pipe, a file or an event object: it opens no
    /// socket, so it neither listens nor connects. (`ChildProcess` passes it nothing but its
    /// standard streams.)
    @Test func opensNoSocket() throws {
        let server = try ServerProcess(["--db", directory.file("tasks.sqlite")])
        _ = try server.call(0, "initialize", #"{"processId":\#(getpid())}"#)
        _ = try server.call(1, "tasks/create", #"{"title":"x"}"#)
        _ = try server.next()  // tasks/didChange
        let targets = Self.descriptorTargets(of: server.pid)
        #expect(targets.count >= 8, "\(targets)")
        #expect(!targets.contains { $0.hasPrefix("socket:") }, "the server holds a socket: \(targets)")
        #expect(targets.allSatisfy { $0.hasPrefix("pipe:") || $0.hasPrefix("/") || $0.hasPrefix("anon_inode:") }, "\(targets)")
        server.closeInput()
        #expect(server.waitForExit() == 1)
    }

    static func descriptorTargets(of pid: Int32) -> [String] {
        let folder = "/proc/\(pid)/fd"
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)") }
    }

    /// 0600 files and a 0700 folder even when the user's umask would allow everyone to read:
    /// the modes are chosen, not left to the umask.
    @Test(arguments: [false, true])
    func filesArePrivateWhateverTheUmask(fromTemplate: Bool) throws {
        var extra: [String] = []
        if fromTemplate {
            let template = directory.file("template.sqlite")
            let maker = try ServerProcess(["--db", template])
            maker.closeInput()
            _ = maker.waitForExit()
            extra = ["--template", template]
        }
        let path = directory.file("open-umask-\(fromTemplate)/tasks.sqlite")
        let server = try ServerProcess(
            ["-c", #"umask 000; exec "$0" "$@""#, ServerProcess.binaryPath, "--db", path] + extra,
            executable: "/bin/sh")
        _ = try server.call(0, "initialize")
        _ = try server.call(1, "tasks/create", #"{"title":"private"}"#)
        #expect(fileMode(path) == 0o600)
        #expect(fileMode(path + "-wal") == 0o600)
        #expect(fileMode(path + "-shm") == 0o600)
        #expect(fileMode(directory.file("open-umask-\(fromTemplate)")) == 0o700)
        server.closeInput()
        #expect(server.waitForExit() == 1)
    }
}
