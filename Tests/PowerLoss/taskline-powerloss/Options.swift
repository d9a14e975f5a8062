import TaskStore

struct Options {
    /// How many crash points inside operations to check; nil checks every one. The point
    /// after each acknowledged write is always checked.
    var points: Int? = 600
    var seed: UInt64 = 1
    var durability: Durability = .full
    var powersafeOverwrite = true
    var sectorSize: Int32 = 4096
    /// Checks this one point alone (a failure's report names it).
    var onlyPoint: Int?
    /// The workload's size: 1 for the smoke run, larger for long runs.
    var scale = 1

    static let usage = """
        usage: taskline-powerloss [--points N|all] [--seed S] [--durability full|normal] [--psow 0|1]
                                  [--sector 512|4096] [--scale K] [--point P]
        Runs a Taskline workload over a VFS that simulates power loss, and at each crash point
        checks the files a power loss (and a crash of the process) could leave.
        """

    init(arguments: [String]) throws(OptionError) {
        var remaining = arguments[...]
        func value(_ flag: String) throws(OptionError) -> String {
            guard let value = remaining.popFirst() else { throw OptionError("\(flag) needs a value") }
            return value
        }
        func number<T: FixedWidthInteger>(_ flag: String, in range: ClosedRange<T>) throws(OptionError) -> T {
            let text = try value(flag)
            guard let number = T(text), range.contains(number) else { throw OptionError("\(flag): not a number in \(range): \(text)") }
            return number
        }
        while let flag = remaining.popFirst() {
            switch flag {
            case "--points":
                let text = try value(flag)
                if text == "all" {
                    points = nil
                } else {
                    guard let count = Int(text), count >= 0 else { throw OptionError("--points: a count or all, not \(text)") }
                    points = count
                }
            case "--seed": seed = try number(flag, in: 0...UInt64.max)
            case "--durability":
                let text = try value(flag)
                guard let level = Durability(rawValue: text) else { throw OptionError("--durability: full or normal, not \(text)") }
                durability = level
            case "--psow": powersafeOverwrite = try number(flag, in: 0...1) == 1
            case "--sector":
                let size: Int32 = try number(flag, in: 512...65536)
                guard size & (size - 1) == 0 else { throw OptionError("--sector: a power of two, not \(size)") }
                sectorSize = size
            case "--scale": scale = try number(flag, in: 1...100)
            case "--point": onlyPoint = try number(flag, in: 0...Int.max)
            case "--help", "-h": throw OptionError(nil)
            default: throw OptionError("unknown option \(flag)")
            }
        }
    }

    /// The flags that repeat this run.
    var command: String {
        "taskline-powerloss --seed \(seed) --durability \(durability.rawValue) --psow \(powersafeOverwrite ? 1 : 0) "
            + "--sector \(sectorSize) --scale \(scale)"
    }
}

struct OptionError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}
