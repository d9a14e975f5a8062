import JSONRPC
import Synchronization

/// Requests received but not yet started, and which of them the client has cancelled.
///
/// The reader thread fills it as input arrives, so a `$/cancelRequest` takes effect even
/// while the requests before it are still being handled. Only ids of waiting requests are
/// kept, so a flood of cancellations for unknown ids costs no memory.
final class CancellationRegistry: Sendable {
    private struct State {
        var waiting: [RequestID: Int] = [:]
        var cancelled: [RequestID: Int] = [:]
    }

    private let state = Mutex(State())

    func received(_ id: RequestID) {
        state.withLock { $0.waiting[id, default: 0] += 1 }
    }

    func cancel(_ id: RequestID) {
        state.withLock { state in
            let waiting = state.waiting[id] ?? 0
            if state.cancelled[id, default: 0] < waiting { state.cancelled[id, default: 0] += 1 }
        }
    }

    /// Marks the request as started; returns true when it was cancelled before that.
    func start(_ id: RequestID) -> Bool {
        state.withLock { state in
            if let waiting = state.waiting[id] { state.waiting[id] = waiting > 1 ? waiting - 1 : nil }
            guard let cancelled = state.cancelled[id] else { return false }
            state.cancelled[id] = cancelled > 1 ? cancelled - 1 : nil
            return true
        }
    }
}
