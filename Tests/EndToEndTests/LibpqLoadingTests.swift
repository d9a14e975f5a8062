import Foundation
import TestSupport
import Testing

/// libpq is loaded when a PostgreSQL store opens, not when the process starts: a server on
/// SQLite maps none of it (nor the libraries it brings), and one that cannot load it says so.
@Suite struct LibpqLoadingTests {
    /// The file names of the shared objects mapped into process `pid`. Read to its end:
    /// `String(contentsOfFile:)` stops after the first read of a file in /proc.
    static func mappedLibraries(_ pid: Int32) throws -> Set<String> {
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps"))
        defer { try? file.close() }
        let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        let paths = maps.split(separator: "\n").compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).last }
        return Set(paths.filter { $0.hasPrefix("/") && $0.contains(".so") }.compactMap { $0.split(separator: "/").last.map(String.init) })
    }

    @Test(arguments: StoreKind.allCases)
    func libpqIsMappedOnlyWhenServingPostgreSQL(store: StoreKind) throws {
        let database = try TestDatabase.fresh(store)
        let server = try ServerProcess(["--db", database.argument])
        #expect(try server.initialize()["result"] != nil)
        let libraries = try Self.mappedLibraries(server.pid)
        let libpq = libraries.filter { $0.hasPrefix("libpq.so") }
        #expect(libpq.isEmpty == (store == .sqlite), "mapped: \(libraries.sorted())")
        #expect(try server.call(1, "shutdown")["result"] == .null)
        server.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(server.waitForExit() == 0)
    }

    /// A libpq.so.5 the dynamic loader finds first but cannot load: a PostgreSQL database
    /// cannot be opened (exit 3), and the message names the library and the loader's reason;
    /// a SQLite file is served as ever. No cluster is needed: the load comes before connecting.
    @Test func aLibpqThatCannotBeLoadedIsNamed() throws {
        let directory = TemporaryDirectory()
        let broken = directory.file("libpq.so.5")
        try Data("not a shared object".utf8).write(to: URL(fileURLWithPath: broken))
        let searchPath = [directory.path, ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"]].compactMap { $0 }
        let environment = ["LD_LIBRARY_PATH": searchPath.joined(separator: ":")]

        let postgres = try ServerProcess(["--db", "host=/nonexistent-folder dbname=taskline"], environment: environment)
        #expect(postgres.waitForExit() == 3)
        #expect(postgres.stderr.contains("cannot load libpq.so.5"), "\(postgres.stderr)")
        // dlerror()'s reason names the file it tried.
        #expect(postgres.stderr.contains(broken), "\(postgres.stderr)")

        let sqlite = try ServerProcess(["--db", directory.file("tasks.sqlite")], environment: environment)
        #expect(try sqlite.initialize()["result"] != nil)
        #expect(!(try Self.mappedLibraries(sqlite.pid)).contains { $0.hasPrefix("libpq") })
    }
}
