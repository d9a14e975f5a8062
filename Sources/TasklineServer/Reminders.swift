import EventLoop
import JSONRPC
import Logging
import StoreServing
import TaskModel

/// `tasks/remind`, for a client that asked for it (`initializationOptions.reminders`).
///
/// Nothing polls: one timer of the loop is set to the soonest reminder still to send, which
/// the store reads from an index. It is set again after each delivery, after every write of
/// this server's, and whenever another process commits (the database watch that brings
/// `tasks/didChange`), so that a reminder moved, added, completed or deleted anywhere moves
/// it. Due reminders are claimed by the store in a write transaction before they are sent:
/// of all the servers open on a file, the one that claims a reminder is the only one to send
/// it, and none sends it again, after a restart either.
final class Reminders {
    let timer: EventLoop.Timer
    /// A `remindersDue` event waits in the queue: more are not needed.
    var checkQueued = false
    /// How long after a failed delivery to try again, in ms: doubled by each failure in a
    /// row (a file on read-only media fails every time), back to a second once one works.
    var retryDelay = Reminders.firstRetryDelay
    static let firstRetryDelay: Int64 = 1000

    init(timer: EventLoop.Timer) {
        self.timer = timer
    }
}

extension Server {
    /// From `initialize`: the reminders that came due while no server sent them go out
    /// after its answer, then each as it comes due.
    func startReminders() {
        reminders = Reminders(timer: store.loop.makeTimer { [events] in events.push([.remindersDue]) })
        remindersMayHaveMoved()
    }

    /// The server's own writes may have added, moved or removed a reminder: look again once
    /// the events waiting now are handled (after their answers and `tasks/didChange`).
    func remindersMayHaveMoved() {
        guard let reminders, !reminders.checkQueued else { return }
        reminders.checkQueued = true
        events.push([.remindersDue])
    }

    /// Sends the reminders that are due, one `tasks/remind` per claim, and sets the timer to
    /// the next. The timer runs on the monotonic clock and reminders on the real-time one:
    /// when the timer fires early by the real-time clock, nothing is due yet and it is set again.
    func deliverDueReminders() async {
        guard let reminders else { return }
        reminders.checkQueued = false
        guard phase == .running else { return }
        do {
            while true {
                let now = Timestamp.now()
                let due = try await store.claimDueReminders(now: now)
                if !due.tasks.isEmpty {
                    writer.send(Notification(method: "tasks/remind", params: ["tasks": TaskJSON.encode(due.tasks)]))
                }
                reminders.retryDelay = Reminders.firstRetryDelay
                guard let next = due.next else {
                    reminders.timer.cancel()
                    return
                }
                if next > now {
                    reminders.timer.schedule(after: UInt64(min(next - now, Self.longestReminderWait)) * 1_000_000)
                    return
                }
            }
        } catch {
            // Another process held the write lock past the busy timeout, the file cannot be
            // written, or a read failed.
            Log.warning("could not deliver reminders, trying again in \(reminders.retryDelay / 1000) s: \(error)")
            reminders.timer.schedule(after: UInt64(reminders.retryDelay) * 1_000_000)
            reminders.retryDelay = min(reminders.retryDelay * 2, Self.longestReminderWait)
        }
    }

    /// In ms. A reminder further away is looked at again after this: a timer in nanoseconds
    /// reaches a few centuries at most, and a reminder can be set in the year 9999.
    private static let longestReminderWait: Int64 = 86_400_000
}
