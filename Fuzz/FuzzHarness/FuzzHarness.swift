import EventLoop
import JSON
import JSONRPC
import Logging
import ProcessSetup
import SQLite
import TaskModel
import TaskStore
import TasklineServer

#if canImport(Glibc)
import Glibc
#endif

/// One fuzz input through the whole server, as `taskline` runs it: the event loop's
/// connection reads it from a file descriptor in chunks, frames and decodes it, and the server
/// dispatches it against an in-memory store. Then the output and the store are checked.
///
/// Input layout: the first byte chooses the options (see `Configuration`), the rest is what
/// the client writes to stdin. Used by the libFuzzer target (`Fuzz/taskline-fuzz`) and by
/// the tests that replay the kept crashers (`Tests/FuzzTests`).
public enum FuzzHarness {
    public struct Configuration: Sendable, Equatable {
        public var framing: Framing?
        public var readChunkBytes: Int
        public var maxMessageBytes: Int

        /// Bits 0–1: framing (detected, lsp, ndjson, detected); bits 2–4: read size, so one
        /// message is split across reads at every kind of boundary; bits 5–6: size limit.
        public init(_ byte: UInt8) {
            framing = [nil, .lsp, .ndjson, nil][Int(byte & 3)]
            readChunkBytes = [65_536, 1, 2, 3, 7, 64, 509, 4096][Int(byte >> 2 & 7)]
            maxMessageBytes = [16 * 1024 * 1024, 64, 300, 4096][Int(byte >> 5 & 3)]
        }
    }

    /// The error codes protocol/errors.md lists; any other is a finding.
    static let documentedCodes: Set<Int64> = [-32700, -32600, -32601, -32602, -32603, -32002, -32800, 1001, 1002, 1003, 1004, 1005, 1006, 1007]

    /// Runs `input` and returns what is wrong with the outcome (empty when all is well).
    /// A crash or a hang is, of course, a finding too.
    public static func run(_ input: UnsafeBufferPointer<UInt8>) -> [String] {
        guard let configByte = input.first else { return [] }
        let configuration = Configuration(configByte)
        let payload = UnsafeBufferPointer(rebasing: input[1...])
        Log.level = .error
        // As taskline's main, before the first store.
        ProcessSetup.configureLibraries()

        let inputFD = temporaryFile()
        let outputFD = temporaryFile()
        defer {
            close(inputFD)
            close(outputFD)
        }
        var written = 0
        while written < payload.count {
            let count = pwrite(inputFD, payload.baseAddress! + written, payload.count - written, off_t(written))
            precondition(count > 0, "cannot write the fuzz input")
            written += count
        }

        var options = Connection.Options(framing: configuration.framing, maxMessageBytes: configuration.maxMessageBytes)
        options.readChunkBytes = configuration.readChunkBytes
        let loop = EventLoop()
        let connection = Connection(inputFD: inputFD, outputFD: outputFD, options: options, loop: loop)
        let store: TaskStore
        do {
            store = try TaskStore(path: ":memory:", options: StoreOptions(templatePath: template), loop: loop)
        } catch {
            fatalError("cannot open an in-memory store: \(error)")
        }
        let server = Server(store: store, writer: connection.writer, options: Server.Options(maxMessageBytes: configuration.maxMessageBytes))
        connection.start(receive: server.receive, onEnd: server.inputEnded)
        let findings = Findings()
        // Started here rather than from the global executor, so that nothing waits for a
        // thread of the (possibly busy) global pool: all of it runs in the loop below.
        Task.immediate { await serve(server, store: store, loop: loop, findings: findings) }
        _ = loop.run()
        connection.writer.drain()
        return findings.problems + check(output: readAll(outputFD))
    }

    /// Written on the loop's thread before it stops, read after `run` has returned.
    private final class Findings: @unchecked Sendable {
        var problems: [String] = []
    }

    /// Runs the server, then checks the store, on the store's executor (the loop).
    private static func serve(_ server: Server, store: isolated TaskStore, loop: EventLoop, findings: Findings) async {
        let code = await server.run()
        if code != 0 && code != 1 { findings.problems.append("exit code \(code)") }
        findings.problems += await check(store)
        loop.stop(exitCode: code)
    }

    /// A migrated, empty database that each run's store starts as a copy of: copying its
    /// pages is several times cheaper than creating the schema again. Removed at exit.
    private static let template: String = {
        do {
            _ = try TaskStore(path: templatePath)
            // Out of WAL mode, so that the copies leave no -wal and -shm files behind.
            try Database(path: templatePath).execute("PRAGMA journal_mode = DELETE")
        } catch {
            fatalError("cannot create the template database: \(error)")
        }
        atexit { unlink(FuzzHarness.templatePath) }
        return templatePath
    }()

    private static let templatePath = "\(temporaryFolder)/taskline-fuzz-template-\(getpid()).sqlite"

    // MARK: - Output

    /// Every frame is whole, every message is JSON-RPC 2.0, and every error is documented.
    static func check(output: [UInt8]) -> [String] {
        var decoder = FrameDecoder(framing: nil, maxMessageBytes: 1 << 40)
        var problems: [String] = []
        let events = output.withUnsafeBufferPointer { decoder.feed($0) } + decoder.finish()
        for event in events {
            guard case .message(let bytes) = event else {
                problems.append("the server wrote a bad frame: \(event)")
                continue
            }
            do {
                let message = try JSONParser.parse(bytes, maxDepth: 1000)
                let members = message.arrayValue ?? [message]
                if members.isEmpty { problems.append("an empty batch response") }
                for member in members { problems += check(message: member) }
            } catch {
                problems.append("the server wrote invalid JSON (\(error)): \(String(decoding: bytes.prefix(300), as: UTF8.self))")
            }
        }
        return problems
    }

    static func check(message: JSON) -> [String] {
        let text = JSONWriter.string(message).prefix(300)
        guard let object = message.objectValue, object["jsonrpc"] == "2.0" else { return ["not a JSON-RPC 2.0 message: \(text)"] }
        if let method = object["method"] {
            let expected =
                (method == "tasks/didChange" && object["params"]?["changes"]?.arrayValue != nil)
                || (method == "tasks/remind" && object["params"]?["tasks"]?.arrayValue != nil)
            return expected ? [] : ["an unexpected notification: \(text)"]
        }
        guard object["id"] != nil, (object["result"] == nil) != (object["error"] == nil) else {
            return ["a response without an id, or without exactly one of result and error: \(text)"]
        }
        guard let error = object["error"] else { return [] }
        guard case .integer(let code)? = error["code"], documentedCodes.contains(code), error["message"]?.stringValue != nil else {
            return ["an undocumented error: \(text)"]
        }
        return []
    }

    // MARK: - The store

    /// Whatever was written, every stored task keeps the task rules, and the change log
    /// counts up without gaps or repeats.
    static func check(_ store: TaskStore) async -> [String] {
        var problems: [String] = []
        do {
            var query = TaskQuery(limit: TaskQuery.maxLimit)
            while true {
                let page = try await store.fetch(query)
                for task in page.tasks { problems += check(task) }
                guard let next = page.nextCursor else { break }
                query.cursor = next
            }
            var since: Int64 = 0
            var hasMore = true
            while hasMore {
                let page = try await store.changes(since: since, limit: TaskQuery.maxLimit)
                for change in page.changes {
                    if change.seq != since + 1 { problems.append("change log: seq \(change.seq) after \(since)") }
                    since = change.seq
                }
                hasMore = page.hasMore
            }
            let current = try await store.currentSeq()
            if current != since { problems.append("change log ends at \(since), but the current seq is \(current)") }
        } catch {
            problems.append("the store failed after the run: \(error)")
        }
        return problems
    }

    static func check(_ task: TaskItem) -> [String] {
        var problems: [String] = []
        func expect(_ condition: Bool, _ rule: String) {
            if !condition { problems.append("task \(task.id.debugDescription) breaks a rule: \(rule)") }
        }
        let isControl: (Unicode.Scalar) -> Bool = { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        expect((1...TaskRules.maxIDLength).contains(task.id.unicodeScalars.count), "id length")
        expect((1...TaskRules.maxTitleLength).contains(task.title.unicodeScalars.count), "title length")
        expect(task.title.unicodeScalars.contains { !$0.properties.isWhitespace }, "title is blank")
        expect(!task.title.unicodeScalars.contains(where: isControl), "title has a control character")
        expect(task.notes.unicodeScalars.count <= TaskRules.maxNotesLength, "notes length")
        expect(TaskRules.priorities.contains(task.priority), "priority")
        expect(task.tags.count <= TaskRules.maxTags, "tag count")
        expect(Set(task.tags.map { Array($0.unicodeScalars) }).count == task.tags.count, "tags repeat")  // by code point, as §4 compares them
        for tag in task.tags {
            expect((1...TaskRules.maxTagLength).contains(tag.unicodeScalars.count), "tag length")
            expect(!tag.unicodeScalars.contains { isControl($0) || $0.properties.isWhitespace }, "tag has white space")
        }
        expect(task.due.map { Timestamp.parse($0) != nil } ?? true, "due is not a date")
        expect(task.version >= 1, "version")
        expect(task.createdAt <= task.updatedAt, "updated before created")
        expect(task.done == (task.completedAt != nil), "done without completedAt, or the reverse")
        return problems
    }

    // MARK: - Files

    /// An unnamed file: a descriptor that, unlike a pipe, never fills up or blocks.
    private static func temporaryFile() -> Int32 {
        var template = Array("\(temporaryFolder)/taskline-fuzz-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        precondition(fd >= 0, "cannot create a temporary file")
        unlink(template)
        return fd
    }

    private static let temporaryFolder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"

    private static func readAll(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            guard count > 0 else { return bytes }
            bytes += buffer[0..<count]
            offset += off_t(count)
        }
    }
}
