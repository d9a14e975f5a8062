import PeopleLanguage

/// Reads a command line the way every taskline command takes it: options as `--name value`
/// or `--name=value`, flags, and operands, in any order. `--` ends the options (what
/// follows is operands, even when it starts with `-`); `-` alone is an operand (stdin).
struct ArgumentReader {
    enum Item: Equatable {
        case option(String)
        case operand(String)
    }

    private var remaining: ArraySlice<String>
    private var name = ""
    private var inlineValue: String?
    /// After `--`: every argument is an operand, whatever it looks like.
    private(set) var optionsEnded = false

    init(_ arguments: [String]) {
        remaining = arguments[...]
    }

    /// The next option (its name, without any `=value`) or operand; nil at the end.
    /// Fails when the previous option was a flag given a value (`--all=yes`).
    mutating func next() throws(UsageError) -> Item? {
        if inlineValue != nil { throw UsageError("\(name) takes no value") }
        guard let argument = remaining.popFirst() else { return nil }
        if optionsEnded || argument == "-" || !argument.hasPrefix("-") { return .operand(argument) }
        if argument == "--" {
            optionsEnded = true
            return try next()
        }
        name = argument
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            name = String(argument[..<equals])
            inlineValue = String(argument[argument.index(after: equals)...])
        }
        return .option(name)
    }

    /// The value of the option just read: after `=`, or the next argument.
    mutating func value() throws(UsageError) -> String {
        if let inlineValue {
            self.inlineValue = nil
            return inlineValue
        }
        guard let next = remaining.popFirst() else { throw UsageError("\(name) needs a value") }
        return next
    }

    /// A whole number in `range`, as the value of the option just read.
    mutating func integer(in range: ClosedRange<Int>) throws(UsageError) -> Int {
        let text = try value()
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(text)")
        }
        return number
    }

    /// One of `choices`, as the value of the option just read.
    mutating func choice<Choice: RawRepresentable & CaseIterable>(_ type: Choice.Type) throws(UsageError) -> Choice
    where Choice.RawValue == String {
        let text = try value()
        guard let choice = Choice(rawValue: text) else {
            let names = Choice.allCases.map(\.rawValue)
            throw UsageError("\(name) must be \(names.dropLast().joined(separator: ", ")) or \(names.last!), not \(text)")
        }
        return choice
    }
}
