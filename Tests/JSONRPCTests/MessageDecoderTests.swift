import JSON
import JSONRPC
import Testing

@Suite struct MessageDecoderTests {
    func decode(_ text: String) -> Inbound {
        MessageDecoder.decode(Array(text.utf8))
    }

    func single(_ text: String) -> Message? {
        if case .message(let message) = decode(text) { return message }
        return nil
    }

    func failureCode(_ text: String) -> Int? {
        if case .failure(let error) = decode(text) { return error.code }
        return nil
    }

    func invalidReason(_ text: String) -> String? {
        if case .invalid(let error)? = single(text) { return error.data?["reason"]?.stringValue }
        return nil
    }

    /// The id of a request whose id is `text`.
    func id(_ text: String) throws -> RequestID {
        guard case .request(let request)? = single(#"{"jsonrpc":"2.0","id":\#(text),"method":"m"}"#) else {
            throw Failure(text: text)
        }
        return request.id
    }

    struct Failure: Error {
        let text: String
    }

    @Test func requestKeepsItsIDType() {
        for (idText, id) in [("1", RequestID.integer(1)), ("\"1\"", .string("1")), ("null", .null), ("1.5", .number("1.5"))] {
            guard case .request(let request)? = single(#"{"jsonrpc":"2.0","id":\#(idText),"method":"m","params":{"a":1}}"#) else {
                Issue.record("not a request: \(idText)")
                continue
            }
            #expect(request.id == id)
            #expect(request.id.json == (try? JSONParser.parse(Array(idText.utf8))))
            #expect(request.params == ["a": 1])
        }
    }

    @Test func numberIDsKeepTheirTextAndAreTheSameOnlyWithTheSameText() throws {
        let texts = [
            "18446744073709551616", "18446744073709551617", "-9223372036854775809", "12345678901234567890123",
            "1", "1.0", "1.5", "1.50", "1e-400", "-0", "0",
        ]
        for text in texts {
            #expect(try id(text).description == text)
        }
        // Requests are found by id for cancellation: each text is its own id, and equal texts meet.
        let ids = try Set(texts.map(id))
        #expect(ids.count == texts.count)
        #expect(try texts.allSatisfy { ids.contains(try id($0)) })
        #expect(try id("1") != id("\"1\""))
    }

    /// "é" written precomposed and as "e" with a combining accent are two ids: JSON compares
    /// strings code point by code point, and a cancellation of one must not reach the other.
    @Test func stringIDsAreTheSameOnlyWithTheSameCodePoints() throws {
        let precomposed = try id(#""\u00e9""#)
        let combining = try id(#""e\u0301""#)
        #expect(precomposed != combining)
        #expect(Set([precomposed, combining]).count == 2)
        #expect(try precomposed == id(#""\u00e9""#))
    }

    @Test func missingIDMakesANotification() {
        guard case .notification(let notification)? = single(#"{"jsonrpc":"2.0","method":"n","params":null}"#) else {
            Issue.record("not a notification")
            return
        }
        #expect(notification.method == "n")
        #expect(notification.params == nil)
    }

    @Test func invalidRequestObjects() {
        #expect(invalidReason(#"{"id":1,"method":"m"}"#) == "\"jsonrpc\" must be \"2.0\"")
        #expect(invalidReason(#"{"jsonrpc":"1.0","id":1,"method":"m"}"#) == "\"jsonrpc\" must be \"2.0\"")
        #expect(invalidReason(#"{"jsonrpc":"2.0","id":1,"method":1}"#) == "\"method\" must be a string")
        #expect(invalidReason(#"{"jsonrpc":"2.0","id":true,"method":"m"}"#) == "\"id\" must be a string, a number or null")
        #expect(invalidReason(#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#) == "\"id\" must be a string, a number or null")
        #expect(invalidReason(#"{"jsonrpc":"2.0","id":1}"#) == "missing \"method\"")
        #expect(invalidReason(#""text""#) == "expected a request object, got string")
    }

    @Test func responsesFromTheClientAreRecognised() {
        guard case .response? = single(#"{"jsonrpc":"2.0","id":1,"result":null}"#) else {
            Issue.record("not recognised as a response")
            return
        }
    }

    @Test func batches() {
        guard case .batch(let messages) = decode(#"[{"jsonrpc":"2.0","id":1,"method":"a"},1,{"jsonrpc":"2.0","method":"n"}]"#) else {
            Issue.record("not a batch")
            return
        }
        #expect(messages.count == 3)
        #expect(failureCode("[]") == ResponseError.invalidRequestCode)
        #expect(failureCode("[") == ResponseError.parseErrorCode)
        #expect(failureCode(#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#) == ResponseError.parseErrorCode)
    }

    @Test func errorResponsesCarryData() throws {
        let error = ResponseError.invalidParams(field: "changes.priority", reason: "must be an integer")
        var written: [UInt8] = []
        JSONWriter.write(Response(id: .string("7"), result: .failure(error)), to: &written)
        #expect(
            try JSONParser.parse(written) == [
                "jsonrpc": "2.0", "id": "7",
                "error": [
                    "code": -32602, "message": "Invalid params: changes.priority must be an integer",
                    "data": ["field": "changes.priority", "reason": "must be an integer"],
                ],
            ])
    }
}
