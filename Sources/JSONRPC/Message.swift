import JSON

/// A request id, echoed back with its exact JSON type and text: `1` and `"1"` are different
/// ids, and so are `1` and `1.0`. Ids are equal when their JSON text is (so a cancellation
/// names a request by the text it was sent with).
public enum RequestID: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case integer(Int64)
    /// Any other number, as its JSON text (see `JSON.number`).
    case number(String)
    case null

    public init?(_ json: JSON) {
        switch json {
        case .string(let value): self = .string(value)
        case .integer(let value): self = .integer(value)
        case .number(let text): self = .number(text)
        case .null: self = .null
        default: return nil
        }
    }

    public var json: JSON {
        switch self {
        case .string(let value): .string(value)
        case .integer(let value): .integer(value)
        case .number(let text): .number(text)
        case .null: .null
        }
    }

    public var description: String { JSONWriter.string(json) }

    /// Strings are compared code point by code point, as JSON compares them: Swift's `String`
    /// equality would take "é" and "e\u{301}" for one id, and cancel the other request.
    public static func == (a: RequestID, b: RequestID) -> Bool {
        switch (a, b) {
        case (.string(let a), .string(let b)): a.utf8.elementsEqual(b.utf8)
        case (.integer(let a), .integer(let b)): a == b
        case (.number(let a), .number(let b)): a.utf8.elementsEqual(b.utf8)
        case (.null, .null): true
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let text):
            hasher.combine(0)
            for byte in text.utf8 { hasher.combine(byte) }
        case .integer(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .number(let text):
            hasher.combine(2)
            for byte in text.utf8 { hasher.combine(byte) }
        case .null:
            hasher.combine(3)
        }
    }
}

public struct Request: Sendable {
    public var id: RequestID
    public var method: String
    /// As sent; `nil` when absent or `null`.
    public var params: JSON?

    public init(id: RequestID, method: String, params: JSON? = nil) {
        self.id = id
        self.method = method
        self.params = params
    }
}

public struct Notification: Sendable {
    public var method: String
    public var params: JSON?

    public init(method: String, params: JSON? = nil) {
        self.method = method
        self.params = params
    }
}

public struct ResponseError: Error, Sendable, Hashable {
    public var code: Int
    public var message: String
    public var data: JSON?

    public init(code: Int, message: String, data: JSON? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var json: JSON {
        var object: JSONObject = ["code": .integer(Int64(code)), "message": .string(message)]
        if let data { object["data"] = data }
        return .object(object)
    }

    // The codes JSON-RPC 2.0 and LSP define.
    public static let parseErrorCode = -32700
    public static let invalidRequestCode = -32600
    public static let methodNotFoundCode = -32601
    public static let invalidParamsCode = -32602
    public static let internalErrorCode = -32603
    public static let serverNotInitializedCode = -32002
    public static let requestCancelledCode = -32800

    public static func parseError(_ reason: String) -> ResponseError {
        ResponseError(code: parseErrorCode, message: "Parse error: \(reason)", data: ["reason": .string(reason)])
    }

    public static func invalidRequest(_ reason: String) -> ResponseError {
        ResponseError(code: invalidRequestCode, message: "Invalid request: \(reason)", data: ["reason": .string(reason)])
    }

    public static func methodNotFound(_ method: String) -> ResponseError {
        ResponseError(code: methodNotFoundCode, message: "Method not found: \(method)", data: ["method": .string(method)])
    }

    public static func invalidParams(field: String, reason: String) -> ResponseError {
        let subject = field.isEmpty ? "params" : field
        return ResponseError(
            code: invalidParamsCode, message: "Invalid params: \(subject) \(reason)",
            data: ["field": .string(field), "reason": .string(reason)])
    }

    public static let requestCancelled = ResponseError(code: requestCancelledCode, message: "Request cancelled")

    public static func internalError(_ reason: String) -> ResponseError {
        ResponseError(code: internalErrorCode, message: "Internal error: \(reason)", data: ["reason": .string(reason)])
    }
}

public struct Response: Sendable {
    public var id: RequestID
    public var result: Result<JSON, ResponseError>

    public init(id: RequestID, result: Result<JSON, ResponseError>) {
        self.id = id
        self.result = result
    }
}

/// One member of what the client sent, classified.
public enum Message: Sendable {
    case request(Request)
    case notification(Notification)
    /// Not a valid request object: answered with this error and id `null`.
    case invalid(ResponseError)
    /// A response object: the server sends no requests, so it is logged and dropped.
    case response(JSON)
}

/// One unit of input, in arrival order.
public enum Inbound: Sendable {
    case message(Message)
    /// A non-empty batch.
    case batch([Message])
    /// Input that could not be read as a message at all (framing, JSON, size, `[]`):
    /// answered with this error and id `null`.
    case failure(ResponseError)
}

public enum MessageDecoder {
    /// Classifies one framed message's bytes.
    public static func decode(_ bytes: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth) -> Inbound {
        let json: JSON
        do {
            json = try JSONParser.parse(bytes, maxDepth: maxDepth)
        } catch {
            return .failure(.parseError(error.description))
        }
        if case .array(let elements) = json {
            guard !elements.isEmpty else { return .failure(.invalidRequest("empty batch")) }
            return .batch(elements.map(message))
        }
        return .message(message(json))
    }

    static func message(_ json: JSON) -> Message {
        guard let object = json.objectValue else {
            return .invalid(.invalidRequest("expected a request object, got \(json.typeName)"))
        }
        guard let method = object["method"] else {
            if object["result"] != nil || object["error"] != nil { return .response(json) }
            return .invalid(.invalidRequest("missing \"method\""))
        }
        guard object["jsonrpc"] == "2.0" else {
            return .invalid(.invalidRequest("\"jsonrpc\" must be \"2.0\""))
        }
        guard case .string(let name) = method else {
            return .invalid(.invalidRequest("\"method\" must be a string"))
        }
        let params = object["params"] == .null ? nil : object["params"]
        guard let idJSON = object["id"] else {
            return .notification(Notification(method: name, params: params))
        }
        guard let id = RequestID(idJSON) else {
            return .invalid(.invalidRequest("\"id\" must be a string, a number or null"))
        }
        return .request(Request(id: id, method: name, params: params))
    }
}

/// The envelopes of the messages this side writes.
extension JSONWriter {
    /// Appends `response` as a JSON object: `jsonrpc`, `id`, then `result` or `error`. The
    /// envelope is written as it is, not built as a tree first: it is on every answer.
    public static func write(_ response: Response, to out: inout [UInt8]) {
        append(#"{"jsonrpc":"2.0","id":"#, to: &out)
        write(response.id.json, to: &out)
        switch response.result {
        case .success(let value):
            append(#","result":"#, to: &out)
            write(value, to: &out)
        case .failure(let error):
            append(#","error":"#, to: &out)
            write(error.json, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends `notification` as a JSON object: `jsonrpc`, `method`, then `params` if any.
    public static func write(_ notification: Notification, to out: inout [UInt8]) {
        append(#"{"jsonrpc":"2.0","method":"#, to: &out)
        write(notification.method, to: &out)
        if let params = notification.params {
            append(#","params":"#, to: &out)
            write(params, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}
