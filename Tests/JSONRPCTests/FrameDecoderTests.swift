import JSONRPC
import Testing

@Suite struct FrameDecoderTests {
    /// Feeds `input` in pieces of `chunk` bytes and collects every event, end of input included.
    func decode(_ input: [UInt8], chunk: Int = .max, framing: Framing? = nil, max: Int = 1 << 20) -> (Framing?, [FrameEvent]) {
        var decoder = FrameDecoder(framing: framing, maxMessageBytes: max)
        var events: [FrameEvent] = []
        var start = 0
        while start < input.count {
            let end = min(input.count, start + chunk)
            events += input[start..<end].withUnsafeBufferPointer { decoder.feed($0) }
            start = end
        }
        events += decoder.finish()
        return (decoder.framing, events)
    }

    func decode(_ text: String, chunk: Int = .max, framing: Framing? = nil, max: Int = 1 << 20) -> (Framing?, [FrameEvent]) {
        decode(Array(text.utf8), chunk: chunk, framing: framing, max: max)
    }

    func message(_ text: String) -> FrameEvent { .message(Array(text.utf8)) }

    func lsp(_ body: String) -> String { "Content-Length: \(body.utf8.count)\r\n\r\n\(body)" }

    @Test func detectsNewlineDelimitedJSON() {
        let (framing, events) = decode("  \n{\"a\":1}\r\n\n  \n[2]\n{\"b\":3}")
        #expect(framing == .ndjson)
        #expect(events == [message("{\"a\":1}"), message("[2]"), message("{\"b\":3}")])
    }

    @Test func detectsLSPFraming() {
        let (framing, events) = decode(lsp("{\"a\":1}") + "\r\n" + lsp("[é]"))
        #expect(framing == .lsp)
        #expect(events == [message("{\"a\":1}"), message("[é]")])
    }

    @Test(arguments: [1, 2, 3, 7, 64])
    func anySplitGivesTheSameMessages(chunk: Int) {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"x","params":{"t":"é\n"}}"#
        #expect(decode(lsp(body) + lsp(body), chunk: chunk).1 == [message(body), message(body)])
        #expect(decode(body + "\n" + body + "\n", chunk: chunk).1 == [message(body), message(body)])
    }

    @Test func headersAreCaseInsensitiveAndOthersIgnored() {
        let input = "content-type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH:   2  \r\nX-Whatever: 1\r\n\r\n{}"
        #expect(decode(input).1 == [message("{}")])
        #expect(decode("Content-Length: 2\n\n{}").1 == [message("{}")])  // bare newlines
    }

    @Test(arguments: [
        "Content-Length: -5", "Content-Length: abc", "Content-Length: 1e3", "Content-Length:",
        "Content-Type: text/plain", "no colon here",
    ])
    func badHeaderBlocksAreMalformedAndReadingGoesOn(header: String) {
        let events = decode(header + "\r\n\r\n" + lsp("{}")).1
        #expect(events.count == 2)
        guard case .malformed = events.first else {
            Issue.record("expected malformed, got \(events)")
            return
        }
        #expect(events.last == message("{}"))
    }

    @Test func recoversWhenABodyIsGluedToTheNextHeader() {
        // A header without Content-Length: its body cannot be delimited and runs into the next header.
        let events = decode("Content-Type: x\r\n\r\n{\"lost\":1}" + lsp("{\"ok\":2}")).1
        #expect(events.last == message("{\"ok\":2}"))
        #expect(events.dropLast().allSatisfy { if case .malformed = $0 { true } else { false } })
    }

    @Test(arguments: ["1234567890123456789", "99999999999999999999999", "9223372036854775808"])
    func aLengthOfTooManyDigitsIsOverTheLimitAndItsBodySkipped(length: String) {
        // Digits only, so no bad header: larger than any limit, and what follows is its body.
        let events = decode("Content-Length: \(length)\r\n\r\n{}" + lsp("{}")).1
        #expect(events.count == 1)
        guard case .oversized = events.first else {
            Issue.record("expected oversized, got \(events)")
            return
        }
    }

    @Test func leadingZerosDoNotMakeALengthLarge() {
        #expect(decode("Content-Length: 0000000000000000000000002\r\n\r\n{}").1 == [message("{}")])
    }

    @Test func oversizedLSPMessageIsSkippedNotBuffered() {
        let big = String(repeating: "x", count: 5000)
        let events = decode(lsp("\"\(big)\"") + lsp("{}"), chunk: 100, max: 1000).1
        #expect(events.count == 2)
        guard case .oversized = events[0] else {
            Issue.record("expected oversized, got \(events[0])")
            return
        }
        #expect(events[1] == message("{}"))
    }

    @Test func oversizedLineIsSkipped() {
        let big = "[\"" + String(repeating: "x", count: 5000) + "\"]"
        let events = decode("{}\n" + big + "\n{\"after\":1}\n", chunk: 333, max: 1000).1
        #expect(events.count == 3)
        #expect(events[0] == message("{}"))
        guard case .oversized = events[1] else {
            Issue.record("expected oversized, got \(events[1])")
            return
        }
        #expect(events[2] == message("{\"after\":1}"))
    }

    @Test func messageOfExactlyTheLimitIsAccepted() {
        #expect(decode(lsp("[1,2]"), max: 5).1 == [message("[1,2]")])
        #expect(decode("[1,2]\r\n", max: 5).1 == [message("[1,2]")])
        #expect(decode("[1,2]\n", max: 4).1.count == 1)
        #expect(decode("[1,2]\n", max: 4).1.first != message("[1,2]"))
    }

    @Test func headerBlockHasALimit() {
        let long = "X-Long: " + String(repeating: "a", count: 10_000) + "\r\nContent-Length: 2\r\n\r\n{}" + lsp("[]")
        let events = decode(long).1
        #expect(events.last == message("[]"))
        #expect(events.contains(.malformed(reason: "header block longer than 8192 bytes")))

        // Many short lines past the limit: the block still ends only at its blank line.
        let many = (0..<400).map { "X-Junk-\($0): jjjjjjjjjjjjjjjjjjjj\r\n" }.joined() + "Content-Length: 2\r\n\r\n" + lsp("[]")
        for chunk in [1, 7, 4096, Int.max] {
            #expect(decode(many, chunk: chunk).1 == [.malformed(reason: "header block longer than 8192 bytes"), message("[]")], "chunk \(chunk)")
        }
    }

    @Test func inputEndingMidMessageIsReported() {
        #expect(decode("Content-Length: 10\r\n\r\n{\"a\"").1 == [.malformed(reason: "input ended 6 bytes before the end of a message")])
        #expect(decode("Content-Len").1 == [.malformed(reason: "input ended inside a header block")])
        #expect(decode("{\"no\":\"newline\"}").1 == [message("{\"no\":\"newline\"}")])
        #expect(decode("").1 == [])
    }

    @Test func forcedFramingSkipsDetection() {
        #expect(decode("Content-Length: 2\r\n\r\n{}", framing: .ndjson).1 == [message("Content-Length: 2"), message("{}")])
        let (framing, events) = decode(lsp("{}"), framing: .lsp)
        #expect(framing == .lsp)
        #expect(events == [message("{}")])
    }
}
