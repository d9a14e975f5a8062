public enum Framing: String, Sendable, CaseIterable {
    /// LSP base protocol: `Content-Length: N` headers, a blank line, N bytes of JSON.
    case lsp
    /// Newline-delimited JSON: one message per line.
    case ndjson
}

/// What the decoder found in the byte stream.
public enum FrameEvent: Equatable, Sendable {
    case message([UInt8])
    /// A message over the size limit was skipped without being kept.
    case oversized(reason: String)
    /// Bytes that are not a valid frame (a bad header block, a stream ending mid-message).
    case malformed(reason: String)
}

/// Splits a byte stream into messages, whatever the read boundaries are.
///
/// Memory is bounded by the size limit: an oversized message is counted and skipped as it
/// streams past, never buffered.
public struct FrameDecoder {
    public static let maxHeaderBlockBytes = 8192

    public private(set) var framing: Framing?
    public let maxMessageBytes: Int

    private enum State {
        case lineCollecting
        case lineDiscarding
        case header
        case body(remaining: Int)
        case bodyDiscarding(remaining: Int)
    }

    private var state: State
    private var buffer: [UInt8] = []
    private var headerBytes = 0
    private var contentLength: Int?
    private var headerProblem: String?
    /// The bytes of the header line being read, whether kept or not, and how it ends.
    private var lineLength = 0
    private var lineEndsInCR = false

    public init(framing: Framing?, maxMessageBytes: Int) {
        self.framing = framing
        self.maxMessageBytes = maxMessageBytes
        self.state = framing == .ndjson ? .lineCollecting : .header
    }

    /// Feeds bytes in; returns the events they complete, in order.
    public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) -> [FrameEvent] {
        var events: [FrameEvent] = []
        var index = 0
        if framing == nil {
            while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
            guard index < bytes.count else { return events }
            framing = bytes[index] == UInt8(ascii: "{") || bytes[index] == UInt8(ascii: "[") ? .ndjson : .lsp
            state = framing == .ndjson ? .lineCollecting : .header
        }
        while index < bytes.count {
            switch state {
            case .lineCollecting, .lineDiscarding:
                index = consumeLine(bytes, from: index, into: &events)
            case .header:
                index = consumeHeader(bytes, from: index, into: &events)
            case .body(let remaining):
                let take = min(remaining, bytes.count - index)
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<(index + take)]))
                index += take
                if take == remaining {
                    events.append(.message(buffer))
                    buffer = []
                    state = .header
                } else {
                    state = .body(remaining: remaining - take)
                }
            case .bodyDiscarding(let remaining):
                let take = min(remaining, bytes.count - index)
                index += take
                state = take == remaining ? .header : .bodyDiscarding(remaining: remaining - take)
            }
        }
        return events
    }

    /// The input has ended. A last NDJSON line without its newline still counts as a message.
    public mutating func finish() -> [FrameEvent] {
        defer { buffer = [] }
        switch state {
        case .lineCollecting:
            let line = trimmedLine()
            return line.isEmpty ? [] : [.message(line)]
        case .lineDiscarding:
            return [.oversized(reason: "line longer than \(maxMessageBytes) bytes")]
        case .header:
            return buffer.isEmpty && headerBytes == 0 ? [] : [.malformed(reason: "input ended inside a header block")]
        case .body(let remaining):
            return [.malformed(reason: "input ended \(remaining) bytes before the end of a message")]
        case .bodyDiscarding:
            return []
        }
    }

    // MARK: - Newline-delimited JSON

    private mutating func consumeLine(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, into events: inout [FrameEvent]) -> Int {
        let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
        let end = newline ?? bytes.count
        if case .lineCollecting = state {
            if buffer.count + (end - start) > maxMessageBytes + 1 {  // + 1: a trailing "\r" is not content
                buffer = []
                state = .lineDiscarding
            } else {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end]))
            }
        }
        guard newline != nil else { return end }
        if case .lineDiscarding = state {
            events.append(.oversized(reason: "line longer than \(maxMessageBytes) bytes"))
        } else {
            let line = trimmedLine()
            if line.count > maxMessageBytes {
                events.append(.oversized(reason: "line longer than \(maxMessageBytes) bytes"))
            } else if !line.isEmpty {
                events.append(.message(line))
            }
        }
        buffer = []
        state = .lineCollecting
        return end + 1
    }

    /// The collected line without its "\r" and, if blank, empty.
    private func trimmedLine() -> [UInt8] {
        var line = buffer
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return line.allSatisfy(isWhitespace) ? [] : line
    }

    // MARK: - LSP base protocol

    private mutating func consumeHeader(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, into events: inout [FrameEvent]) -> Int {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            // Whitespace between messages is skipped.
            if headerBytes == 0 && buffer.isEmpty && isWhitespace(byte) { continue }
            headerBytes += 1
            if byte != UInt8(ascii: "\n") {
                lineLength += 1
                lineEndsInCR = byte == UInt8(ascii: "\r")
                if headerBytes > Self.maxHeaderBlockBytes {
                    headerProblem = headerProblem ?? "header block longer than \(Self.maxHeaderBlockBytes) bytes"
                } else {
                    buffer.append(byte)
                }
                continue
            }
            // Blank by what the line held, not by what was kept of it: past the limit nothing
            // is kept, and such a line must not end the block early.
            let blank = lineLength == 0 || (lineLength == 1 && lineEndsInCR)
            lineLength = 0
            if buffer.last == UInt8(ascii: "\r") { buffer.removeLast() }
            let line = buffer
            buffer = []
            if !blank {
                if headerBytes <= Self.maxHeaderBlockBytes { headerLine(line, into: &events) }
                continue
            }
            // A blank line ends the header block.
            let problem = headerProblem
            let length = contentLength
            headerBytes = 0
            headerProblem = nil
            contentLength = nil
            if let problem {
                events.append(.malformed(reason: problem))
            } else if let length {
                if length > maxMessageBytes {
                    events.append(.oversized(reason: "Content-Length over the limit of \(maxMessageBytes) bytes"))
                    state = .bodyDiscarding(remaining: length)
                } else if length == 0 {
                    events.append(.message([]))
                } else {
                    state = .body(remaining: length)
                }
            } else {
                events.append(.malformed(reason: "header block without Content-Length"))
            }
            return index
        }
        return index
    }

    private mutating func headerLine(_ line: [UInt8], into events: inout [FrameEvent]) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
            colon > 0, line[..<colon].allSatisfy(isTokenCharacter)
        else {
            // Often the body of a message whose header was bad, glued to the next header.
            // Drop what comes before "Content-Length:" and read on from there.
            if let restart = Self.range(of: "content-length:", in: line), restart.lowerBound > 0 {
                events.append(.malformed(reason: "unexpected bytes before a header"))
                headerProblem = nil
                contentLength = nil
                headerBytes = line.count - restart.lowerBound
                headerLine(Array(line[restart.lowerBound...]), into: &events)
            } else {
                headerProblem = headerProblem ?? "malformed header line"
            }
            return
        }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        guard name == "content-length" else { return }  // Content-Type and unknown headers
        let value = line[(colon + 1)...].drop(while: isBlank).reversed().drop(while: isBlank).reversed()
        guard !value.isEmpty, value.allSatisfy(isDigit) else {
            headerProblem = headerProblem ?? "invalid Content-Length"
            return
        }
        let length = Self.saturatingDecimal(value)
        if contentLength != nil && contentLength != length {
            headerProblem = headerProblem ?? "conflicting Content-Length headers"
        }
        contentLength = length
    }

    /// Decimal digits as an Int, or Int.max when they name more: such a length is over any
    /// limit (at most 2^31), so it is the over-size case, its body skipped, not a bad header.
    private static func saturatingDecimal<Digits: Collection<UInt8>>(_ digits: Digits) -> Int {
        var value = 0
        for digit in digits {
            let (times10, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowPlus) = times10.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
            if overflowTimes || overflowPlus { return .max }
            value = sum
        }
        return value
    }

    private static func range(of needle: String, in line: [UInt8]) -> Range<Int>? {
        let pattern = Array(needle.utf8)
        guard line.count >= pattern.count else { return nil }
        for start in 0...(line.count - pattern.count) {
            var matches = true
            for offset in 0..<pattern.count where lowercase(line[start + offset]) != pattern[offset] {
                matches = false
                break
            }
            if matches { return start..<(start + pattern.count) }
        }
        return nil
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}

private func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
}

private func isBlank(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09
}

private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}

/// RFC 7230 token characters, which header names are made of.
private func isTokenCharacter(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        return true
    default:
        return "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}
