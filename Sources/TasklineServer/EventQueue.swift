import Synchronization

/// The server's inbox: filled by the connection and the event loop's sources and timers
/// (or by any thread), emptied by the server all at once, so that it sees every request
/// already waiting (and can commit waiting writes together) without ever waiting for more
/// to arrive.
final class EventQueue<Event: Sendable>: Sendable {
    private struct State {
        var events: [Event] = []
        var finished = false
        var waiter: CheckedContinuation<[Event]?, Never>?
    }

    private let state = Mutex(State())

    func push(_ events: [Event]) {
        let resume: (CheckedContinuation<[Event]?, Never>, [Event])? = state.withLock { state in
            guard !state.finished else { return nil }
            state.events += events
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            defer { state.events = [] }
            return (waiter, state.events)
        }
        if let (waiter, events) = resume { waiter.resume(returning: events) }
    }

    /// No more events will be accepted; `next` returns what is left, then nil.
    func finish() {
        let waiter: CheckedContinuation<[Event]?, Never>? = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.events.isEmpty ? state.waiter : nil
        }
        waiter?.resume(returning: nil)
    }

    /// Everything queued, waiting for at least one event; nil once finished and drained.
    func next() async -> [Event]? {
        await withCheckedContinuation { continuation in
            let ready: [Event]?? = state.withLock { state in
                if !state.events.isEmpty {
                    defer { state.events = [] }
                    return .some(state.events)
                }
                if state.finished { return .some(nil) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
