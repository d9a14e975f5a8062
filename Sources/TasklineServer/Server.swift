import EventLoop
import JSON
import JSONRPC
import Logging
import StoreServing
import TaskModel

/// The Taskline server: the lifecycle, the method table, and the order of output.
///
/// Input arrives from the connection through `receive`; `run` handles it in arrival order
/// and writes each response before the notifications that the request caused. The server
/// runs on the store's event loop (it shares the store's executor), so calling the store
/// costs no thread switch; the loop's timers and sources bring it its other events: the
/// daily pruning of the change log, and the exit of the client process.
///
/// **Group commit.** When several write requests are already waiting in a row, they are
/// committed in one transaction, each in its own savepoint so that each fails alone, and
/// answered after that one commit: with `--durability full` one sync to disk then serves
/// them all. A lone request is never held back to wait for company.
public actor Server {
    public struct Options: Sendable {
        public var maxMessageBytes: Int
        /// How long the change log keeps changes, in milliseconds; nil keeps them forever.
        public var historyRetention: Int64?

        public init(maxMessageBytes: Int, historyRetention: Int64? = nil) {
            self.maxMessageBytes = maxMessageBytes
            self.historyRetention = historyRetention
        }
    }

    enum Event: Sendable {
        case inbound(Inbound)
        /// Another process may have committed to the database.
        case databaseChanged
        /// Time to remove old changes from the change log (once a day).
        case pruneHistory
        /// The client has read enough of its output to be sent changes again.
        case outputHasRoom
        case clientProcessExited
        case outputClosed
        /// A reminder may be due, or the next one may have moved (Reminders.swift).
        case remindersDue
    }

    enum Phase {
        case waitingForInitialize
        case running
        case shutDown
    }

    let store: any ServedStore
    let writer: MessageWriter
    private let options: Options
    let events = EventQueue<Event>()
    private let cancellations = CancellationRegistry()
    private var processWatcher: ProcessWatcher?
    private var pruneTimer: EventLoop.Timer?
    /// Set to the next reminder when the client asked for them (Reminders.swift).
    var reminders: Reminders?

    private(set) var phase = Phase.waitingForInitialize
    /// What the client said in `initialize` that methods read (its time zone).
    private var client = ClientSettings()
    private var notificationsEnabled = true
    private var exitRequested = false
    /// The newest change this client has been told about, or that a `tasks/didMissChanges`
    /// covers (sent, or `missed`).
    private var lastNotifiedSeq: Int64 = 0
    /// Changes after `since` through `lastNotifiedSeq` that the client was not sent and has
    /// not yet been told it missed.
    private var missed: (since: Int64, reason: MissReason)?
    /// A task waits for the client to read its output (`waitForOutputRoom`).
    private var waitingForOutputRoom = false

    private enum MissReason: String {
        /// The client had not read `MessageWriter.maxPendingBytes` of output.
        case backlog
        /// The change log no longer holds the changes.
        case historyExpired
    }

    /// Changes from the change log per notification: what the client may be sent past the
    /// limit on unread output is one such page.
    private static let logPageSize = 100

    public nonisolated var unownedExecutor: UnownedSerialExecutor { store.unownedExecutor }

    public init(store: any ServedStore, writer: MessageWriter, options: Options) {
        self.store = store
        self.writer = writer
        self.options = options
        // Once the client has closed our stdout nothing more can be delivered: stop.
        writer.onClosed { [events] in
            events.push([.outputClosed])
            events.finish()
        }
    }

    // MARK: - Input, from the connection

    /// Queues units of input that arrived together. Cancellations among them are noted
    /// before any of them is queued, so they reach requests that have not started yet, even
    /// ones that arrived in the same read.
    public nonisolated func receive(_ units: [Inbound]) {
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
        events.push(units.map(Event.inbound))
    }

    /// The input has ended: `run` returns once everything queued has been handled.
    public nonisolated func inputEnded() {
        events.finish()
    }

    // MARK: - The main loop

    /// Handles input until `exit`, the end of input, or the client's death. Returns the
    /// process exit code: 0 after `shutdown`, 1 otherwise.
    public func run() async -> Int32 {
        // Before the first request, so that no client sees changes that are past keeping.
        await pruneHistory()
        schedulePruning()
        var clientGone = false
        loop: while let batch = await events.next() {
            var index = 0
            while index < batch.count {
                // Answers the client has not read yet are bounded: wait for it to read some.
                if case .inbound = batch[index] { await writer.waitForRoom() }
                // A lone event (a lock-step client's request) has no company to commit with.
                let (writes, consumed) = index + 1 < batch.count ? groupableWrites(in: batch, from: index) : ([], 0)
                if writes.count > 1 {
                    await handleTogether(writes)
                    index += consumed
                    continue
                }
                switch batch[index] {
                case .inbound(let inbound):
                    await handle(inbound)
                    if exitRequested { break loop }
                case .databaseChanged:
                    if (try? await store.hasExternalChanges()) ?? true {
                        await deliverLoggedChanges()
                        await deliverDueReminders()
                    }
                case .pruneHistory:
                    await pruneHistory()
                    pruneTimer?.schedule(after: Self.pruneInterval)
                case .outputHasRoom:
                    await deliverLoggedChanges()
                case .clientProcessExited:
                    Log.warning("the client process has exited; stopping")
                    clientGone = true
                    break loop
                case .outputClosed:
                    clientGone = true
                    break loop
                case .remindersDue:
                    await deliverDueReminders()
                }
                index += 1
            }
        }
        // A client that ended its input or sent `exit` reads on: it is owed the range it missed.
        if !clientGone { announceMissedChanges() }
        processWatcher = nil
        pruneTimer?.cancel()
        pruneTimer = nil
        reminders?.timer.cancel()
        reminders = nil
        return phase == .shutDown ? 0 : 1
    }

    /// The run of single-write requests starting at `start`, if the server is running, and
    /// how many events it spans: cancellations among them (already noted on arrival) do not
    /// break it.
    private func groupableWrites(in batch: [Event], from start: Int) -> (requests: [Request], consumed: Int) {
        guard phase == .running else { return ([], 0) }
        var requests: [Request] = []
        var consumed = 0
        for event in batch[start...] {
            if case .inbound(.message(.notification(let notification))) = event, notification.method == "$/cancelRequest" {
                consumed += 1
                continue
            }
            guard case .inbound(.message(.request(let request))) = event,
                TaskMethods.byName[request.method] is any SingleWriteMethod.Type
            else { break }
            requests.append(request)
            consumed += 1
        }
        return (requests, consumed)
    }

    /// Group commit: the waiting writes in one transaction, answered in order after it.
    private func handleTogether(_ requests: [Request]) async {
        var changes: [TaskJSON.ChangeText] = []
        for response in await answers(to: requests, changes: &changes) {
            writer.send(response)
        }
        await deliverChanges(own: changes)
    }

    private func handle(_ inbound: Inbound) async {
        switch inbound {
        case .failure(let error):
            Log.info("bad input: \(error.message)")
            writer.send(Response(id: .null, result: .failure(error)))
        case .message(let message):
            var changes: [TaskJSON.ChangeText] = []
            if let response = await handle(message, changes: &changes) {
                writer.send(response)
            }
            await deliverChanges(own: changes)
        case .batch(let messages):
            var changes: [TaskJSON.ChangeText] = []
            var responses: [Response] = []
            for message in messages {
                if let response = await handle(message, changes: &changes) {
                    responses.append(response)
                }
                if exitRequested { break }
            }
            if !responses.isEmpty { writer.send(responses) }
            await deliverChanges(own: changes)
        }
    }

    /// Handles one message; returns its response, if it gets one, and appends the changes it
    /// committed to `changes`.
    private func handle(_ message: Message, changes: inout [TaskJSON.ChangeText]) async -> Response? {
        switch message {
        case .invalid(let error):
            return Response(id: .null, result: .failure(error))
        case .response(let json):
            Log.info("dropped a response object; the server sends no requests: \(JSONWriter.string(json).prefix(200))")
            return nil
        case .notification(let notification):
            await handle(notification, changes: &changes)
            return nil
        case .request(let request):
            return await answers(to: CollectionOfOne(request), changes: &changes)[0]
        }
    }

    /// The answers to requests, in their order, and the changes they committed, appended to
    /// `changes`. Single writes (`SingleWriteMethod`) in a row are committed together, each
    /// in its own savepoint so that each fails alone; a lone one in a transaction of its own.
    private func answers(to requests: some Collection<Request>, changes: inout [TaskJSON.ChangeText]) async -> [Response] {
        var responses: [Response] = []
        responses.reserveCapacity(requests.count)
        var writes: [PendingWrite] = []
        for request in requests {
            let result: Result<JSON, ResponseError>
            do {
                // A cancellation reaches only requests handled while the server runs:
                // `initialize` and whatever comes before it get -32002, and what follows
                // `shutdown` -32600.
                if cancellations.start(request.id), phase == .running { throw ResponseError.requestCancelled }
                if phase == .running, let method = Self.singleWrites[request.method] {
                    writes.append(
                        PendingWrite(
                            slot: responses.count, method: request.method,
                            operation: try method.operation(params: request.params)))
                    result = .success(.null)  // answered by `commit`
                } else {
                    await commit(&writes, responses: &responses, changes: &changes)
                    let outcome = try await handle(request)
                    changes += outcome.changes
                    result = .success(outcome.result)
                }
            } catch {
                result = .failure(Self.responseError(error, method: request.method))
            }
            responses.append(Response(id: request.id, result: result))
        }
        await commit(&writes, responses: &responses, changes: &changes)
        return responses
    }

    /// A write read but not yet committed.
    private struct PendingWrite {
        /// Its request's index.
        var slot: Int
        var method: String
        var operation: TaskOperation
    }

    private static let singleWrites = TaskMethods.byName.compactMapValues { $0 as? any SingleWriteMethod.Type }

    /// Commits `writes`, answers their requests in `responses`, and empties `writes`.
    /// Nonisolated (it touches no state of the server's): its call to the store then costs
    /// fewer executor checks than one from the actor (callgrind, lock-step creates).
    private nonisolated func commit(_ writes: inout [PendingWrite], responses: inout [Response], changes: inout [TaskJSON.ChangeText]) async {
        guard !writes.isEmpty else { return }
        defer { writes.removeAll() }
        func answer(_ outcome: OperationOutcome) -> Result<JSON, ResponseError> {
            let (answer, written) = TaskJSON.encode(outcome)
            changes += written
            return .success(answer)
        }
        do {
            // One write needs no savepoint: its transaction fails alone.
            if writes.count == 1 {
                responses[writes[0].slot].result = answer(try await store.perform(writes[0].operation))
                return
            }
            let results = try await store.performEach(writes.map(\.operation))
            for index in results.indices {
                switch results[index] {
                case .success(let outcome): responses[writes[index].slot].result = answer(outcome)
                case .failure(let error): responses[writes[index].slot].result = .failure(ResponseError(error))
                }
            }
        } catch {
            let failure = Self.responseError(error, method: writes[0].method)
            for write in writes { responses[write.slot].result = .failure(failure) }
        }
    }

    private static func responseError(_ error: any Error, method: String) -> ResponseError {
        switch error {
        case let error as ResponseError: return error
        case let error as TaskStoreError: return ResponseError(error)
        default:
            Log.error("\(method) failed: \(error)")
            return .internalError("\(error)")
        }
    }

    private func handle(_ request: Request) async throws -> MethodOutcome {
        switch (phase, request.method) {
        case (.waitingForInitialize, "initialize"):
            let initialize = try Initialize(params: request.params)
            notificationsEnabled = initialize.notifications
            client = initialize.client
            // The watch first, then the seq the client starts from: a commit by another process
            // is either within that seq or heard (the watch looks when it starts, too).
            if initialize.notifications || initialize.reminders {
                try await store.watchExternalChanges { [events] in events.push([.databaseChanged]) }
            }
            lastNotifiedSeq = try await store.currentSeq()
            let databaseID = try await store.databaseID()
            phase = .running
            if let pid = initialize.processID { watch(pid) }
            if initialize.reminders { startReminders() }
            return MethodOutcome(
                result: initialize.result(
                    maxMessageBytes: options.maxMessageBytes, databaseID: databaseID, seq: lastNotifiedSeq))
        case (.waitingForInitialize, _):
            throw ResponseError(code: ResponseError.serverNotInitializedCode, message: "Server not initialized: send initialize first")
        case (.shutDown, _):
            throw ResponseError.invalidRequest("the server is shutting down")
        case (.running, "initialize"):
            throw ResponseError.invalidRequest("initialize was already received")
        case (.running, "shutdown"):
            _ = try ParamsReader(request.params)  // no members defined, but params must be an object
            phase = .shutDown
            return MethodOutcome(result: .null)
        case (.running, let method):
            guard let type = TaskMethods.byName[method] else { throw ResponseError.methodNotFound(method) }
            return try await TaskMethods.call(type, params: request.params, store: store, client: client)
        }
    }

    private func handle(_ notification: Notification, changes: inout [TaskJSON.ChangeText]) async {
        switch notification.method {
        case "exit":
            exitRequested = true
        case _ where phase != .running:
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
                changes += try await TaskMethods.call(type, params: notification.params, store: store, client: client).changes
            } catch {
                Log.info("\(method) sent as a notification failed: \(error)")
            }
        }
    }

    /// Tells the client about `own`, the changes this server just committed. When nothing
    /// else happened since the last change the client heard of, they are sent as they are;
    /// otherwise the change log is read, so that the client still hears of everything in order.
    /// The client's own changes are announced after `shutdown` too (a batch may hold a write
    /// and `shutdown`); other processes' changes are not.
    private func deliverChanges(own: [TaskJSON.ChangeText]) async {
        if !own.isEmpty { remindersMayHaveMoved() }
        guard notificationsEnabled, phase != .waitingForInitialize, let ownNewest = own.last?.seq else { return }
        // Each change follows the one before it; compared by subtraction, since the last seq
        // the client heard of comes from the file and may be any integer.
        var previous = lastNotifiedSeq
        if missed == nil, !writer.isBackedUp,
            own.allSatisfy({ change in
                defer { previous = change.seq }
                return change.seq - 1 == previous
            })
        {
            writer.send(TaskJSON.didChange(own))
            lastNotifiedSeq = previous
        } else {
            await deliverLoggedChanges(own: ownNewest)
        }
    }

    /// Tells the client about every change after the last one it heard of, in `seq` order,
    /// without gaps or repeats, whichever process made them: read from the change log.
    ///
    /// What it cannot send is announced instead, by one `tasks/didMissChanges` before the
    /// changes that follow: while the client has more unread output than the writer holds
    /// (its memory stays bounded; the client catches up with `tasks/changes`), and when the
    /// change log no longer holds the changes (another process pruned them; the client
    /// refetches).
    ///
    /// After `shutdown` it announces only what the client was already owed and its own
    /// changes, through `own`, the newest of them.
    private func deliverLoggedChanges(own: Int64? = nil) async {
        guard notificationsEnabled, phase != .waitingForInitialize else { return }
        let limit = phase == .running ? nil : max(own ?? lastNotifiedSeq, lastNotifiedSeq)
        if limit == lastNotifiedSeq, missed == nil { return }
        do {
            while true {
                if writer.isBackedUp {
                    try await skipToNewest(.backlog, through: limit)
                    if missed != nil { waitForOutputRoom() }
                    return
                }
                announceMissedChanges()
                let page: ChangePage
                do {
                    page = try await store.changes(since: lastNotifiedSeq, limit: Self.logPageSize)
                } catch TaskStoreError.historyExpired {
                    // The log always keeps its newest change, so this moves on (unless the
                    // log was emptied by hand: then there is nothing to deliver).
                    guard try await skipToNewest(.historyExpired, through: limit) else { return }
                    continue
                }
                let changes = limit.map { limit in page.changes.filter { $0.seq <= limit } } ?? page.changes
                if !changes.isEmpty { writer.send(TaskJSON.didChange(changes.map { TaskJSON.text(of: $0) })) }
                lastNotifiedSeq = limit.map { min(page.seq, $0) } ?? page.seq
                if !page.hasMore || lastNotifiedSeq == limit { return }
            }
        } catch {
            Log.error("could not read the change log: \(error)")
        }
    }

    /// Sends the `tasks/didMissChanges` the client is owed, if any.
    private func announceMissedChanges() {
        guard let missed else { return }
        writer.send(
            Notification(
                method: "tasks/didMissChanges",
                params: [
                    "since": .integer(missed.since), "seq": .integer(lastNotifiedSeq), "reason": .string(missed.reason.rawValue),
                ]))
        self.missed = nil
    }

    /// Counts every change up to the newest (or up to `limit`) as missed; a miss not yet
    /// announced grows. Returns false when there was none to count.
    @discardableResult
    private func skipToNewest(_ reason: MissReason, through limit: Int64?) async throws -> Bool {
        let newest = min(try await store.currentSeq(), limit ?? .max)
        guard newest > lastNotifiedSeq else { return false }
        if let missed {
            self.missed = (missed.since, missed.reason == .historyExpired ? .historyExpired : reason)
        } else {
            missed = (lastNotifiedSeq, reason)
            switch reason {
            case .backlog:
                Log.info(
                    "the client has not read \(writer.maxPendingBytes >> 20) MiB of output: changes after seq \(lastNotifiedSeq) are not sent; it will be told to catch up (tasks/didMissChanges)"
                )
            case .historyExpired:
                Log.warning(
                    "changes after seq \(lastNotifiedSeq) were pruned from the change log before the client heard of them; it will be told to refetch (tasks/didMissChanges)"
                )
            }
        }
        lastNotifiedSeq = newest
        return true
    }

    /// Delivery goes on (`outputHasRoom`) once the client has read enough of its output,
    /// even if nothing changes meanwhile.
    private func waitForOutputRoom() {
        guard !waitingForOutputRoom else { return }
        waitingForOutputRoom = true
        Task { await self.outputRoomArrived() }
    }

    private func outputRoomArrived() async {
        await writer.waitForRoom()
        waitingForOutputRoom = false
        events.push([.outputHasRoom])
    }

    private func pruneHistory() async {
        guard let retention = options.historyRetention else { return }
        do {
            let removed = try await store.pruneHistory(before: Timestamp.now() - retention)
            if removed > 0 { Log.info("removed \(removed) changes older than the kept history from the change log") }
        } catch {
            Log.warning("could not prune the change log: \(error)")
        }
    }

    private static let pruneInterval: UInt64 = 86_400 * 1_000_000_000

    /// A timer of the loop, set again each time the history is pruned.
    private func schedulePruning() {
        guard options.historyRetention != nil else { return }
        let timer = store.loop.makeTimer { [events] in events.push([.pruneHistory]) }
        timer.schedule(after: Self.pruneInterval)
        pruneTimer = timer
    }

    private func watch(_ pid: Int32) {
        processWatcher = ProcessWatcher(pid: pid, loop: store.loop) { [events] in events.push([.clientProcessExited]) }
    }
}
