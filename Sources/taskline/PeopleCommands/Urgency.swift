import PeopleLanguage
import TaskModel

/// How urgent an open task is: Taskwarrior's formula, with its default coefficients unless
/// the settings change them.
struct Urgency: Sendable {
    static let help = """
        Urgency is the sum of: priority H 6, M 3.9, L 1.8; due date 12 × a scale from 0.2
        (due in 14 days or more, or no due date: 0) rising linearly to 1 (7 days overdue or
        more); 8 for blocking an open task, -5 for being blocked; 4 for being active
        (started); 1 × 0.8, 0.9 or 1 for having 1, 2, or 3 and more annotations; 1 for having
        tags; 1 for having a project; age 2 × (days since created / 365, at most 1). The Urg
        column shows it. The settings file changes the numbers (urgency.due.coefficient =
        12, …; taskline context --help says where it is).
        """

    /// The formula's numbers, named as Taskwarrior's `.taskrc` names them.
    struct Coefficients: Sendable, Equatable {
        /// For no priority, L, M and H.
        var priority: [Double] = [0, 1.8, 3.9, 6]
        var due = 12.0
        /// What others wait for comes first.
        var blocking = 8.0
        /// What cannot be done yet goes down.
        var blocked = -5.0
        /// What was started is being worked on.
        var active = 4.0
        /// Scaled 0.8, 0.9 and 1 for 1, 2, and 3 or more annotations, as Taskwarrior does.
        var annotations = 1.0
        var tags = 1.0
        var project = 1.0
        var age = 2.0
        /// Days after which the age counts in full.
        var ageMax = 365.0

        static let names = [
            "urgency.priority.H.coefficient", "urgency.priority.M.coefficient", "urgency.priority.L.coefficient",
            "urgency.due.coefficient", "urgency.blocking.coefficient", "urgency.blocked.coefficient",
            "urgency.tags.coefficient", "urgency.project.coefficient", "urgency.age.coefficient", "urgency.age.max",
            "urgency.active.coefficient", "urgency.annotations.coefficient",
        ]

        init() {}

        /// The defaults, changed by the settings that name a coefficient.
        init(_ settings: Settings) throws(UsageError) {
            for name in Self.names {
                guard let text = settings[name] else { continue }
                guard let value = Double(text), value.isFinite, name != "urgency.age.max" || value > 0 else {
                    throw UsageError("\(settings.path): \(name) takes a number\(name == "urgency.age.max" ? " above 0" : ""), not \(text)")
                }
                set(name, value)
            }
        }

        private mutating func set(_ name: String, _ value: Double) {
            switch name {
            case "urgency.priority.H.coefficient": priority[3] = value
            case "urgency.priority.M.coefficient": priority[2] = value
            case "urgency.priority.L.coefficient": priority[1] = value
            case "urgency.due.coefficient": due = value
            case "urgency.blocking.coefficient": blocking = value
            case "urgency.blocked.coefficient": blocked = value
            case "urgency.tags.coefficient": tags = value
            case "urgency.project.coefficient": project = value
            case "urgency.age.coefficient": age = value
            case "urgency.active.coefficient": active = value
            case "urgency.annotations.coefficient": annotations = value
            default: ageMax = value
            }
        }

        /// Whether a more urgent task can be told from its priority and due date as the
        /// store orders them, which `UrgencyCutoff` needs: no part lowers what it rewards.
        var rewardsInOrder: Bool {
            zip(priority, priority.dropFirst()).allSatisfy { $0 <= $1 } && priority[0] >= 0
                && [due, tags, project, age, active, annotations].allSatisfy { $0 >= 0 }
        }
    }

    /// Which open tasks wait for which: what urgency knows of dependencies.
    struct Dependencies: Sendable {
        /// The open tasks some open task depends on.
        var blocking: Set<String> = []
        /// The open tasks that depend on an open task.
        var blocked: Set<String> = []
    }

    var coefficients = Coefficients()
    var dependencies = Dependencies()

    func of(_ task: TaskItem, dates: DateContext) -> Double {
        var score = coefficients.priority[task.priority]
        if dependencies.blocking.contains(task.id) { score += coefficients.blocking }
        if dependencies.blocked.contains(task.id) { score += coefficients.blocked }
        if let days = task.due.flatMap({ PeopleDates.days(until: $0, now: dates.now, calendar: dates.calendar) }) {
            score += duePart(days: days)
        }
        if task.startedAt != nil { score += coefficients.active }
        score += coefficients.annotations * Self.annotationsScale(task.annotations.count)
        if !task.tags.isEmpty { score += coefficients.tags }
        if task.project != nil { score += coefficients.project }
        score += agePart(createdAt: task.createdAt, now: dates.now)
        return score
    }

    /// Taskwarrior's scale of the annotations' coefficient: 0.8 for one, 0.9 for two, 1 for more.
    static func annotationsScale(_ count: Int) -> Double {
        count >= 3 ? 1 : count == 2 ? 0.9 : count == 1 ? 0.8 : 0
    }

    /// The due date's part for a task due `days` local days from today (negative: overdue):
    /// the more overdue, the larger.
    func duePart(days: Int64) -> Double {
        let overdue = Double(-days)
        return coefficients.due * (overdue >= 7 ? 1 : overdue >= -14 ? (overdue + 14) * 0.8 / 21 + 0.2 : 0.2)
    }

    /// The age's part: the older, the larger.
    func agePart(createdAt: Int64, now: Int64) -> Double {
        coefficients.age * min(1, Double(max(0, now - createdAt)) / 86_400_000 / coefficients.ageMax)
    }
}

/// What lets `next` stop reading once it holds the most urgent tasks: read in `order`, by
/// priority, highest first, then by due date, soonest first (the undated last), no task after
/// a given one is more urgent than `bound(after:)`. Its priority is the same with a due date
/// no sooner, or lower with a due date no sooner than the most overdue task's; its tags and
/// project, being active and its annotations add at most their coefficients; it is no older
/// than the oldest task. Where every due date is weeks
/// away, `next` then reads the open tasks of high priority with a due date rather than every
/// open task. The bound is for tasks that block nothing (being blocked only lowers): the
/// listing reads the tasks that block others before it starts.
///
/// The store orders due dates by instant, urgency counts local days: a date without a time
/// is the same day everywhere, a time is placed in the local zone (up to a day either side
/// of its UTC date), and a clock put back over midnight repeats part of a day. A task due no
/// sooner is due at most a day more overdue, so a bound's due part is that of one more day.
struct UrgencyCutoff {
    static let order = [SortKey(field: .priority, descending: true), SortKey(field: .due)]

    private let dates: DateContext
    private let urgency: Urgency
    /// The bounding due part of the most overdue task.
    private let mostOverduePart: Double
    /// The age part of the oldest task.
    private let oldestAgePart: Double

    /// `fetch` reads a page of the tasks the listing reads, in the query's order.
    init(urgency: Urgency, dates: DateContext, fetch: (_ sort: [SortKey]) throws -> TaskPage) throws {
        self.dates = dates
        self.urgency = urgency
        mostOverduePart = try fetch([SortKey(field: .due)]).tasks.first.map { Self.duePartBound(of: $0, urgency: urgency, dates: dates) } ?? 0
        oldestAgePart = try fetch([SortKey(field: .createdAt)]).tasks.first.map { urgency.agePart(createdAt: $0.createdAt, now: dates.now) } ?? 0
    }

    /// The most urgent a task after `last` in `order` can be.
    func bound(after last: TaskItem) -> Double {
        let parts = urgency.coefficients
        var bound = parts.priority[last.priority] + Self.duePartBound(of: last, urgency: urgency, dates: dates)
        if last.priority > 0 { bound = max(bound, parts.priority[last.priority - 1] + mostOverduePart) }
        return bound + parts.tags + parts.project + parts.active + parts.annotations + oldestAgePart
    }

    /// The largest due part of a task due no sooner than `task`: none when it has no due
    /// date (neither have those after it), the most when its due date is not one.
    private static func duePartBound(of task: TaskItem, urgency: Urgency, dates: DateContext) -> Double {
        guard let due = task.due else { return 0 }
        guard let days = PeopleDates.days(until: due, now: dates.now, calendar: dates.calendar) else { return urgency.duePart(days: -7) }
        return urgency.duePart(days: days - 1)
    }
}
