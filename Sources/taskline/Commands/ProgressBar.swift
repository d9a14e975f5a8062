import TaskModel

#if canImport(Glibc)
import Glibc
#endif

/// A progress line on stderr, redrawn in place at most ten times a second, and only when
/// stderr is a terminal: a file or a pipe gets nothing, so logs stay clean.
final class ProgressBar {
    private let label: String
    private let enabled: Bool
    private var lastDrawn: Int64 = 0
    private var shown = false
    private static let width = 30

    init(label: String, enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.label = label
        self.enabled = enabled
    }

    /// `fraction`: how much is done (nil when unknown); `detail`: a figure to show after it.
    func update(fraction: Double?, detail: String, final: Bool = false) {
        guard enabled else { return }
        let now = Timestamp.now()
        guard final || now - lastDrawn >= 100 else { return }
        lastDrawn = now
        var text = "\r\(label)"
        if let fraction {
            let clamped = min(max(fraction, 0), 1)
            let filled = Int(clamped * Double(Self.width))
            text += " [" + String(repeating: "#", count: filled) + String(repeating: "-", count: Self.width - filled) + "]"
            text += " \(Int(clamped * 100))%"
        }
        text += "  \(detail)\u{1B}[K"
        write(text)
        shown = true
    }

    /// Ends the line, if one was drawn.
    func finish() {
        if shown { write("\n") }
        shown = false
    }

    private func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress!, $0.count) }
    }
}

/// `1234567` as `1,234,567`.
func grouped(_ number: Int) -> String {
    let digits = Array(String(number.magnitude))
    var text = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
        text.append(digit)
    }
    return (number < 0 ? "-" : "") + text
}
