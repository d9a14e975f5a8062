#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a stream of JSON values from a file descriptor, one at a time: either JSON Lines
/// (one value per line, blank lines skipped) or a single JSON array, whose elements come out
/// one by one. The first byte that is not white space tells which: `[` is an array. A UTF-8
/// byte order mark at the start is skipped.
///
/// Each value is parsed on its own by `JSONParser` (an array's elements are found with
/// `JSONParser.ElementEnd`, and parsed one level deep), so an array's values are read
/// without a record's failure exactly when `JSONParser` accepts the array whole. Memory holds
/// one value at a time whatever the size of the input, and a bad value is reported with the
/// line it starts on while the values after it are still read: in JSON Lines always, in an
/// array unless the array's own structure is broken.
public final class JSONRecordReader: Sequence, IteratorProtocol {
    public struct Record {
        /// The line the value starts on (1-based).
        public var line: Int
        public var value: Result<JSON, Failure>
    }

    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    public enum Layout: Sendable {
        case lines, array
    }

    /// Nil until the first value is found.
    public private(set) var layout: Layout?
    /// Bytes read from the file descriptor so far (ahead of the values returned so far by at
    /// most one read's worth): for progress.
    public private(set) var bytesRead = 0
    public let maxRecordBytes: Int

    private let fd: Int32
    private var buffer: [UInt8] = []
    /// What each read(2) fills.
    private var chunk = [UInt8](repeating: 0, count: JSONRecordReader.readSize)
    /// The first byte of `buffer` not yet returned in a record.
    private var start = 0
    /// Where scanning for the end of the current value resumes.
    private var scan = 0
    /// In an array: the scan for the end of the element being read.
    private var elementEnd = JSONParser.ElementEnd()
    /// The line of `buffer[start]`.
    private var line = 1
    private var endOfInput = false
    private var readError: String?
    private var finished = false
    /// In an array: whether the next element follows a comma (so `]` would be out of place).
    private var afterComma = false
    /// In an array: whether the element being scanned outgrew the limit.
    private var oversized = false
    private static let readSize = 1 << 20

    public init(fileDescriptor: Int32, maxRecordBytes: Int = 64 << 20) {
        fd = fileDescriptor
        self.maxRecordBytes = maxRecordBytes
    }

    public func next() -> Record? {
        if let record = nextRecord() { return record }
        guard let readError else { return nil }
        self.readError = nil
        return Record(line: line, value: .failure(Failure(reason: "the input cannot be read: \(readError)")))
    }

    private func nextRecord() -> Record? {
        guard !finished else { return nil }
        if layout == nil {
            while buffer.count < 3, fill() {}
            if buffer.starts(with: [0xEF, 0xBB, 0xBF]) {  // a UTF-8 byte order mark
                start = 3
            }
            skipWhitespace()
            guard start < buffer.count else {
                finished = true
                return nil
            }
            if buffer[start] == UInt8(ascii: "[") {
                layout = .array
                start += 1
                scan = start
            } else {
                layout = .lines
            }
        }
        return layout == .array ? nextElement() : nextLine()
    }

    // MARK: - JSON Lines

    private func nextLine() -> Record? {
        while true {
            guard let end = findNewline() else {
                if buffer.count - start > maxRecordBytes { return skipLongLine() }
                guard fill() else { break }
                continue
            }
            let record =
                end - start > maxRecordBytes
                ? Record(line: line, value: .failure(Failure(reason: "a line longer than \(maxRecordBytes) bytes")))
                : lineRecord(upTo: end)
            start = end + 1
            scan = start
            line += 1
            if let record { return record }
        }
        // The last line may lack its newline.
        finished = true
        guard start < buffer.count, let record = lineRecord(upTo: buffer.count) else { return nil }
        start = buffer.count
        return record
    }

    private func findNewline() -> Int? {
        guard let newline = buffer[scan...].firstIndex(of: 0x0A) else {
            scan = buffer.count
            return nil
        }
        scan = newline
        return newline
    }

    /// Nil for a blank line.
    private func lineRecord(upTo end: Int) -> Record? {
        var last = end
        while last > start, JSONParser.isWhitespace(buffer[last - 1]) { last -= 1 }
        var first = start
        while first < last, JSONParser.isWhitespace(buffer[first]) { first += 1 }
        guard first < last else { return nil }
        return Record(line: line, value: Self.parse(buffer[first..<last]))
    }

    /// A line longer than the limit is read past, never held whole.
    private func skipLongLine() -> Record {
        let record = Record(line: line, value: .failure(Failure(reason: "a line longer than \(maxRecordBytes) bytes")))
        while true {
            if let end = findNewline() {
                start = end + 1
                scan = start
                line += 1
                return record
            }
            start = buffer.count
            scan = start
            guard fill() else {
                finished = true
                return record
            }
        }
    }

    // MARK: - One JSON array

    private func nextElement() -> Record? {
        skipWhitespace()
        guard start < buffer.count else { return fail("the array is not closed with ]") }
        if buffer[start] == UInt8(ascii: "]") {
            if afterComma { return fail("a comma before ] ends the array") }
            start += 1
            skipWhitespace()
            finished = true
            return start < buffer.count ? Record(line: line, value: .failure(Failure(reason: "data follows the end of the array"))) : nil
        }
        let elementLine = line
        guard let end = findElementEnd() else { return fail("the array is not closed with ]", at: elementLine) }
        line += elementEnd.newlines
        // The array is the document's first level of nesting.
        let record =
            oversized || end - start > maxRecordBytes
            ? Record(line: elementLine, value: .failure(Failure(reason: "an element longer than \(maxRecordBytes) bytes")))
            : Record(line: elementLine, value: Self.parse(buffer[start..<end], enclosingDepth: 1))
        oversized = false
        elementEnd = JSONParser.ElementEnd()
        start = end
        if buffer[end] == UInt8(ascii: ",") {
            start += 1
            afterComma = true
        } else {
            afterComma = false  // `]`: seen by the next call
        }
        scan = start
        return record
    }

    /// The index of the `,` or `]` that ends the element at `start`, reading as needed;
    /// nil at the end of input. An element longer than the limit is read past, not held:
    /// `oversized` says so.
    private func findElementEnd() -> Int? {
        while true {
            let end = buffer.withUnsafeBufferPointer { bytes in elementEnd.find(in: bytes, from: scan) }
            if let end {
                scan = end
                return end
            }
            scan = buffer.count
            if scan - start > maxRecordBytes {
                oversized = true
                start = scan
            }
            guard fill() else { return nil }
        }
    }

    /// The array's structure is broken: report it, and stop.
    private func fail(_ reason: String, at failureLine: Int? = nil) -> Record {
        finished = true
        return Record(line: failureLine ?? line, value: .failure(Failure(reason: reason)))
    }

    // MARK: - Reading

    private func skipWhitespace() {
        while true {
            while start < buffer.count, JSONParser.isWhitespace(buffer[start]) {
                if buffer[start] == 0x0A { line += 1 }
                start += 1
            }
            scan = Swift.max(scan, start)
            guard start == buffer.count, fill() else { return }
        }
    }

    /// Reads more input after what is buffered, dropping what was returned already.
    /// False at the end of input (or on a read error, which ends it too).
    private func fill() -> Bool {
        guard !endOfInput else { return false }
        if start > 0 {
            buffer.removeSubrange(0..<start)
            scan -= start
            start = 0
        }
        var count: Int
        repeat {
            count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        } while count < 0 && errno == EINTR
        if count < 0 { readError = String(cString: strerror(errno)) }
        guard count > 0 else {
            endOfInput = true
            return false
        }
        buffer.append(contentsOf: chunk[..<count])
        bytesRead += count
        return true
    }

    private static func parse(_ bytes: ArraySlice<UInt8>, enclosingDepth: Int = 0) -> Result<JSON, Failure> {
        do {
            return .success(try JSONParser.parse(bytes, enclosingDepth: enclosingDepth))
        } catch {
            return .failure(Failure(reason: "not valid JSON: \(error.reason) at byte \(error.offset + 1)"))
        }
    }
}
