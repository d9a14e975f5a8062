import Logging
import PeopleLanguage

#if canImport(Glibc)
import Glibc
#endif

/// The command line's settings: `$XDG_CONFIG_HOME/taskline/config`, else
/// `~/.config/taskline/config`, a `name = value` a line, `#` starting a comment line
/// (docs/configuration.md). A missing file is no settings. The server reads none of it:
/// they are the person's, not the protocol's.
struct Settings: Sendable {
    /// Where the settings are read from and written to.
    let path: String
    /// The file's lines as read, comments and blank lines kept, so that writing one setting
    /// leaves the rest of the file as the person wrote it.
    private var lines: [String]

    /// The names a setting may have; `context.NAME` for any NAME.
    static let names = ["context"] + Urgency.Coefficients.names

    static func path(environment: (String) -> String?) -> String {
        if let config = environment("XDG_CONFIG_HOME"), config.hasPrefix("/") { return config + "/taskline/config" }
        return (environment("HOME") ?? ".") + "/.config/taskline/config"
    }

    /// The settings at `path`; a line that is no `name = value`, or names no setting, is a
    /// usage error that names the file and the line.
    static func load(from path: String) throws(UsageError) -> Settings {
        // A settings file is a few lines: a large one is a mistake, not settings.
        guard let (bytes, complete) = WholeFile.read(path, limit: 1 << 20) else {
            // A file that cannot be read (another user's home, say) is said, not fatal: the
            // commands still work, without the settings.
            if errno != ENOENT && errno != ENOTDIR { Log.warning("\(path) is not read: \(String(cString: strerror(errno)))") }
            return Settings(path: path, lines: [])
        }
        guard complete else { throw UsageError("\(path) is over 1 MiB: not a settings file") }
        let settings = Settings(
            path: path, lines: String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
        for (index, line) in settings.lines.enumerated() {
            guard let (name, _) = Self.entry(line) else {
                if !Self.isBlankOrComment(line) { throw UsageError("\(path):\(index + 1): expected name = value, not \(line)") }
                continue
            }
            guard Self.isKnown(name) else {
                let meant = Suggestion.closest(to: name, among: names).map { "; did you mean \($0)?" } ?? ""
                throw UsageError("\(path):\(index + 1): there is no setting \(name)\(meant)")
            }
        }
        return settings
    }

    static func isKnown(_ name: String) -> Bool {
        names.contains(name) || (name.hasPrefix("context.") && name.count > "context.".count)
    }

    /// The value the last line naming `name` gives.
    subscript(name: String) -> String? {
        lines.reversed().lazy.compactMap(Self.entry).first { $0.name == name }?.value
    }

    /// Every setting whose name starts with `prefix`, in file order, the last of a name winning.
    func values(under prefix: String) -> [(name: String, value: String)] {
        var seen: [String: Int] = [:]
        var found: [(name: String, value: String)] = []
        for (name, value) in lines.compactMap(Self.entry) where name.hasPrefix(prefix) {
            if let index = seen[name] {
                found[index].value = value
            } else {
                seen[name] = found.count
                found.append((name, value))
            }
        }
        return found
    }

    /// Sets `name` to `value` (nil: removes it), in place of its lines, or at the end.
    mutating func set(_ name: String, _ value: String?) {
        // The first line naming it is where the new one goes: no line before it names it.
        let index = lines.firstIndex { Self.entry($0)?.name == name }
        lines = lines.filter { Self.entry($0)?.name != name }
        guard let value else { return }
        let line = "\(name) = \(value)"
        if let index {
            lines.insert(line, at: index)
        } else {
            // Before the empty string that a file's final newline leaves.
            if lines.last == "" { lines.removeLast() }
            lines.append(line)
        }
    }

    /// Writes the file whole: a temporary file beside it, flushed, then renamed over it, so
    /// that a crash leaves the old settings or the new, never half of them.
    func save() throws(CommandFailure) {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !folder.isEmpty { makeFolders(folder) }
        let temporary = path + ".tmp-\(getpid())"
        var text = lines.joined(separator: "\n")
        if !text.hasSuffix("\n") { text += "\n" }
        guard let file = fopen(temporary, "w") else { throw CommandFailure("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = fwrite(bytes, 1, bytes.count, file)
        let flushed = fflush(file) == 0 && fsync(fileno(file)) == 0
        fclose(file)
        guard written == bytes.count, flushed, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CommandFailure("cannot write \(path): \(reason)")
        }
    }

    /// `mkdir -p`: the folders that exist already are left as they are.
    private func makeFolders(_ folder: String) {
        var prefix = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            prefix += "/" + part
            mkdir(prefix, 0o755)
        }
    }

    private static func isBlankOrComment(_ line: String) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        return trimmed.isEmpty || trimmed.hasPrefix("#")
    }

    private static func entry(_ line: String) -> (name: String, value: String)? {
        guard !isBlankOrComment(line), let equals = line.firstIndex(of: "=") else { return nil }
        let name = line[..<equals].trimmedOfSpaces
        guard !name.isEmpty, !name.contains(" ") else { return nil }
        return (name, line[line.index(after: equals)...].trimmedOfSpaces)
    }
}

extension Substring {
    fileprivate var trimmedOfSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
