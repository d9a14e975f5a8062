import PeopleLanguage

#if canImport(Glibc)
import Glibc
#endif

/// `taskline context …`: named filters that the listings take first, as Taskwarrior's
/// contexts, kept in the settings file (`context.NAME = FILTER…`, `context = NAME`).
enum ContextCommand: Command {
    static let name = "context"
    static let summary = "name a filter that list, next and the other listings take first"
    static var usage: String {
        """
        Usage: taskline context                       the context in use
               taskline context list                  the contexts, the one in use marked *
               taskline context define NAME FILTER…   NAME means those filter words (or anew)
               taskline context delete NAME           forget NAME
               taskline context NAME                  use NAME
               taskline context none                  use none

        A context is a few of list's filter words (+work, project:Home, -someday, pri:H …)
        under a name. While one is in use, list, next, overdue, search, waiting, completed
        and all take its words before their own, and on a terminal say so after the count;
        the server and the editors are not affected. Contexts, and the urgency coefficients
        (see taskline next --help), are kept in the settings file, a name = value a line:
        $XDG_CONFIG_HOME/taskline/config, else ~/.config/taskline/config.

        Exit codes: 0 done; 1 no such context; 2 usage error.
        """
    }

    enum Action: Sendable, Equatable {
        case show, list, none
        case use(String)
        case define(String, [String])
        case delete(String)
    }

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Action {
        var words: [String] = []
        while let item = try reader.next() {
            switch item {
            case .operand(let word): words.append(word)
            // Filter words like -someday are words here, not options.
            case .option(let word) where !word.hasPrefix("--") && words.first == "define": words.append(word)
            default: throw item.unexpected
            }
        }
        switch (words.first, words.count) {
        case (nil, _): return .show
        case ("list", 1): return .list
        case ("none", 1): return .none
        case ("define", 2...):
            let name = try checkedName(words[1])
            // Checked now, as a listing will read them, so that a mistake is said at once.
            var listing = Listing()
            var filter = ArgumentReader(Array(words[2...]))
            try listing.parse(&filter)
            return .define(name, Array(words[2...]))
        case ("define", _): throw UsageError("context define takes a name and filter words: context define work +work")
        case ("delete", 2): return .delete(try checkedName(words[1]))
        case (let name?, 1): return .use(try checkedName(name))
        default: throw UsageError("context takes list, none, define NAME FILTER…, delete NAME or a NAME")
        }
    }

    private static let reserved: Set = ["list", "none", "define", "delete"]

    private static func checkedName(_ name: String) throws(UsageError) -> String {
        guard !reserved.contains(name), !name.isEmpty,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else {
            throw UsageError("a context's name is letters, digits, - and _, and none of \(reserved.sorted().joined(separator: ", ")): not \(name)")
        }
        return name
    }

    static func run(_ action: Action) async throws -> Int32 {
        var settings = try Settings.load(from: Settings.path { getenv($0).map { String(cString: $0) } })
        let output = OutputWriter()
        let defined = settings.values(under: "context.").map { (name: String($0.name.dropFirst("context.".count)), words: $0.value) }
        func isDefined(_ name: String) -> Bool { defined.contains { $0.name == name } }
        switch action {
        case .show:
            if let name = settings["context"] {
                try output.line("\(name): \(settings["context.\(name)"] ?? "(not defined)")")
            } else {
                note("no context is in use")
            }
        case .list:
            if defined.isEmpty { note("no context is defined (taskline context define NAME FILTER…)") }
            let width = defined.map(\.name.count).max() ?? 0
            for context in defined {
                let mark = settings["context"] == context.name ? "*" : " "
                try output.line("\(mark) \(context.name)\(String(repeating: " ", count: width - context.name.count))  \(context.words)")
            }
        case .none:
            settings.set("context", nil)
            try settings.save()
            note("no context in use: every task is listed")
        case .use(let name):
            guard isDefined(name) else {
                let meant = Suggestion.closest(to: name, among: defined.map(\.name)).map { "; did you mean \($0)?" } ?? ""
                throw CommandFailure("there is no context \(name)\(meant) (taskline context define \(name) FILTER…)")
            }
            settings.set("context", name)
            try settings.save()
            note("context \(name) in use: \(settings["context.\(name)"]!)")
        case .define(let name, let words):
            settings.set("context.\(name)", words.joined(separator: " "))
            try settings.save()
            note("context \(name) is \(words.joined(separator: " "))\(settings["context"] == name ? "" : " (taskline context \(name) uses it)")")
        case .delete(let name):
            guard isDefined(name) else { throw CommandFailure("there is no context \(name)") }
            settings.set("context.\(name)", nil)
            if settings["context"] == name { settings.set("context", nil) }
            try settings.save()
            note("context \(name) is forgotten")
        }
        try output.flush()
        return 0
    }
}
