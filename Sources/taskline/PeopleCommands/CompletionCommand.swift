import PeopleLanguage
import StoreServing
import TaskModel

/// `taskline completion`: the shells' completion scripts, and the words they complete,
/// read from this binary and the database, so that they never fall behind either.
enum CompletionCommand: Command {
    enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    enum Words: String, CaseIterable, Sendable {
        case commands, options, ids, tags, projects
    }

    enum Options: Sendable {
        case script(Shell)
        case words(Words, command: String?, database: String)
    }

    static let name = "completion"
    static let summary = "print a shell's completion script (bash, zsh, fish)"
    static let usage = """
        Usage: taskline completion bash|zsh|fish
               taskline completion --words commands|options [COMMAND]
               taskline completion --words ids|tags|projects [--db PATH]

        Prints the completion script of the shell (scripts/install installs them). They
        complete commands and options, and read task ids, tags and projects from the
        database with --words: one a line, a tab and a description after the name where
        there is one (a command's summary, a task's title). ids are the short ids of open
        tasks, the 1,000 last changed. A database that cannot be read gives no words.

        Try one without installing it: source <(taskline completion bash)
        """

    static func parse(_ reader: inout ArgumentReader) throws(UsageError) -> Options {
        var words: Words?
        var operand: String?
        var database = Subcommands.defaultDatabasePath
        while let item = try reader.next() {
            switch item {
            case .option("--words"): words = try reader.choice(Words.self)
            case .option("--db"): database = try reader.value()
            case .operand(let word) where operand == nil: operand = word
            default: throw item.unexpected
            }
        }
        if let words { return .words(words, command: operand, database: database) }
        guard let operand, let shell = Shell(rawValue: operand) else {
            throw UsageError("which shell? Give bash, zsh or fish")
        }
        return .script(shell)
    }

    static func run(_ options: Options) async throws -> Int32 {
        let output = OutputWriter()
        switch options {
        case .script(let shell):
            try output.write(script(shell))
        case .words(let kind, let command, let database):
            for line in try await words(kind, command: command, database: database) { try output.line(line) }
        }
        try output.flush()
        return 0
    }

    static func words(_ kind: Words, command: String?, database: String) async throws -> [String] {
        switch kind {
        case .commands:
            return Subcommands.all.map { "\($0.name)\t\($0.summary)" }
        case .options:
            let usage = command.flatMap(Subcommands.named)?.usage ?? CommandLineOptions.usage
            return optionNames(in: usage)
        case .ids, .tags, .projects:
            // Completion must stay quiet: no database, or a bad one, gives no words.
            guard let store = try? StoreAccess.open(database, create: false) else { return [] }
            let words = (try? await read(kind, from: store)) ?? []
            await store.close()
            return words
        }
    }

    private static func read(_ kind: Words, from store: isolated any CommandLineStoring) throws -> [String] {
        switch kind {
        case .ids:
            let query = TaskQuery(
                filter: TaskFilter(done: false), sort: [SortKey(field: .updatedAt, descending: true)],
                limit: TaskQuery.maxLimit)
            let tasks = try store.fetch(query).tasks
            let ids = try store.shortIDs(for: tasks.map(\.id))
            return tasks.map { "\(ids.shortID(for: $0.id))\t\($0.title)" }
        case .tags:
            return try CountedNames.tags.counts(in: store, all: false).keys.sorted()
        default:
            return try CountedNames.projects.counts(in: store, all: false).keys.sorted()
        }
    }

    /// The options a help text lists: `--name` at the start of an indented line.
    static func optionNames(in usage: String) -> [String] {
        var names: [String] = []
        for line in usage.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.count < line.count, trimmed.hasPrefix("--") else { continue }
            // `--done, --all      as …`: the names before the description's two spaces.
            let head = trimmed[..<(trimmed.firstRange(of: "  ")?.lowerBound ?? trimmed.endIndex)]
            for word in head.split(whereSeparator: { $0 == " " || $0 == "," }) where word.hasPrefix("--") {
                let name = String(word.prefix { $0.isLetter || $0 == "-" })
                if !names.contains(name) { names.append(name) }
            }
        }
        return names + (names.contains("--help") ? [] : ["--help"])
    }

    static func script(_ shell: Shell) -> String {
        switch shell {
        case .bash: bash
        case .zsh: zsh
        case .fish: fish
        }
    }

    /// The commands that take a task's id.
    static let idCommands = ["done", "rm", "modify", "show", "edit"]

    static let bash = """
        # bash completion for taskline (taskline completion bash)
        _taskline() {
            local line=${COMP_LINE:0:COMP_POINT}
            local cur=${line##*[[:space:]]} prev=${COMP_WORDS[COMP_CWORD-1]}
            local command= i
            local -a db=()
            for ((i = 1; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in
                    --db) db=(--db "${COMP_WORDS[i+1]}"); ((i++)) ;;
                    -*) ;;
                    *) [[ -z $command ]] && command=${COMP_WORDS[i]} ;;
                esac
            done
            if [[ $prev == --db || $prev == --template ]]; then
                COMPREPLY=($(compgen -f -- "$cur"))
                return
            fi
            local IFS=$'\\n'
            if [[ -z $command ]]; then
                COMPREPLY=($(compgen -W "$(taskline completion --words commands | cut -f1; taskline completion --words options)" -- "$cur"))
                return
            fi
            case $cur in
                -*) COMPREPLY=($(compgen -W "$(taskline completion --words options "$command")" -- "$cur")) ;;
                +*) COMPREPLY=($(compgen -P + -W "$(taskline completion --words tags "${db[@]}")" -- "${cur#+}")) ;;
                project:*|proj:*)
                    COMPREPLY=($(compgen -P "${cur%%:*}:" -W "$(taskline completion --words projects "${db[@]}")" -- "${cur#*:}"))
                    # bash splits words at colons: complete only what follows the last one.
                    COMPREPLY=("${COMPREPLY[@]#"${cur%"${cur##*:}"}"}") ;;
                *)
                    case " \(idCommands.joined(separator: " ")) " in
                        *" $command "*) COMPREPLY=($(compgen -W "$(taskline completion --words ids "${db[@]}" | cut -f1)" -- "$cur")) ;;
                    esac ;;
            esac
        }
        complete -F _taskline taskline

        """

    static let zsh = """
        #compdef taskline
        # zsh completion for taskline (taskline completion zsh)
        _taskline() {
            local command i
            local -a db described
            for ((i = 2; i < CURRENT; i++)); do
                case ${words[i]} in
                    --db) db=(--db ${words[i+1]}); ((i++)) ;;
                    -*) ;;
                    *) [[ -z $command ]] && command=${words[i]} ;;
                esac
            done
            if [[ ${words[CURRENT-1]} == (--db|--template) ]]; then
                _files
                return
            fi
            if [[ -z $command ]]; then
                described=(${${(f)"$(taskline completion --words commands)"}/$'\\t'/:})
                _describe -t commands command described
                compadd -- ${(f)"$(taskline completion --words options)"}
                return
            fi
            case ${words[CURRENT]} in
                -*) compadd -- ${(f)"$(taskline completion --words options $command)"} ;;
                +*) compset -P '+'; compadd -- ${(f)"$(taskline completion --words tags $db)"} ;;
                project:*|proj:*) compset -P '*:'; compadd -- ${(f)"$(taskline completion --words projects $db)"} ;;
                *)
                    if [[ " \(idCommands.joined(separator: " ")) " == *" $command "* ]]; then
                        described=(${${(f)"$(taskline completion --words ids $db)"}/$'\\t'/:})
                        _describe -t tasks task described
                    fi ;;
            esac
        }
        if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
            _taskline "$@"
        else
            compdef _taskline taskline
        fi

        """

    static let fish = """
        # fish completion for taskline (taskline completion fish)
        function __taskline_command
            set -l tokens (commandline -opc)
            set -l skip 0
            for token in $tokens[2..-1]
                if test $skip = 1
                    set skip 0
                else if test "$token" = --db
                    set skip 1
                else if not string match -q -- '-*' $token
                    echo $token
                    return
                end
            end
        end
        function __taskline_db
            set -l tokens (commandline -opc)
            if set -l index (contains -i -- --db $tokens)
                echo --db
                echo $tokens[(math $index + 1)]
            end
        end
        complete -c taskline -f
        complete -c taskline -n 'test -z "$(__taskline_command)"' -a '(taskline completion --words commands)'
        complete -c taskline -n 'test -z "$(__taskline_command)"; and string match -q -- "-*" (commandline -ct)' -a '(taskline completion --words options)'
        complete -c taskline -n 'test -n "$(__taskline_command)"; and string match -q -- "-*" (commandline -ct)' -a '(taskline completion --words options (__taskline_command))'
        complete -c taskline -n 'contains -- "$(__taskline_command)" \(idCommands.joined(separator: " "))' -a '(taskline completion --words ids (__taskline_db))'
        complete -c taskline -n 'test -n "$(__taskline_command)"; and string match -q -- "+*" (commandline -ct)' -a '(taskline completion --words tags (__taskline_db) | string replace -r "^" "+")'
        complete -c taskline -n 'test -n "$(__taskline_command)"; and string match -q -- "project:*" (commandline -ct)' -a '(taskline completion --words projects (__taskline_db) | string replace -r "^" "project:")'
        complete -c taskline -l db -r -F

        """
}
