import CLibPQ

/// `connectionString` with every password replaced by `***`, for messages and logs:
/// `postgresql://u:secret@h/db` → `postgresql://u:***@h/db`, `password=secret` →
/// `password=***`, and likewise `?password=…`, `sslpassword`, and a connection string given
/// as `dbname`. Where the string is malformed, more is hidden rather than less: from the
/// password to the end of the string.
public func redactPasswords(in connectionString: String) -> String {
    let bytes = Array(connectionString.utf8)
    var output: [UInt8] = []
    var copied = 0
    for span in passwordSpans(bytes[...]) where span.lowerBound >= copied {
        output += bytes[copied..<span.lowerBound]
        output += "***".utf8
        copied = span.upperBound
    }
    output += bytes[copied...]
    return String(decoding: output, as: UTF8.self)
}

/// The passwords in `connectionString`, as written and as libpq reads them (percent-decoded,
/// unquoted, in pieces), to be taken out of libpq's messages, which quote what they complain of.
func passwords(in connectionString: String) -> [String] {
    let bytes = Array(connectionString.utf8)
    var found = passwordSpans(bytes[...]).flatMap { span -> [String] in
        let raw = bytes[span]
        var forms = [String(decoding: raw, as: UTF8.self), String(decoding: percentDecoded(raw), as: UTF8.self)]
        if raw.count >= 2, raw.first == quote, raw.last == quote {
            forms.append(String(decoding: raw.dropFirst().dropLast(), as: UTF8.self))
        }
        return forms
    }
    if let options = PQconninfoParse(connectionString, nil) {
        var option = options
        while let keyword = option.pointee.keyword {
            if passwordKeywords.contains(String(cString: keyword)), let value = option.pointee.val {
                found.append(String(cString: value))
            }
            option += 1
        }
        PQconninfoFree(options)
    }
    // libpq reads a password with an unencoded delimiter as other parts (`u:Kw7/Jd9@h` has the
    // port `Kw7`) and may quote one of them: each piece of three or more characters goes too.
    let delimiters = Set("/@:?&=,'\" \t\n")
    found += found.flatMap { $0.split(whereSeparator: delimiters.contains).map(String.init).filter { $0.count >= 3 } }
    // Longest first, so that a password containing another is replaced whole.
    return Array(Set(found.filter { !$0.isEmpty })).sorted { $0.utf8.count > $1.utf8.count }
}

private let passwordKeywords: Set<String> = ["password", "sslpassword"]
private let quote = UInt8(ascii: "'")
private let backslash = UInt8(ascii: "\\")
private let uriPrefixes = ["postgresql://", "postgres://"].map { Array($0.utf8) }

/// Where the passwords are in a connection string, in order: libpq reads a string that starts
/// with a URI prefix as a URI, any other as key=value pairs.
private func passwordSpans(_ text: ArraySlice<UInt8>) -> [Range<Int>] {
    if let prefix = uriPrefixes.first(where: { text.starts(with: $0) }) {
        return uriPasswordSpans(text, authority: text.startIndex + prefix.count)
    }
    return keywordPasswordSpans(text)
}

/// `postgresql://user:password@host:port/dbname?password=…&…`.
private func uriPasswordSpans(_ text: ArraySlice<UInt8>, authority: Int) -> [Range<Int>] {
    let at = UInt8(ascii: "@")
    let colon = UInt8(ascii: ":")
    let slash = UInt8(ascii: "/")
    let question = UInt8(ascii: "?")
    var spans: [Range<Int>] = []
    // libpq ends the user information at the first `@` before any `/`. A password with an
    // unencoded `/` or `@` in it is read otherwise by libpq, but is still a password a person
    // typed: the user information reaches to the last `@` before the query, if that is later.
    let libpqEnd = text[authority...].firstIndex { $0 == at || $0 == slash }.flatMap { text[$0] == at ? $0 : nil }
    let queryStart = text[authority...].firstIndex(of: question) ?? text.endIndex
    let lastEnd = text[authority..<queryStart].lastIndex(of: at)
    var rest = authority
    if let end = [libpqEnd, lastEnd].compactMap({ $0 }).max() {
        if let separator = text[authority..<end].firstIndex(of: colon) {
            spans.append(separator + 1..<end)
        }
        rest = end + 1
    }
    guard let query = text[rest...].firstIndex(of: question) else { return spans }
    var start = query + 1
    while start <= text.endIndex {
        let end = text[start...].firstIndex(of: UInt8(ascii: "&")) ?? text.endIndex
        if let equals = text[start..<end].firstIndex(of: UInt8(ascii: "=")) {
            let keyword = String(decoding: percentDecoded(text[start..<equals]), as: UTF8.self)
            if passwordKeywords.contains(keyword.lowercased()) {
                spans.append(equals + 1..<end)
            }
        }
        start = end + 1
    }
    return spans
}

/// `host=h password='a b\'c' dbname=d`: keyword, optional spaces, `=`, optional spaces, a
/// value that is bare or single-quoted, where a backslash escapes the next character.
private func keywordPasswordSpans(_ text: ArraySlice<UInt8>) -> [Range<Int>] {
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
    var spans: [Range<Int>] = []
    var index = text.startIndex
    func skipSpaces() { while index < text.endIndex, isSpace(text[index]) { index += 1 } }
    /// Where the string stops parsing, a password keyword in the rest hides the rest; else a
    /// password before reaches to the end (a quote libpq does not know may have split it).
    func hideRest(from start: Int) -> [Range<Int>] {
        let rest = String(decoding: text[start...], as: UTF8.self).lowercased()
        if passwordKeywords.contains(where: rest.contains) { return spans + [start..<text.endIndex] }
        guard let last = spans.popLast() else { return [] }
        return spans + [last.lowerBound..<text.endIndex]
    }
    while true {
        skipSpaces()
        guard index < text.endIndex else { return spans }
        let keywordStart = index
        while index < text.endIndex, text[index] != UInt8(ascii: "="), !isSpace(text[index]) { index += 1 }
        let keyword = String(decoding: text[keywordStart..<index], as: UTF8.self).lowercased()
        skipSpaces()
        guard index < text.endIndex, text[index] == UInt8(ascii: "=") else { return hideRest(from: keywordStart) }
        index += 1
        skipSpaces()
        let valueStart = index
        var inner = valueStart..<valueStart
        if index < text.endIndex, text[index] == quote {
            index += 1
            while index < text.endIndex, text[index] != quote { index += text[index] == backslash ? 2 : 1 }
            guard index < text.endIndex else {
                return passwordKeywords.contains(keyword) ? spans + [valueStart..<text.endIndex] : hideRest(from: valueStart)
            }
            inner = valueStart + 1..<index
            index += 1
        } else {
            while index < text.endIndex, !isSpace(text[index]) { index += text[index] == backslash ? 2 : 1 }
            index = min(index, text.endIndex)
            inner = valueStart..<index
        }
        if passwordKeywords.contains(keyword) {
            spans.append(valueStart..<index)
        } else if keyword == "dbname" {
            // libpq reads a dbname with an `=` or a URI prefix as a connection string of its own.
            spans += passwordSpans(text[inner])
        }
    }
}

private func percentDecoded(_ text: ArraySlice<UInt8>) -> [UInt8] {
    var decoded: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        if text[index] == UInt8(ascii: "%"), index + 2 < text.endIndex, let high = hexValue(text[index + 1]), let low = hexValue(text[index + 2]) {
            decoded.append(high << 4 | low)
            index += 3
        } else {
            decoded.append(text[index])
            index += 1
        }
    }
    return decoded
}

/// The value of a hexadecimal digit, either case.
private func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
}
