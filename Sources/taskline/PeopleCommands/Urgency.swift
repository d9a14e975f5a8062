import PeopleLanguage
import TaskModel

/// How urgent an open task is, after Taskwarrior's default coefficients.
enum Urgency {
    static let help = """
        Urgency is the sum of: priority H 6, M 3.9, L 1.8; due date 12 × a scale from 0.2
        (due in 14 days or more, or no due date: 0) rising linearly to 1 (7 days overdue or
        more); 1 for having tags; 1 for having a project; age 2 × (days since created / 365,
        at most 1).
        """

    static let priorityParts: [Double] = [0, 1.8, 3.9, 6]

    static func of(_ task: TaskItem, dates: DateContext) -> Double {
        var score = priorityParts[task.priority]
        if let days = task.due.flatMap({ PeopleDates.days(until: $0, now: dates.now, calendar: dates.calendar) }) {
            score += duePart(days: days)
        }
        if !task.tags.isEmpty { score += 1 }
        if task.project != nil { score += 1 }
        score += agePart(createdAt: task.createdAt, now: dates.now)
        return score
    }

    /// The due date's part for a task due `days` local days from today (negative: overdue):
    /// the more overdue, the larger.
    static func duePart(days: Int64) -> Double {
        let overdue = Double(-days)
        return 12 * (overdue >= 7 ? 1 : overdue >= -14 ? (overdue + 14) * 0.8 / 21 + 0.2 : 0.2)
    }

    /// The age's part: the older, the larger.
    static func agePart(createdAt: Int64, now: Int64) -> Double {
        2 * min(1, Double(max(0, now - createdAt)) / 86_400_000 / 365)
    }
}

/// What lets `next` stop reading once it holds the most urgent tasks: read in `order`, by
/// priority, highest first, then by due date, soonest first (the undated last), no task after
/// a given one is more urgent than `bound(after:)`. Its priority is the same with a due date
/// no sooner, or lower with a due date no sooner than the most overdue task's; its tags and
/// project add at most 2; it is no older than the oldest task. Where every due date is weeks
/// away, `next` then reads the open tasks of high priority with a due date rather than every
/// open task.
///
/// The store orders due dates by instant, urgency counts local days: a date without a time
/// is the same day everywhere, a time is placed in the local zone (up to a day either side
/// of its UTC date), and a clock put back over midnight repeats part of a day. A task due no
/// sooner is due at most a day more overdue, so a bound's due part is that of one more day.
struct UrgencyCutoff {
    static let order = [SortKey(field: .priority, descending: true), SortKey(field: .due)]

    private let dates: DateContext
    /// The bounding due part of the most overdue task.
    private let mostOverduePart: Double
    /// The age part of the oldest task.
    private let oldestAgePart: Double

    /// `fetch` reads a page of the tasks the listing reads, in the query's order.
    init(dates: DateContext, fetch: (_ sort: [SortKey]) throws -> TaskPage) throws {
        self.dates = dates
        mostOverduePart = try fetch([SortKey(field: .due)]).tasks.first.map { Self.duePartBound(of: $0, dates: dates) } ?? 0
        oldestAgePart = try fetch([SortKey(field: .createdAt)]).tasks.first.map { Urgency.agePart(createdAt: $0.createdAt, now: dates.now) } ?? 0
    }

    /// The most urgent a task after `last` in `order` can be.
    func bound(after last: TaskItem) -> Double {
        var bound = Urgency.priorityParts[last.priority] + Self.duePartBound(of: last, dates: dates)
        if last.priority > 0 { bound = max(bound, Urgency.priorityParts[last.priority - 1] + mostOverduePart) }
        return bound + 2 + oldestAgePart
    }

    /// The largest due part of a task due no sooner than `task`: none when it has no due
    /// date (neither have those after it), the most when its due date is not one.
    private static func duePartBound(of task: TaskItem, dates: DateContext) -> Double {
        guard let due = task.due else { return 0 }
        guard let days = PeopleDates.days(until: due, now: dates.now, calendar: dates.calendar) else { return Urgency.duePart(days: -7) }
        return Urgency.duePart(days: days - 1)
    }
}
