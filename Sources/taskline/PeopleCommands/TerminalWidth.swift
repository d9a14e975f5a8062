/// How many terminal cells text takes: 2 for East Asian wide and fullwidth characters and
/// for emoji, 0 for combining marks and joiners, 1 for the rest. The CLI lines its columns
/// up by this, not by characters: a CJK title or an emoji would push the next column out.
enum TerminalWidth {
    static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// One user-perceived character (a grapheme cluster: an emoji with its modifiers and
    /// joiners, a letter with its combining marks) as the terminal draws it.
    static func of(_ character: Character) -> Int {
        if character.isASCII { return character == "\t" ? 1 : (character.asciiValue! < 0x20 ? 0 : 1) }
        let scalars = character.unicodeScalars
        // An emoji shown as a picture: by default, or asked for with U+FE0F.
        if scalars.contains(where: { $0.properties.isEmojiPresentation })
            || (scalars.count > 1 && scalars.contains { $0.value == 0xFE0F })
        {
            return 2
        }
        guard let first = scalars.first(where: { !isZeroWidth($0) }) else { return 0 }
        return isWide(first) ? 2 : 1
    }

    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: true
        default: scalar.value == 0x200B || (0xFE00...0xFE0F).contains(scalar.value)
        }
    }

    /// East Asian Width W and F (Unicode's EastAsianWidth.txt, its large blocks): Hangul
    /// Jamo, CJK, Hiragana, Katakana, Hangul syllables, compatibility ideographs, fullwidth
    /// forms, and the ideographic planes.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
        0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
        0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
        0x1B000...0x1B2FF, 0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        wideRanges.contains { $0.contains(scalar.value) }
    }

    /// The longest start of `text` that fits in `cells`.
    static func prefix(_ text: String, fitting cells: Int) -> String {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let width = of(text[index])
            if used + width > cells { break }
            used += width
            end = text.index(after: index)
        }
        return String(text[..<end])
    }

    /// `text` broken into lines of at most `cells` cells, between words where it can, inside
    /// a word longer than a line.
    static func wrap(_ text: String, cells: Int) -> [String] {
        guard cells > 0, of(text) > cells else { return [text] }
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            var word = word
            let separated = line.isEmpty ? word : line + " " + word
            if of(separated) <= cells {
                line = separated
                continue
            }
            if !line.isEmpty { lines.append(line) }
            while of(word) > cells {
                // At least one character a line, even one wider than the line.
                let piece = prefix(word, fitting: cells).nonEmpty ?? String(word.prefix(1))
                lines.append(piece)
                word.removeFirst(piece.count)
            }
            line = word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
