import Dispatch
import Foundation
import JSON
import JSONRPC
import TaskStore

@testable import TasklineServer

/// Runs a `Server` in-process over an in-memory connection, on the store's event loop: each
/// input line is one unit of input (as the connection would deliver it, all of them as one
/// read), and the output is every message the server wrote.
struct ServerHarness {
    let store: TaskStore

    init(store: TaskStore? = nil) throws {
        self.store = try store ?? TaskStore(path: ":memory:")
    }

    struct Run {
        var exitCode: Int32
        var output: [JSON]

        /// Responses, keyed by their id.
        func response(_ id: JSON) -> JSON? {
            output.first { $0["id"] == id && $0["method"] == nil }
        }

        func error(_ id: JSON) -> JSON? { response(id)?["error"] }
        func result(_ id: JSON) -> JSON? { response(id)?["result"] }

        var notifications: [JSON] { output.filter { $0["method"] != nil } }
    }

    static let initialize = #"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"processId":null}}"#

    /// Feeds `lines` (after an `initialize` unless `initialized` is false) and ends the input.
    func run(_ lines: [String], initialized: Bool = true, beforeRun: (Server) -> Void = { _ in }) async throws -> Run {
        let pipes = InMemoryConnection(options: .init(framing: .ndjson), loop: store.loop)
        let server = Server(store: store, writer: pipes.connection.writer, options: .init(maxMessageBytes: 1 << 20))

        let reader = FileHandle(fileDescriptor: pipes.clientOutputFD, closeOnDealloc: false)
        let collected = DispatchQueue(label: "harness.reader")
        nonisolated(unsafe) var bytes = Data()
        collected.async { bytes = reader.readDataToEndOfFile() }

        server.receive(((initialized ? [Self.initialize] : []) + lines).map { MessageDecoder.decode(Array($0.utf8)) })
        beforeRun(server)
        server.inputEnded()
        let code = await server.run()
        await pipes.finish()
        collected.sync {}
        let output = try bytes.split(separator: UInt8(ascii: "\n")).map { try JSONParser.parse($0) }
        return Run(exitCode: code, output: initialized ? Array(output.dropFirst()) : output)
    }
}

func request(_ id: Int, _ method: String, _ params: String? = nil) -> String {
    #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)""# + (params.map { #","params":\#($0)"# } ?? "") + "}"
}

func notification(_ method: String, _ params: String? = nil) -> String {
    #"{"jsonrpc":"2.0","method":"\#(method)""# + (params.map { #","params":\#($0)"# } ?? "") + "}"
}
