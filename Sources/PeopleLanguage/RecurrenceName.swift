import TaskModel

/// The names people give a repeat, Taskwarrior's `recur` values, as the rules the store keeps:
/// what `recur:` takes on the command line and what an import from Taskwarrior maps.
public enum RecurrenceName {
    /// What `recur:` takes, for the message that refuses another value.
    public static let accepted =
        "daily, weekdays, weekly, biweekly, monthly, lastday, quarterly, semiannual, yearly, "
        + "Nd, Nw, Nmo or Ny (2w: every two weeks), or a rule such as FREQ=WEEKLY;BYDAY=MO,TH"

    /// The rule `recur` stands for, or nil: `weekly` is `FREQ=WEEKLY`, `2w` is
    /// `FREQ=WEEKLY;INTERVAL=2` (the table in `TaskwarriorImport`'s documentation). Monthly
    /// repeats keep the due's day where the month has it and take the month's last day where
    /// it does not (RFC 7529's `SKIP=BACKWARD`): a bill due on the 31st is due on February 28th.
    public static func rule(for recur: String) -> String? {
        switch recur.lowercased() {
        case "daily", "day": return "FREQ=DAILY"
        case "weekdays": return "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR"
        case "weekly", "week": return "FREQ=WEEKLY"
        case "biweekly", "fortnight": return "FREQ=WEEKLY;INTERVAL=2"
        case "monthly", "month": return "FREQ=MONTHLY" + monthEnd
        case "lastday": return "FREQ=MONTHLY;BYMONTHDAY=-1"
        case "quarterly": return "FREQ=MONTHLY;INTERVAL=3" + monthEnd
        case "semiannual": return "FREQ=MONTHLY;INTERVAL=6" + monthEnd
        case "yearly", "year", "annual": return "FREQ=YEARLY"
        default: break
        }
        let units: [(suffix: String, frequency: String)] = [("mo", "MONTHLY"), ("d", "DAILY"), ("w", "WEEKLY"), ("y", "YEARLY")]
        for (suffix, frequency) in units where recur.hasSuffix(suffix) {
            let digits = recur.dropLast(suffix.count)
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let interval = Int(digits),
                RecurrenceRule.intervals.contains(interval)
            else { return nil }
            let rule = interval == 1 ? "FREQ=\(frequency)" : "FREQ=\(frequency);INTERVAL=\(interval)"
            return frequency == "MONTHLY" ? rule + monthEnd : rule
        }
        return nil
    }

    /// The name people give `rule` (`weekly` for `FREQ=WEEKLY`), for showing it; nil when it
    /// has none.
    public static func name(for rule: String) -> String? {
        names.first { self.rule(for: $0) == rule }
    }

    static let names = ["daily", "weekdays", "weekly", "biweekly", "monthly", "lastday", "quarterly", "semiannual", "yearly"]

    /// What a monthly rule adds so that a day the month lacks becomes its last day.
    static let monthEnd = ";RSCALE=GREGORIAN;SKIP=BACKWARD"
}
