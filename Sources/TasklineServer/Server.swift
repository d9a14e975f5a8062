import JSONRPC
import Logging
import Synchronization
import TaskStore

/// The Taskline server: the lifecycle, the method table, and the order of output.
///
/// Input arrives from the connection's reader thread through `receive`; `run` handles it
/// one unit at a time, in arrival order, and writes each response before the
/// notifications that the request caused.
public final class Server: Sendable {
    public struct Options: Sendable {
        public var maxMessageBytes: Int
        public init(maxMessageBytes: Int) {
            self.maxMessageBytes = maxMessageBytes
        }
    }

    private enum Event: Sendable {
        case inbound(Inbound)
        /// Another process may have committed to the database.
        case databaseChanged
        case clientProcessExited
        case outputClosed
    }

    private enum Phase {
        case waitingForInitialize
        case running
        case shutDown
    }

    private let store: TaskStore
    private let writer: MessageWriter
    private let options: Options
    private let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation
    private let cancellations = CancellationRegistry()
    private let processWatcher = Mutex<ProcessWatcher?>(nil)
    private let databaseWatcher = Mutex<DatabaseWatcher?>(nil)

    public init(store: TaskStore, writer: MessageWriter, options: Options) {
        self.store = store
        self.writer = writer
        self.options = options
        (events, eventSink) = AsyncStream.makeStream(of: Event.self)
        // Once the client has closed our stdout nothing more can be delivered: stop.
        writer.onClosed { [eventSink] in
            eventSink.yield(.outputClosed)
            eventSink.finish()
        }
    }

    // MARK: - Input, from the reader thread

    /// Queues units of input that arrived together. Cancellations among them are noted
    /// before any of them is queued, so they reach requests that have not started yet, even
    /// ones that arrived in the same read.
    public func receive(_ units: [Inbound]) {
        for unit in units {
            let messages: [Message]
            switch unit {
            case .message(let message): messages = [message]
            case .batch(let batch): messages = batch
            case .failure: messages = []
            }
            for message in messages {
                switch message {
                case .request(let request):
                    cancellations.received(request.id)
                case .notification(let notification) where notification.method == "$/cancelRequest":
                    if let id = notification.params?["id"].flatMap(RequestID.init), id != .null {
                        cancellations.cancel(id)
                    }
                default:
                    break
                }
            }
        }
        for unit in units { eventSink.yield(.inbound(unit)) }
    }

    /// The input has ended: `run` returns once everything queued has been handled.
    public func inputEnded() {
        eventSink.finish()
    }

    // MARK: - The main loop

    /// Handles input until `exit`, the end of input, or the client's death. Returns the
    /// process exit code: 0 after `shutdown`, 1 otherwise.
    public func run() async -> Int32 {
        var session = Session()
        loop: for await event in events {
            switch event {
            case .inbound(let inbound):
                await handle(inbound, session: &session)
                if session.exitRequested { break loop }
            case .databaseChanged:
                databaseWatcher.withLock { $0?.rearm() }
                // The watcher also wakes for our own commits; data_version tells them apart.
                if (try? await store.hasExternalChanges()) ?? true {
                    await deliverChanges(own: [], session: &session)
                }
            case .clientProcessExited:
                Log.warning("the client process has exited; stopping")
                break loop
            case .outputClosed:
                break loop
            }
        }
        writer.flush()
        processWatcher.withLock { $0 = nil }
        databaseWatcher.withLock { $0 = nil }
        return session.phase == .shutDown ? 0 : 1
    }

    private struct Session {
        var phase = Phase.waitingForInitialize
        var notificationsEnabled = true
        var exitRequested = false
        /// The newest change this client has been told about.
        var lastNotifiedSeq: Int64 = 0
    }

    private func handle(_ inbound: Inbound, session: inout Session) async {
        switch inbound {
        case .failure(let error):
            Log.info("bad input: \(error.message)")
            writer.send(Response(id: .null, result: .failure(error)).json)
        case .message(let message):
            var changes: [TaskChange] = []
            if let response = await handle(message, session: &session, changes: &changes) {
                writer.send(response.json)
            }
            await deliverChanges(own: changes, session: &session)
        case .batch(let messages):
            var changes: [TaskChange] = []
            var responses: [JSON] = []
            for message in messages {
                if let response = await handle(message, session: &session, changes: &changes) {
                    responses.append(response.json)
                }
                if session.exitRequested { break }
            }
            if !responses.isEmpty { writer.send(.array(responses)) }
            await deliverChanges(own: changes, session: &session)
        }
    }

    /// Handles one message; returns its response, if it gets one, and appends the changes it
    /// committed to `changes`.
    private func handle(_ message: Message, session: inout Session, changes: inout [TaskChange]) async -> Response? {
        switch message {
        case .invalid(let error):
            return Response(id: .null, result: .failure(error))
        case .response(let json):
            Log.info("dropped a response object; the server sends no requests: \(JSONWriter.string(json).prefix(200))")
            return nil
        case .notification(let notification):
            await handle(notification, session: &session, changes: &changes)
            return nil
        case .request(let request):
            if cancellations.start(request.id) {
                return Response(id: request.id, result: .failure(ResponseError(code: ResponseError.requestCancelledCode, message: "Request cancelled")))
            }
            do {
                let outcome = try await handle(request, session: &session)
                changes += outcome.changes
                return Response(id: request.id, result: .success(outcome.result))
            } catch let error as ResponseError {
                return Response(id: request.id, result: .failure(error))
            } catch let error as TaskStoreError {
                return Response(id: request.id, result: .failure(ResponseError(error)))
            } catch {
                Log.error("\(request.method) failed: \(error)")
                return Response(id: request.id, result: .failure(.internalError("\(error)")))
            }
        }
    }

    private func handle(_ request: Request, session: inout Session) async throws -> MethodOutcome {
        switch (session.phase, request.method) {
        case (.waitingForInitialize, "initialize"):
            let initialize = try Initialize(params: request.params)
            session.notificationsEnabled = initialize.notifications
            session.lastNotifiedSeq = try await store.currentSeq()
            session.phase = .running
            if let pid = initialize.processID { watch(pid) }
            if initialize.notifications { watchDatabase() }
            return MethodOutcome(result: initialize.result(maxMessageBytes: options.maxMessageBytes))
        case (.waitingForInitialize, _):
            throw ResponseError(code: ResponseError.serverNotInitializedCode, message: "Server not initialized: send initialize first")
        case (.shutDown, _):
            throw ResponseError.invalidRequest("the server is shutting down")
        case (.running, "initialize"):
            throw ResponseError.invalidRequest("initialize was already received")
        case (.running, "shutdown"):
            session.phase = .shutDown
            return MethodOutcome(result: .null)
        case (.running, let method):
            guard let type = TaskMethods.byName[method] else { throw ResponseError.methodNotFound(method) }
            return try await TaskMethods.call(type, params: request.params, store: store)
        }
    }

    private func handle(_ notification: Notification, session: inout Session, changes: inout [TaskChange]) async {
        switch notification.method {
        case "exit":
            session.exitRequested = true
        case _ where session.phase != .running:
            Log.debug("dropped \(notification.method): not initialized, or shut down")
        case "initialized", "$/cancelRequest":
            break  // cancellations were handled on arrival
        case let method:
            // A method sent as a notification runs like a request whose answer nobody wants
            // (JSON-RPC 2.0); its changes are still announced.
            guard let type = TaskMethods.byName[method] else {
                Log.debug("ignored unknown notification \(method)")
                return
            }
            do {
                changes += try await TaskMethods.call(type, params: notification.params, store: store).changes
            } catch {
                Log.info("\(method) sent as a notification failed: \(error)")
            }
        }
    }

    /// Tells the client about every change after the last one it heard of, in `seq` order,
    /// without gaps or repeats, whichever process made them. `own` are the changes this
    /// server just committed: when nothing else happened in between they are sent as they
    /// are; otherwise the change log is read.
    private func deliverChanges(own: [TaskChange], session: inout Session) async {
        guard session.notificationsEnabled, session.phase == .running else { return }
        var expected = session.lastNotifiedSeq
        if !own.isEmpty, own.allSatisfy({ expected += 1; return $0.seq == expected }) {
            writer.send(TaskJSON.didChange(own).json)
            session.lastNotifiedSeq = expected
            return
        }
        do {
            var hasMore = true
            while hasMore {
                let page = try await store.changes(since: session.lastNotifiedSeq, limit: 1000)
                if !page.changes.isEmpty { writer.send(TaskJSON.didChange(page.changes).json) }
                session.lastNotifiedSeq = page.seq
                hasMore = page.hasMore
            }
        } catch {
            Log.error("could not read the change log: \(error)")
        }
    }

    private func watch(_ pid: Int32) {
        let sink = eventSink
        processWatcher.withLock { $0 = ProcessWatcher(pid: pid) { sink.yield(.clientProcessExited) } }
    }

    private func watchDatabase() {
        let sink = eventSink
        databaseWatcher.withLock { $0 = DatabaseWatcher(databasePath: store.path) { sink.yield(.databaseChanged) } }
    }
}
