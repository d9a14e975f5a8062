import Foundation
import JSON
import TestSupport

/// The hostile inputs, by kind. Each case's expectations come from protocol/README.md.
enum HostileInput {
    /// The server's peak resident memory over a whole corpus (10 MB strings, 16 MiB lines,
    /// 100,000-deep nesting included) must stay under this many bytes.
    static let peakBound = 256 * 1024 * 1024

    typealias Answer = HostileCase.Answer

    static let tenMegabytes = 10 * 1024 * 1024
    static let maxMessageBytes = 16 * 1024 * 1024

    /// SQL, LIKE and GLOB syntax, quoting and parameter markers: each must be taken as text.
    static let sqlPayloads = [
        "'; DROP TABLE task; --", "\" OR 1=1 --", "' OR ''='", "Robert'); DROP TABLE task_tag;--", "%", "_", "%_%",
        "\\", "\\%", "[a-z]*", "*", "?", "?1", ":name", "@x", "$x", "/* comment */", "x' ESCAPE '\\", "%%%%", "_%_",
        "1; SELECT * FROM sqlite_master", "char(39)", "' UNION SELECT id FROM task --",
    ]

    // MARK: - Building messages

    static func request(_ method: String, _ params: JSON? = nil, id: JSON = 1) -> String {
        var object: JSONObject = ["jsonrpc": "2.0", "id": id, "method": .string(method)]
        if let params { object["params"] = params }
        return JSONWriter.string(.object(object))
    }

    static func line(_ text: String) -> [UInt8] { Array(text.utf8) + [0x0A] }

    static func lsp(_ body: [UInt8]) -> [UInt8] { Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body }

    static func hostile(_ name: String, _ text: String, _ expect: Answer..., changes: Int = 0) -> HostileCase {
        HostileCase(name: name, bytes: line(text), expect: expect, changes: changes)
    }

    static func hostile(_ name: String, bytes: [UInt8], _ expect: Answer...) -> HostileCase {
        HostileCase(name: name, bytes: bytes + [0x0A], expect: expect)
    }

    /// Several requests in one write, answered in order.
    static func session(_ name: String, _ requests: [String], _ expect: [Answer], changes: Int, stored: [String: JSON] = [:]) -> HostileCase {
        HostileCase(name: name, bytes: requests.flatMap(line), expect: expect, changes: changes, stored: stored)
    }

    static func codePointSorted(_ tags: [String]) -> [JSON] {
        tags.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }.map(JSON.string)
    }

    static func created(_ id: String, _ fields: JSON, version: Int64 = 1) -> [String: JSON] {
        var object = fields.objectValue ?? [:]
        object["version"] = .integer(version)
        return [id: .object(object)]
    }

    // MARK: - Newline-delimited JSON

    /// Built once: the large inputs take a while in a debug build.
    static let ndjson = ndjsonCases()
    static let lsp = lspCases()

    static func ndjsonCases() -> [HostileCase] {
        notJSON() + invalidUTF8() + nulBytes() + numbers() + ids() + envelopes() + batches() + duplicateKeys()
            + deepNesting() + hugeStrings() + sqlText() + unicodeTitles() + lifecycle() + applyAbuse() + fetchAbuse()
            + changesAndUpdateAbuse() + projectDependencyAbuse() + recurrenceAbuse() + reminderAbuse() + undoAbuse()
    }

    static func notJSON() -> [HostileCase] {
        let texts = [
            "{", "}", #"{"jsonrpc""#, #"{"a":}"#, "{,}", "[1,]", #"{"a":1,}"#, "nul", "tru", "01", "1.", ".5", "-", "+1", "1e",
            "0x10", "NaN", "Infinity", "-Infinity", "'single'", #"{"a" 1}"#, "{a:1}", #""unterminated"#, #""\x""#, #""\u12""#,
            #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #"{"a":1}{"b":2}"#, "[]]", "{}}", "[1 2]", #"{"a":1 "b":2}"#,
            "truefalse", "\u{FEFF}{}", "/* comment */ {}", #"{"a":1} // x"#, "1e400", "-1e400", "[1e309]", "\u{7F}",
        ]
        var cases = texts.map { hostile("not JSON: \($0)", $0, .error(-32700)) }
        for text in ["1", #""x""#, "true", "null", "{}", #"{"jsonrpc":"2.0"}"#, #"{"id":1}"#] {
            cases.append(hostile("JSON but not a request: \(text)", text, .error(-32600)))
        }
        return cases
    }

    static func invalidUTF8() -> [HostileCase] {
        let sequences: [[UInt8]] = [
            [0xFF], [0xFE], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xE2, 0x82], [0x80], [0xBF], [0xC3],
        ]
        var cases: [HostileCase] = []
        for bytes in sequences {
            let hex = bytes.map { String($0, radix: 16) }.joined(separator: " ")
            let inTitle = Array(#"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"a"#.utf8) + bytes + Array(#"b"}}"#.utf8)
            cases.append(hostile("invalid UTF-8 in a title: \(hex)", bytes: inTitle, .error(-32700)))
            let inName = Array(#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"i"#.utf8) + bytes + Array(#"d":"x"}}"#.utf8)
            cases.append(hostile("invalid UTF-8 in a member name: \(hex)", bytes: inName, .error(-32700)))
        }
        cases.append(hostile("invalid UTF-8 outside a string", bytes: [0xFF] + Array(#"{"jsonrpc":"2.0","id":1,"method":"x"}"#.utf8), .error(-32700)))
        return cases
    }

    static func nulBytes() -> [HostileCase] {
        [
            hostile(
                "a raw NUL in a string",
                bytes: Array(#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"a"#.utf8) + [0] + Array(#""}}"#.utf8), .error(-32700)),
            hostile(
                "a raw NUL between tokens", bytes: Array(#"{"jsonrpc":"2.0","id":1,"#.utf8) + [0] + Array(#""method":"x"}"#.utf8), .error(-32700)),
            hostile("a raw NUL line", bytes: [0, 0, 0], .error(-32700)),
            hostile("NUL in a title", request("tasks/create", ["title": "a\u{0}b"]), .error(-32602)),
            hostile("NUL in a tag", request("tasks/create", ["title": "t", "tags": ["a\u{0}b"]]), .error(-32602)),
            hostile("NUL in a client id", request("tasks/create", ["id": "a\u{0}b", "title": "t"]), .error(-32602)),
            hostile("NUL in a method name", request("tasks/get\u{0}x", ["id": "x"]), .error(-32601)),
            HostileCase(
                name: "NUL in a request id", bytes: line(request("tasks/get", ["id": "missing"], id: "a\u{0}b")),
                expect: [.error(1001)], echoedID: "a\u{0}b"),
            // Notes may hold any character but U+0000, which PostgreSQL's text cannot hold:
            // refused on create and on update, not cut off where C strings end.
            session(
                "NUL in notes is refused",
                [
                    request("tasks/create", ["id": "nul-notes", "title": "t", "notes": "before\u{0}after"]),
                    request("tasks/create", ["id": "nul-notes", "title": "t"], id: 2),
                    request("tasks/update", ["id": "nul-notes", "changes": ["notes": "before\u{0}after"]], id: 3),
                ], [.error(-32602), .ok, .error(-32602)], changes: 1, stored: created("nul-notes", ["title": "t"])),
            // An id with a NUL in it is not the id before the NUL.
            session(
                "an id with a NUL is another id",
                [
                    request("tasks/create", ["id": "nul-target", "title": "t"]),
                    request("tasks/get", ["id": "nul-target\u{0}x"], id: 2),
                    request("tasks/update", ["id": "nul-target\u{0}x", "changes": ["title": "hijacked"]], id: 3),
                    request("tasks/delete", ["id": "nul-target\u{0}x"], id: 4),
                ], [.ok, .error(1001), .error(1001), .error(1001)], changes: 1, stored: created("nul-target", ["title": "t"])),
            session(
                "a NUL in the text filter is refused",
                [
                    request("tasks/fetch", ["filter": ["text": "before\u{0}after"], "includeTotal": true]),
                    request("tasks/fetch", ["filter": ["text": "\u{0}"]], id: 2),
                ], [.error(-32602), .error(-32602)], changes: 0),
        ]
    }

    static func numbers() -> [HostileCase] {
        var cases: [HostileCase] = []
        for text in ["1e400", "-1e400", "1e309"] {
            cases.append(
                hostile(
                    "out-of-range number \(text) as priority",
                    #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"t","priority":\#(text)}}"#, .error(-32700)))
            cases.append(hostile("out-of-range number \(text) as id", #"{"jsonrpc":"2.0","id":\#(text),"method":"tasks/get"}"#, .error(-32700)))
        }
        let badPriorities = ["9223372036854775808", "-9223372036854775809", "2.5", "4", "-1", "1e300", "\"1\"", "true", "null1"]
        for text in badPriorities {
            let expect: Answer = text == "null1" ? .error(-32700) : .error(-32602)
            cases.append(
                hostile("priority \(text)", #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"t","priority":\#(text)}}"#, expect))
        }
        cases.append(
            session(
                "priority 3.0 counts as 3", [#"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"id":"p3","title":"t","priority":3.0}}"#],
                [.ok], changes: 1, stored: created("p3", ["title": "t", "priority": 3])))
        for text in ["0", "1001", "-1", "1.5", "1e300", "\"10\"", "9223372036854775807"] {
            cases.append(
                hostile("fetch limit \(text)", #"{"jsonrpc":"2.0","id":1,"method":"tasks/fetch","params":{"limit":\#(text)}}"#, .error(-32602)))
        }
        for text in ["-1", "1e300", "\"0\"", "0.5", "999999999"] {
            cases.append(
                hostile("changes since \(text)", #"{"jsonrpc":"2.0","id":1,"method":"tasks/changes","params":{"since":\#(text)}}"#, .error(-32602)))
        }
        cases.append(hostile("offset -1", #"{"jsonrpc":"2.0","id":1,"method":"tasks/fetch","params":{"offset":-1}}"#, .error(-32602)))
        cases.append(
            hostile("offset beyond everything", #"{"jsonrpc":"2.0","id":1,"method":"tasks/fetch","params":{"offset":9007199254740991}}"#, .ok))
        cases.append(
            hostile(
                "offset past 2^53 − 1", #"{"jsonrpc":"2.0","id":1,"method":"tasks/fetch","params":{"offset":9223372036854775807}}"#, .error(-32602)))
        cases.append(
            hostile("ifVersion 1e300", #"{"jsonrpc":"2.0","id":1,"method":"tasks/delete","params":{"id":"x","ifVersion":1e300}}"#, .error(-32602)))
        cases.append(
            hostile(
                "ifVersion 2^53 − 1 on a missing task",
                #"{"jsonrpc":"2.0","id":1,"method":"tasks/delete","params":{"id":"x","ifVersion":9007199254740991}}"#, .error(1001)))
        cases.append(
            hostile(
                "ifVersion Int64.max on a missing task",
                #"{"jsonrpc":"2.0","id":1,"method":"tasks/delete","params":{"id":"x","ifVersion":9223372036854775807}}"#, .error(-32602)))
        cases.append(
            hostile(
                "processId out of range in a second initialize", #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":1e300}}"#,
                .error(-32600)))
        return cases
    }

    static func ids() -> [HostileCase] {
        var cases: [HostileCase] = []
        for text in ["true", "false", "{}", "[]", "[1]", #"{"a":1}"#, #"["x"]"#] {
            var wrong = hostile("id \(text)", #"{"jsonrpc":"2.0","id":\#(text),"method":"tasks/get","params":{"id":"x"}}"#, .error(-32600))
            wrong.echoedID = .null
            cases.append(wrong)
        }
        let echoed: [(String, JSON)] = [
            (#""""#, ""), ("null", .null), ("1.5", .number("1.5")), ("-1", -1), ("0", 0), ("-0", .number("-0")),
            ("9223372036854775807", .integer(.max)), ("-9223372036854775808", .integer(.min)), ("1e300", .number("1e300")),
            ("1E2", .number("1E2")), ("18446744073709551616", .number("18446744073709551616")), ("1e-400", .number("1e-400")), (#""🙂""#, "🙂"),
            (#""\u0000""#, "\u{0}"), (#""1""#, "1"),
            ("\"" + String(repeating: "i", count: 5000) + "\"", .string(String(repeating: "i", count: 5000))),
            (#""\"; DROP TABLE task; --""#, "\"; DROP TABLE task; --"),
        ]
        for (text, id) in echoed {
            var valid = hostile(
                "id \(text.prefix(40)) is echoed", #"{"jsonrpc":"2.0","id":\#(text),"method":"tasks/get","params":{"id":"missing"}}"#, .error(1001))
            valid.echoedID = id
            cases.append(valid)
        }
        return cases
    }

    static func envelopes() -> [HostileCase] {
        var cases: [HostileCase] = []
        for text in [nil, #""1.0""#, "2.0", "2", #""2.0 ""#, "null", #"["2.0"]"#] {
            let member = text.map { #""jsonrpc":\#($0),"# } ?? ""
            cases.append(hostile("jsonrpc \(text ?? "missing")", #"{\#(member)"id":1,"method":"tasks/get","params":{"id":"x"}}"#, .error(-32600)))
        }
        for text in ["1", "null", "[]", "{}", "true"] {
            cases.append(hostile("method \(text)", #"{"jsonrpc":"2.0","id":1,"method":\#(text)}"#, .error(-32600)))
        }
        for name in ["", "tasks/CREATE", "rpc.discover", "tasks/", "/tasks/get", "$/cancelRequest", "$/unknown", "initialized"] {
            cases.append(hostile("unknown method \(name.debugDescription)", request(name), .error(-32601)))
        }
        for text in ["[]", #""x""#, "1", "true", "[1,2]"] {
            cases.append(hostile("params \(text)", #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":\#(text)}"#, .error(-32602)))
        }
        cases.append(hostile("params null means none", #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":null}"#, .error(-32602)))
        cases.append(hostile("an unknown params member", request("tasks/get", ["id": "x", "extra": 1]), .error(-32602)))
        return cases
    }

    static func batches() -> [HostileCase] {
        [
            hostile("empty batch", "[]", .error(-32600)),
            hostile("batch of numbers", "[1,2,3]", .batch([.error(-32600), .error(-32600), .error(-32600)])),
            hostile("batch of an empty object", "[{}]", .batch([.error(-32600)])),
            hostile("nested batch", "[[]]", .batch([.error(-32600)])),
            hostile(
                "batch of 500 invalid members", "[" + Array(repeating: "1", count: 500).joined(separator: ",") + "]",
                .batch(Array(repeating: .error(-32600), count: 500))),
            hostile(
                "batch of a missing task and an invalid member", "[\(request("tasks/get", ["id": "x"])),7]", .batch([.error(1001), .error(-32600)])),
            hostile("batch of notifications", #"[{"jsonrpc":"2.0","method":"initialized"},{"jsonrpc":"2.0","method":"$/nothing"}]"#),
            hostile("batch of a response object", #"[{"jsonrpc":"2.0","id":9,"result":1}]"#),
        ]
    }

    static func duplicateKeys() -> [HostileCase] {
        [
            #"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}"#,
            #"{"jsonrpc":"2.0","id":1,"id":2,"method":"tasks/get","params":{"id":"x"}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"tasks/get","method":"tasks/delete","params":{"id":"x"}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"a","title":"b"}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"tasks/fetch","params":{"filter":{"done":true,"done":false}}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"a","\u0074itle":"b"}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"},"params":{"id":"y"}}"#,
        ].map { hostile("duplicate member: \($0)", $0, .error(-32700)) }
    }

    static func deepNesting() -> [HostileCase] {
        let deep = 100_000
        let arrays = String(repeating: "[", count: deep) + String(repeating: "]", count: deep)
        let objects = String(repeating: #"{"a":"#, count: deep) + "1" + String(repeating: "}", count: deep)
        // The request object is level 1 and params level 2: 62 arrays inside reach level 64.
        let notes64 = String(repeating: "[", count: 62) + String(repeating: "]", count: 62)
        let notes65 = String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
        return [
            hostile("100,000 nested arrays", arrays, .error(-32700)),
            hostile("100,000 nested objects", objects, .error(-32700)),
            hostile(
                "100,000 nested arrays in params", #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":\#(arrays)}}"#, .error(-32700)),
            hostile("100,000 unclosed arrays", String(repeating: "[", count: deep), .error(-32700)),
            hostile(
                "64 levels are read", #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"t","notes":\#(notes64)}}"#, .error(-32602)),
            hostile(
                "65 levels are not", #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"t","notes":\#(notes65)}}"#, .error(-32700)),
        ]
    }

    /// Strings the size of a large file, in every field that takes one: 10 MB with
    /// TASKLINE_LONG_TESTS=1, else 1 MB (a debug-built server reads 10 MB lines slowly, and a
    /// debug-built test reads the 20 MB answers that echo one back more slowly still).
    static func hugeStrings() -> [HostileCase] {
        let size = longTestsEnabled ? tenMegabytes : 1024 * 1024
        /// `template` with its `@` replaced by `count` times `filler`.
        func big(_ name: String, _ template: String, _ expect: Answer, count: Int = size, filler: String = "x") -> HostileCase {
            let parts = template.components(separatedBy: "@")
            let bytes = Array(parts[0].utf8) + Array(String(repeating: filler, count: count).utf8) + Array(parts[1].utf8)
            return HostileCase(name: name, bytes: bytes + [0x0A], expect: [expect])
        }
        let exactPrefix = #"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}"#
        var echoedID = big("a huge request id", #"{"jsonrpc":"2.0","id":"@","method":"tasks/get","params":{"id":"x"}}"#, .error(1001), count: size)
        echoedID.echoedID = .string(String(repeating: "x", count: size))
        return [
            big("a huge title", #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"@"}}"#, .error(-32602)),
            big("huge notes", #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"t","notes":"@"}}"#, .error(-32602)),
            big("a huge client id", #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"id":"@","title":"t"}}"#, .error(-32602)),
            big("a huge tag", #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"t","tags":["@"]}}"#, .error(-32602)),
            big("a huge text filter", #"{"jsonrpc":"2.0","id":1,"method":"tasks/fetch","params":{"filter":{"text":"@"}}}"#, .error(-32602)),
            big("a huge cursor", #"{"jsonrpc":"2.0","id":1,"method":"tasks/fetch","params":{"cursor":"@"}}"#, .error(-32602)),
            big("a huge due date", #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"t","due":"@"}}"#, .error(-32602)),
            big(
                "a huge run of white space inside a request", #"{"jsonrpc":"2.0","id":1,@"method":"tasks/get","params":{"id":"x"}}"#, .error(1001),
                filler: " "),
            big(
                "a huge string of escapes", #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"@"}}"#, .error(-32602),
                count: size / 6, filler: #"\u0041"#),
            big("getting a huge id", #"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"@"}}"#, .error(1001), count: size),
            big("a huge method name", #"{"jsonrpc":"2.0","id":1,"method":"@"}"#, .error(-32601), count: size),
            big("a huge member name", #"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x","@":1}}"#, .error(-32602), count: size),
            echoedID,
            big(
                "a line one byte over the size limit", exactPrefix + "@", .error(-32600), count: maxMessageBytes - exactPrefix.utf8.count + 1,
                filler: " "),
        ]
            + (longTestsEnabled
                ? [
                    big(
                        "a line of exactly the size limit", exactPrefix + "@", .error(1001), count: maxMessageBytes - exactPrefix.utf8.count,
                        filler: " "),
                    big(
                        "a 17 MB line", #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"title":"@"}}"#, .error(-32600),
                        count: 17 * 1024 * 1024),
                ] : [])
    }

    /// Every string field with SQL and pattern syntax: stored and matched literally, never run.
    static func sqlText() -> [HostileCase] {
        var cases: [HostileCase] = []
        for (index, payload) in sqlPayloads.enumerated() {
            let tag = String(payload.filter { !$0.isWhitespace })
            let id = "sql-\(index)"
            cases.append(
                session(
                    "SQL in a title, notes and a tag: \(payload)",
                    [
                        request("tasks/create", ["id": .string(id), "title": .string(payload), "notes": .string(payload), "tags": [.string(tag)]]),
                        request("tasks/get", ["id": .string(id)], id: 2),
                    ], [.ok, .ok], changes: 1, stored: created(id, ["title": .string(payload), "notes": .string(payload), "tags": [.string(tag)]])))
            cases.append(
                session(
                    "SQL as a client id, got and deleted: \(payload)",
                    [
                        request("tasks/create", ["id": .string(payload), "title": "by id"]),
                        request("tasks/get", ["id": .string(payload)], id: 2),
                        request("tasks/update", ["id": .string(payload), "changes": ["notes": .string(payload)], "ifVersion": 1], id: 3),
                        request("tasks/delete", ["id": .string(payload), "ifVersion": 2], id: 4),
                        request("tasks/get", ["id": .string(payload)], id: 5),
                    ], [.ok, .ok, .ok, .ok, .error(1001)], changes: 3))
            cases.append(
                session(
                    "SQL in an update: \(payload)",
                    [
                        request(
                            "tasks/update", ["id": .string(id), "changes": ["title": .string(payload + "!"), "tags": [.string(tag), "second"]]])
                    ], [.ok], changes: 1,
                    stored: created(id, ["title": .string(payload + "!"), "tags": .array(codePointSorted([tag, "second"]))], version: 2)))
            var filter = HostileCase(
                name: "SQL as a text filter matches literally: \(payload)",
                bytes: line(request("tasks/fetch", ["filter": ["text": .string(payload)], "limit": 1000])), expect: [.ok])
            filter.check = { answer in
                let tasks = answer["result"]?["tasks"]?.arrayValue ?? []
                let needle = payload.lowercased()
                return tasks.contains { $0["id"] == .string(id) }
                    && tasks.allSatisfy { task in
                        [task["title"], task["notes"]].contains { $0?.stringValue?.lowercased().contains(needle) == true }
                    }
            }
            cases.append(filter)
            cases.append(hostile("SQL in a tag filter: \(payload)", request("tasks/fetch", ["filter": ["tags": [.string(tag)]]]), .ok))
            cases.append(
                hostile("SQL in an id filter: \(payload)", request("tasks/fetch", ["filter": ["ids": [.string(payload), .string(id)]]]), .ok))
            cases.append(hostile("SQL as a cursor: \(payload)", request("tasks/fetch", ["cursor": .string(payload)]), .error(-32602)))
            cases.append(hostile("SQL as a due date: \(payload)", request("tasks/create", ["title": "t", "due": .string(payload)]), .error(-32602)))
            cases.append(hostile("SQL as a sort field: \(payload)", request("tasks/fetch", ["sort": [["field": .string(payload)]]]), .error(-32602)))
            cases.append(hostile("SQL as a method: \(payload)", request(payload), .error(-32601)))
        }
        return cases
    }

    static func unicodeTitles() -> [HostileCase] {
        let valid = [
            "😀", "👨‍👩‍👧‍👦", "🇫🇷🇩🇪", "e\u{301}", "\u{202E}txet desrever", "\u{FEFF}bom", "\u{FFFF}\u{FFFE}", "\u{10FFFF}",
            "\u{200B}", "한국어", "العربية", "हिन्दी", "İstanbul", "Straße", "ﬁ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "𠀀", "Z̷̢̛a̸l̴g̵o̶",
            "Ω≈ç√∫", "\u{E000}", "☺\u{FE0F}", "ΣΑΣ σας", String(repeating: "😀", count: 1024), "a\u{2028}b",
        ]
        var cases: [HostileCase] = []
        for (index, title) in valid.enumerated() {
            let id = "unicode-\(index)"
            cases.append(
                session(
                    "a title of \(title.unicodeScalars.prefix(8).map { String($0.value, radix: 16) })",
                    [
                        request("tasks/create", ["id": .string(id), "title": .string(title)])
                    ], [.ok], changes: 1, stored: created(id, ["title": .string(title)])))
            // The text filter finds it by its own title, whatever the characters.
            var found = HostileCase(
                name: "a text filter for the title \(title.unicodeScalars.prefix(8).map { String($0.value, radix: 16) })",
                bytes: line(request("tasks/fetch", ["filter": ["text": .string(String(title.unicodeScalars.prefix(1024)))], "limit": 1000])),
                expect: [.ok])
            found.check = { answer in answer["result"]?["tasks"]?.arrayValue?.contains { $0["id"] == .string(id) } == true }
            cases.append(found)
        }
        let invalid = [
            "\u{00A0}", "\u{3000}", "\u{2028}", " \t", "a\u{85}b", "a\u{7F}", "a\nb", String(repeating: "😀", count: 1025),
            String(repeating: "e\u{301}", count: 513),
        ]
        for title in invalid {
            cases.append(
                hostile(
                    "an invalid title of \(title.unicodeScalars.prefix(8).map { String($0.value, radix: 16) })",
                    request("tasks/create", ["title": .string(title)]), .error(-32602)))
        }
        // Quotes in a text filter, one of them carrying a combining mark: literal text.
        cases.append(
            session(
                "quotes and a combining mark in the text filter",
                [
                    request("tasks/create", ["id": "quoted", "title": "say \"q\"\u{301} \"\"x"]),
                    request("tasks/fetch", ["filter": ["text": "\"q\"\u{301} \"\"x"]], id: 2),
                ], [.ok, .ok], changes: 1, stored: created("quoted", ["title": "say \"q\"\u{301} \"\"x"])))
        cases[cases.count - 1].check = { answer in
            answer["id"] != 2 || answer["result"]?["tasks"]?.arrayValue?.contains { $0["id"] == "quoted" } == true
        }
        cases.append(
            hostile(
                "an escaped surrogate pair", #"{"jsonrpc":"2.0","id":1,"method":"tasks/create","params":{"id":"pair","title":"\ud83d\ude00"}}"#, .ok,
                changes: 1))
        cases[cases.count - 1].stored = created("pair", ["title": "😀"])
        // Canonically equivalent is not the same: the decomposed form the client wrote is kept.
        cases.append(
            session(
                "a title changed to its decomposed form",
                [
                    request("tasks/create", ["id": "nfc", "title": "caf\u{E9}"]),
                    request("tasks/update", ["id": "nfc", "changes": ["title": "cafe\u{301}"]], id: 2),
                ], [.ok, .ok], changes: 2, stored: created("nfc", ["title": "cafe\u{301}"], version: 2)))
        return cases
    }

    static func lifecycle() -> [HostileCase] {
        var cases = [
            hostile("a second initialize", request("initialize"), .error(-32600)),
            hostile("a response object", #"{"jsonrpc":"2.0","id":1,"result":1}"#),
            hostile("an error object", #"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}"#),
            hostile("a response with both", #"{"jsonrpc":"2.0","id":1,"result":1,"error":{}}"#),
            hostile("shutdown as a notification", #"{"jsonrpc":"2.0","method":"shutdown"}"#),
            hostile("initialized with junk", #"{"jsonrpc":"2.0","method":"initialized","params":[1,2,3]}"#),
            hostile("blank lines", "\n\n  \n\t"),
            hostile("a CRLF line", request("tasks/get", ["id": "x"]) + "\r", .error(1001)),
            hostile("a tasks method as a notification with bad params", #"{"jsonrpc":"2.0","method":"tasks/create","params":{"title":5}}"#),
        ]
        for id in ["1", #""x""#, "null", "true", "[]", "{}", "1e300"] {
            cases.append(hostile("cancel \(id)", #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":\#(id)}}"#))
        }
        cases.append(hostile("cancel without params", #"{"jsonrpc":"2.0","method":"$/cancelRequest"}"#))
        cases.append(hostile("cancel as a request", #"{"jsonrpc":"2.0","id":1,"method":"$/cancelRequest","params":{"id":1}}"#, .error(-32601)))
        return cases
    }

    static func applyAbuse() -> [HostileCase] {
        let tooMany = "[" + Array(repeating: #"{"delete":{"id":"x"}}"#, count: 1001).joined(separator: ",") + "]"
        return [
            hostile(
                "apply with 1,001 operations", #"{"jsonrpc":"2.0","id":1,"method":"tasks/apply","params":{"operations":\#(tooMany)}}"#, .error(-32602)
            ),
            hostile("apply with no operations", request("tasks/apply", ["operations": []]), .error(-32602)),
            hostile("apply with an empty operation", request("tasks/apply", ["operations": [[:]]]), .error(-32602)),
            hostile(
                "apply with two kinds in one operation", request("tasks/apply", ["operations": [["create": ["title": "a"], "delete": ["id": "x"]]]]),
                .error(-32602)),
            hostile("apply with an array operation", request("tasks/apply", ["operations": [["create": []]]]), .error(-32602)),
            hostile(
                "apply with atomic a string", request("tasks/apply", ["operations": [["create": ["title": "a"]]], "atomic": "yes"]), .error(-32602)),
            hostile(
                "atomic apply with one bad operation",
                request("tasks/apply", ["operations": [["create": ["title": "a"]], ["create": ["title": 5]]]]), .error(-32602)),
            hostile(
                "atomic apply with a missing task", request("tasks/apply", ["operations": [["create": ["title": "a"]], ["delete": ["id": "nope"]]]]),
                .error(1001)),
            // Not atomic, a malformed operation fails alone, as one that breaks a task rule does.
            session(
                "non-atomic apply with a malformed operation",
                [
                    request(
                        "tasks/apply",
                        ["operations": [["create": ["id": "apply-malformed", "title": "a"]], ["create": ["title": 5]]], "atomic": false])
                ], [.ok], changes: 1, stored: created("apply-malformed", ["title": "a"])),
            session(
                "non-atomic apply with one operation breaking a rule",
                [
                    request(
                        "tasks/apply", ["operations": [["create": ["id": "apply-ok", "title": "a"]], ["create": ["title": " "]]], "atomic": false])
                ], [.ok], changes: 1, stored: created("apply-ok", ["title": "a"])),
        ]
    }

    static func fetchAbuse() -> [HostileCase] {
        let sixKeys = ["createdAt", "updatedAt", "due", "priority", "title", "createdAt"].map { JSON.object(["field": .string($0)]) }
        let ids = JSON.array((0...1000).map { .string("id\($0)") })
        // A well-formed cursor for the default sort whose text value is SQL: bound, so harmless.
        let crafted = Array("createdAt.asc\u{1F}i0\u{1F}s' OR 1=1 --".utf8).map { String(format: "%02x", $0) }.joined()
        return [
            hostile("six sort keys", request("tasks/fetch", ["sort": .array(sixKeys)]), .error(-32602)),
            hostile("a sort key twice", request("tasks/fetch", ["sort": [["field": "due"], ["field": "due"]]]), .error(-32602)),
            hostile("sort order up", request("tasks/fetch", ["sort": [["field": "due", "order": "up"]]]), .error(-32602)),
            hostile("sort as an object", request("tasks/fetch", ["sort": ["field": "due"]]), .error(-32602)),
            hostile("cursor and offset", request("tasks/fetch", ["cursor": "00", "offset": 1]), .error(-32602)),
            hostile("a cursor of odd hex", request("tasks/fetch", ["cursor": "abc"]), .error(-32602)),
            hostile("an empty cursor", request("tasks/fetch", ["cursor": ""]), .error(-32602)),
            hostile("a cursor for another sort", request("tasks/fetch", ["cursor": .string(crafted), "sort": [["field": "due"]]]), .error(-32602)),
            hostile("a forged cursor holding SQL", request("tasks/fetch", ["cursor": .string(crafted)]), .ok),
            hostile("1,001 ids", request("tasks/fetch", ["filter": ["ids": ids]]), .error(-32602)),
            hostile("a tag filter of 64 tags", request("tasks/fetch", ["filter": ["tags": .array((0..<64).map { .string("t\($0)") })]]), .ok),
            hostile(
                "a tag filter of 200 tags", request("tasks/fetch", ["filter": ["tags": .array((0..<200).map { .string("t\($0)") })]]), .error(-32602)),
            hostile("a tag filter with a space", request("tasks/fetch", ["filter": ["tags": ["a b"]]]), .error(-32602)),
            hostile("dueBefore tomorrow", request("tasks/fetch", ["filter": ["dueBefore": "tomorrow"]]), .error(-32602)),
            hostile("dueAfter February 30th", request("tasks/fetch", ["filter": ["dueAfter": "2026-02-30"]]), .error(-32602)),
            hostile("an unknown filter", request("tasks/fetch", ["filter": ["owner": "me"]]), .error(-32602)),
            hostile("done as a string", request("tasks/fetch", ["filter": ["done": "yes"]]), .error(-32602)),
            hostile("includeTotal as a number", request("tasks/fetch", ["includeTotal": 1]), .error(-32602)),
        ]
    }

    static func changesAndUpdateAbuse() -> [HostileCase] {
        [
            hostile("changes with limit 0", request("tasks/changes", ["since": 0, "limit": 0]), .error(-32602)),
            hostile("changes without since", request("tasks/changes", [:]), .error(-32602)),
            hostile("update with changes null", request("tasks/update", ["id": "sql-0", "changes": .null]), .error(-32602)),
            hostile("update with a null title", request("tasks/update", ["id": "sql-0", "changes": ["title": .null]]), .error(-32602)),
            hostile("update with an unknown change", request("tasks/update", ["id": "sql-0", "changes": ["owner": "me"]]), .error(-32602)),
            hostile("update with ifVersion a string", request("tasks/update", ["id": "sql-0", "changes": [:], "ifVersion": "1"]), .error(-32602)),
            hostile(
                "update with a stale ifVersion", request("tasks/update", ["id": "sql-0", "changes": ["title": "late"], "ifVersion": 1]), .error(1002)),
            hostile("update of a missing task", request("tasks/update", ["id": "nope", "changes": ["title": "x"]]), .error(1001)),
            hostile("update with a due of year 0", request("tasks/update", ["id": "nope", "changes": ["due": "0000-01-01"]]), .error(1001)),
            session(
                "create with a leap second", [request("tasks/create", ["id": "leap", "title": "t", "due": "2026-12-31T23:59:60Z"])],
                [.ok], changes: 1, stored: created("leap", ["due": "2026-12-31T23:59:60Z"])),
            session(
                "create with a due at the end of time",
                [request("tasks/create", ["id": "end", "title": "t", "due": "9999-12-31T23:59:59.999-23:59"])],
                [.ok], changes: 1, stored: created("end", ["due": "9999-12-31T23:59:59.999-23:59"])),
            hostile("create with a duplicate id", request("tasks/create", ["id": "sql-0", "title": "again"]), .error(1003)),
            hostile("delete with no id", request("tasks/delete", [:]), .error(-32602)),
        ]
    }

    /// Projects, dependencies, wait times and meta. sql-0 is a task of the corpus.
    static func projectDependencyAbuse() -> [HostileCase] {
        // 32 levels of meta, the most a task may hold, and 33.
        let deepMeta = (1..<32).reduce(JSON.object([:])) { inner, _ in .object(["x": inner]) }
        // 8 segments of 31 characters past U+FFFF, and 7 dots: 255 characters, 999 UTF-8 bytes.
        let longProject = JSON.string(Array(repeating: String(repeating: "\u{10FFFF}", count: 31), count: 8).joined(separator: "."))
        return [
            hostile("a project of a number", request("tasks/create", ["title": "t", "project": 7]), .error(-32602)),
            hostile("a project with an empty segment", request("tasks/create", ["title": "t", "project": "Home..Garage"]), .error(-32602)),
            hostile("a project starting with a dot", request("tasks/create", ["title": "t", "project": ".Home"]), .error(-32602)),
            hostile("a project ending with a dot", request("tasks/create", ["title": "t", "project": "Home."]), .error(-32602)),
            hostile("a project of only a dot", request("tasks/create", ["title": "t", "project": "."]), .error(-32602)),
            hostile("a project with U+FEFF", request("tasks/create", ["title": "t", "project": "Home\u{FEFF}"]), .error(-32602)),
            hostile("a project with a NUL", request("tasks/create", ["title": "t", "project": "Home\u{0}x"]), .error(-32602)),
            hostile(
                "a project of 10 MB", request("tasks/create", ["title": "t", "project": .string(String(repeating: "p", count: tenMegabytes))]),
                .error(-32602)),
            hostile(
                "a project of 1,000 segments",
                request("tasks/create", ["title": "t", "project": .string(Array(repeating: "a", count: 1000).joined(separator: "."))]), .error(-32602)
            ),
            hostile("a project filter of SQL", request("tasks/fetch", ["filter": ["project": "x'OR'1'='1"]]), .ok),
            hostile("a project filter of LIKE wildcards", request("tasks/fetch", ["filter": ["project": "%"]]), .ok),
            hostile("a project filter with an empty segment", request("tasks/fetch", ["filter": ["project": "a..b"]]), .error(-32602)),
            hostile("dependsOn a string", request("tasks/create", ["title": "t", "dependsOn": "sql-0"]), .error(-32602)),
            hostile("dependsOn with a number", request("tasks/create", ["title": "t", "dependsOn": [1]]), .error(-32602)),
            hostile("dependsOn an unknown id", request("tasks/create", ["title": "t", "dependsOn": ["sql-0", "sql-0", "nope"]]), .error(-32602)),
            hostile("dependsOn of SQL", request("tasks/create", ["title": "t", "dependsOn": ["' OR 1=1 --"]]), .error(-32602)),
            hostile(
                "dependsOn 65 ids", request("tasks/create", ["title": "t", "dependsOn": .array(Array(repeating: "sql-0", count: 65))]), .error(-32602)
            ),
            hostile(
                "dependsOn 100,000 ids", request("tasks/create", ["title": "t", "dependsOn": .array(Array(repeating: "x", count: 100_000))]),
                .error(-32602)),
            hostile("dependsOn itself", request("tasks/create", ["id": "self", "title": "t", "dependsOn": ["self"]]), .error(1006)),
            hostile("an update depending on itself", request("tasks/update", ["id": "sql-0", "changes": ["dependsOn": ["sql-0"]]]), .error(1006)),
            hostile("changes.dependsOn null", request("tasks/update", ["id": "sql-0", "changes": ["dependsOn": .null]]), .error(-32602)),
            hostile("blocked a string", request("tasks/fetch", ["filter": ["blocked": "yes"]]), .error(-32602)),
            hostile("a wait that is no time", request("tasks/create", ["title": "t", "wait": "later"]), .error(-32602)),
            hostile("a wait of February 30th", request("tasks/create", ["title": "t", "wait": "2026-02-30"]), .error(-32602)),
            hostile("a wait of a number", request("tasks/update", ["id": "sql-0", "changes": ["wait": 5]]), .error(-32602)),
            hostile("waiting a number", request("tasks/fetch", ["filter": ["waiting": 1]]), .error(-32602)),
            hostile("meta an array", request("tasks/create", ["title": "t", "meta": [1, 2]]), .error(-32602)),
            hostile("meta a string", request("tasks/create", ["title": "t", "meta": "{}"]), .error(-32602)),
            hostile(
                "meta of 10 MB", request("tasks/create", ["title": "t", "meta": ["x": .string(String(repeating: "m", count: tenMegabytes))]]),
                .error(-32602)),
            hostile("meta as a filter", request("tasks/fetch", ["filter": ["meta": [:]]]), .error(-32602)),
            hostile("meta 33 levels deep", request("tasks/create", ["title": "t", "meta": ["y": deepMeta]]), .error(-32602)),
            session(
                "meta 32 levels deep", [request("tasks/create", ["id": "deep-meta", "title": "t", "meta": deepMeta])],
                [.ok], changes: 1, stored: created("deep-meta", ["meta": deepMeta])),
            session(
                "a project at every limit", [request("tasks/create", ["id": "long-project", "title": "t", "project": longProject])],
                [.ok], changes: 1, stored: created("long-project", ["project": longProject])),
        ]
    }

    /// Recurrence rules: each refused with -32602, and rules that give no next date, whose
    /// completion creates nothing (the longest search included: a daily rule no day meets).
    static func recurrenceAbuse() -> [HostileCase] {
        func rule(_ name: String, _ value: JSON) -> HostileCase {
            hostile(name, request("tasks/create", ["title": "t", "due": "2026-12-01", "recurrence": ["rule": value]]), .error(-32602))
        }
        func noNext(_ id: String, due: String, rule: String) -> HostileCase {
            session(
                "\(rule) from \(due) makes no next occurrence",
                [
                    request("tasks/create", ["id": .string(id), "title": "t", "due": .string(due), "recurrence": ["rule": .string(rule)]]),
                    request("tasks/update", ["id": .string(id), "changes": ["done": true]], id: 2),
                ], [.ok, .ok], changes: 2,
                stored: created(id, ["done": true, "recurrence": ["rule": .string(rule)], "seriesId": .string(id)], version: 2))
        }
        return [
            hostile("recurrence a string", request("tasks/create", ["title": "t", "due": "2026-12-01", "recurrence": "FREQ=DAILY"]), .error(-32602)),
            hostile(
                "recurrence an array", request("tasks/create", ["title": "t", "due": "2026-12-01", "recurrence": [["rule": "FREQ=DAILY"]]]),
                .error(-32602)),
            hostile(
                "recurrence with an unknown member",
                request("tasks/create", ["title": "t", "due": "2026-12-01", "recurrence": ["rule": "FREQ=DAILY", "dtstart": "x"]]), .error(-32602)),
            hostile("recurrence without a due", request("tasks/create", ["title": "t", "recurrence": ["rule": "FREQ=DAILY"]]), .error(-32602)),
            hostile("a seriesId from the client", request("tasks/create", ["title": "t", "seriesId": "sql-0"]), .error(-32602)),
            rule("a rule of a number", 5),
            rule("a rule of null", .null),
            rule("a rule of 10 MB", .string("FREQ=DAILY;" + String(repeating: "X", count: tenMegabytes))),
            rule("a rule of 10,000 parts", .string(Array(repeating: "FREQ=DAILY", count: 10_000).joined(separator: ";"))),
            rule("FREQ=HOURLY", "FREQ=HOURLY"),
            rule("INTERVAL=0", "FREQ=DAILY;INTERVAL=0"),
            rule("INTERVAL past Int64", "FREQ=DAILY;INTERVAL=99999999999999999999999"),
            rule("COUNT=-1", "FREQ=DAILY;COUNT=-1"),
            rule("COUNT and UNTIL", "FREQ=DAILY;COUNT=2;UNTIL=20270101"),
            rule("BYDAY with an empty element", "FREQ=WEEKLY;BYDAY=MO,,TU"),
            rule("a BYDAY ordinal past Int64", "FREQ=MONTHLY;BYDAY=99999999999999999999MO"),
            rule("BYMONTHDAY 2^31", "FREQ=MONTHLY;BYMONTHDAY=2147483648"),
            rule("UNTIL of 9s", "FREQ=DAILY;UNTIL=99999999T999999Z"),
            rule("a rule with a NUL", "FREQ=DAILY\u{0};COUNT=2"),
            rule("a rule of SQL", "FREQ=DAILY';DROP TABLE task;--"),
            rule("a rule of = signs", "FREQ==DAILY"),
            noNext("rr-never", due: "2026-02-28", rule: "FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=30"),
            noNext("rr-9999", due: "9999-12-31T23:59:59Z", rule: "FREQ=DAILY"),
            noNext("rr-longest", due: "2026-12-01", rule: "FREQ=DAILY;INTERVAL=7;BYDAY=MO"),
        ]
    }

    /// Reminder times, and the option that asks for reminders. sql-0 is a task of the corpus.
    static func reminderAbuse() -> [HostileCase] {
        [
            hostile("a remindAt that is no time", request("tasks/create", ["title": "t", "remindAt": "in an hour"]), .error(-32602)),
            hostile("a remindAt of February 30th", request("tasks/create", ["title": "t", "remindAt": "2026-02-30T09:00:00Z"]), .error(-32602)),
            hostile("a remindAt with a space for T", request("tasks/create", ["title": "t", "remindAt": "2026-12-01 09:00:00Z"]), .error(-32602)),
            hostile("a remindAt of +24:00", request("tasks/create", ["title": "t", "remindAt": "2026-12-01T09:00:00+24:00"]), .error(-32602)),
            hostile("a remindAt of a number", request("tasks/create", ["title": "t", "remindAt": 1_764_579_600_000]), .error(-32602)),
            hostile(
                "a remindAt of an object", request("tasks/update", ["id": "sql-0", "changes": ["remindAt": ["at": "2026-12-01"]]]), .error(-32602)),
            hostile(
                "a remindAt of SQL", request("tasks/update", ["id": "sql-0", "changes": ["remindAt": "'; DROP TABLE task; --"]]), .error(-32602)),
            hostile(
                "a remindAt of 10 MB", request("tasks/create", ["title": "t", "remindAt": .string(String(repeating: "9", count: tenMegabytes))]),
                .error(-32602)),
            hostile("remindAt as a filter", request("tasks/fetch", ["filter": ["remindAt": "2026-12-01"]]), .error(-32602)),
            hostile(
                "initialize after initialize, asking for reminders",
                request("initialize", ["initializationOptions": ["reminders": true]]), .error(-32600)),
            session(
                "a remindAt in the year 9999, the furthest a timer is set for",
                [request("tasks/create", ["id": "far-reminder", "title": "t", "remindAt": "9999-12-31T23:59:59.999-23:59"])],
                [.ok], changes: 1, stored: created("far-reminder", ["remindAt": "9999-12-31T23:59:59.999-23:59"])),
        ]
    }

    // MARK: - Undo and redo

    /// Bad params of tasks/undo and tasks/redo, and one undo and redo of the session's own
    /// create: an undo in scope connection would revert the corpus's other writes.
    static func undoAbuse() -> [HostileCase] {
        var cases: [HostileCase] = []
        for method in ["tasks/undo", "tasks/redo"] {
            for (name, scope) in [
                ("SQL", JSON.string("connection' OR 1=1 --")), ("10 MB", .string(String(repeating: "s", count: tenMegabytes))),
                ("a number", 1), ("an array", ["database"]), ("an object", ["scope": "database"]), ("empty", ""),
            ] {
                cases.append(hostile("\(method) scope of \(name)", request(method, ["scope": scope]), .error(-32602)))
            }
            cases.append(hostile("\(method) force of a string", request(method, ["force": "true"]), .error(-32602)))
            cases.append(hostile("\(method) with params of an array", request(method, ["connection"]), .error(-32602)))
            cases.append(hostile("\(method) with an unknown member", request(method, ["scope": "database", "group": 1]), .error(-32602)))
        }
        let title: JSON = "undo me: ' OR 1=1 --"
        cases.append(
            session(
                "undo and redo of the session's own create",
                [
                    request("tasks/create", ["id": "undo-me", "title": title, "tags": ["%", "_"]]),
                    request("tasks/undo", ["scope": "connection"]), request("tasks/redo", ["force": true]),
                ], [.ok, .ok, .ok], changes: 3, stored: created("undo-me", ["title": title, "tags": ["%", "_"]], version: 2)))
        return cases
    }

    // MARK: - LSP framing

    static func lspCases() -> [HostileCase] {
        let ping = Array(request("tasks/get", ["id": "x"]).utf8)
        func framed(_ name: String, _ header: String, body: [UInt8] = ping, _ expect: Answer...) -> HostileCase {
            HostileCase(name: name, bytes: Array(header.utf8) + body, expect: expect)
        }
        let junkHeaders = (0..<400).map { "X-Junk-\($0): \(String(repeating: "j", count: 20))\r\n" }.joined()
        var cases = [
            framed("Content-Length abc", "Content-Length: abc\r\n\r\n", body: [], .error(-32700)),
            framed("Content-Length -5", "Content-Length: -5\r\n\r\n", body: [], .error(-32700)),
            framed("Content-Length +5", "Content-Length: +5\r\n\r\n", body: [], .error(-32700)),
            framed("Content-Length 0x10", "Content-Length: 0x10\r\n\r\n", body: [], .error(-32700)),
            framed("Content-Length 1e3", "Content-Length: 1e3\r\n\r\n", body: [], .error(-32700)),
            framed("an empty Content-Length", "Content-Length: \r\n\r\n", body: [], .error(-32700)),
            framed("Content-Length 5 5", "Content-Length: 5 5\r\n\r\n", body: [], .error(-32700)),
            framed("a header without a colon", "Content-Length 5\r\n\r\n", body: [], .error(-32700)),
            framed("a header with an empty name", ": 5\r\n\r\n", body: [], .error(-32700)),
            framed("a header name with a bracket", "Content(Length: 5\r\n\r\n", body: [], .error(-32700)),
            framed("conflicting Content-Lengths", "Content-Length: \(ping.count)\r\nContent-Length: 3\r\n\r\n", body: [], .error(-32700)),
            framed("no Content-Length", "Content-Type: application/json\r\n\r\n", body: [], .error(-32700)),
            framed("a header block over 8 KiB", junkHeaders + "Content-Length: 2\r\n\r\n", body: [], .error(-32700)),
            framed("a NUL in a header", "Content-Length: 2\0\r\n\r\n", body: [], .error(-32700)),
            framed("garbage before a header", "hello\r\n\r\n", body: [], .error(-32700)),
            framed("Content-Length 0", "Content-Length: 0\r\n\r\n", body: [], .error(-32700)),
            framed("the same Content-Length twice", "Content-Length: \(ping.count)\r\nContent-Length: \(ping.count)\r\n\r\n", .error(1001)),
            framed("lower-case header", "content-length: \(ping.count)\r\n\r\n", .error(1001)),
            framed("upper-case header", "CONTENT-LENGTH: \(ping.count)\r\n\r\n", .error(1001)),
            framed("bare newlines", "Content-Length: \(ping.count)\n\n", .error(1001)),
            framed("space around the value", "Content-Length: \t \(ping.count) \t\r\n\r\n", .error(1001)),
            framed("an unknown header with invalid UTF-8", "X-Bytes: \u{FFFD}\r\nContent-Length: \(ping.count)\r\n\r\n", .error(1001)),
            framed(
                "a body one byte over the limit", "Content-Length: \(maxMessageBytes + 1)\r\n\r\n",
                body: Array(repeating: 0x20, count: maxMessageBytes + 1), .error(-32600)),
            framed(
                "a body at the limit", "Content-Length: \(maxMessageBytes)\r\n\r\n",
                body: ping + Array(repeating: 0x20, count: maxMessageBytes - ping.count), .error(1001)),
        ]
        // The JSON-level attacks, framed: the framing passes them on untouched.
        let jsonLevel: [HostileCase] =
            Array(notJSON().prefix(20)) + Array(invalidUTF8().prefix(10)) + deepNesting() + duplicateKeys() + batches() + ids()
        for hostile in jsonLevel {
            var framedCase = hostile
            framedCase.name = "LSP: " + hostile.name
            framedCase.bytes = lsp(Array(hostile.bytes.dropLast()))
            cases.append(framedCase)
        }
        cases.append(
            HostileCase(
                name: "LSP: an invalid UTF-8 header byte", bytes: Array("X-A: ".utf8) + [0xFF, 0x0D, 0x0A] + lsp(ping), expect: [.error(1001)]))
        return cases
    }

    // MARK: - Input that ends the stream

    struct Ending: Sendable, CustomStringConvertible {
        var name: String
        var lspFraming: Bool
        var bytes: [UInt8]
        var codes: [Int]
        var description: String { name }
    }

    static let endingCases: [Ending] = [
        Ending(name: "end inside an NDJSON message", lspFraming: false, bytes: Array(#"{"jsonrpc":"2.0","id":1,"#.utf8), codes: [-32700]),
        Ending(
            name: "a last NDJSON line without its newline", lspFraming: false,
            bytes: Array(#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}"#.utf8), codes: [1001]),
        Ending(
            name: "end inside an oversized NDJSON line", lspFraming: false,
            bytes: Array(repeating: UInt8(ascii: "["), count: maxMessageBytes + 10), codes: [-32600]),
        Ending(name: "end inside a header block", lspFraming: true, bytes: Array("Content-Length: 10\r\n".utf8), codes: [-32700]),
        Ending(name: "end inside an LSP body", lspFraming: true, bytes: Array("Content-Length: 100\r\n\r\n{\"jsonrpc\":".utf8), codes: [-32700]),
        Ending(
            name: "end while skipping a 20 GB body", lspFraming: true, bytes: Array("Content-Length: 20000000000\r\n\r\n{}".utf8), codes: [-32600]),
        // Digits only: larger than any limit, so the rest of the input is its body, not a second message.
        Ending(
            name: "a 20-digit Content-Length", lspFraming: true,
            bytes: Array("Content-Length: 99999999999999999999\r\n\r\n".utf8) + lsp(Array("{}".utf8)), codes: [-32600]),
    ]
}

// MARK: - Hostile files

/// A Taskline file another program wrote to (the sqlite3 shell, a script): `sql` run on a
/// real file holding tasks `a` and `b`, then `requests` pipelined to a server on it. Each
/// request gets its answer, in order, and the server stays up to its clean exit.
struct HostileFile: Sendable, CustomStringConvertible {
    var name: String
    var sql: String
    var requests: [String]
    var expect: [HostileCase.Answer]
    /// A line `taskline check` must print for the file (which it then calls unsound).
    var finding: String
    var description: String { name }
}

extension HostileInput {
    /// The current time in ms since the epoch, in SQL.
    static let nowSQL = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"

    static let storedValues: [HostileFile] = [
        HostileFile(
            name: "a version of Int64.max", sql: "UPDATE task SET version = 9223372036854775807 WHERE id = 'a'",
            requests: [
                request("tasks/get", ["id": "a"], id: 1), request("tasks/update", ["id": "a", "changes": ["title": "A2"]], id: 2),
                request("tasks/update", ["id": "b", "changes": ["title": "B2"]], id: 3), request("tasks/create", ["title": "c"], id: 4),
                request(
                    "tasks/apply",
                    [
                        "operations": [["update": ["id": "a", "changes": ["done": true]]], ["update": ["id": "b", "changes": ["done": true]]]],
                        "atomic": false,
                    ], id: 5),
                request("tasks/fetch", ["includeTotal": true], id: 6),
            ],
            expect: [.ok, .error(1004), .ok, .ok, .ok, .ok],
            finding: "task a: version must be at most 9007199254740991 (2^53 − 1)"),
        HostileFile(
            name: "a change seq of Int64.max",
            sql: "INSERT INTO change (seq, kind, task_id, version, at) VALUES (9223372036854775807, 'deleted', 'gone', 1, \(nowSQL))",
            requests: [
                request("tasks/create", ["title": "c"], id: 1), request("tasks/update", ["id": "b", "changes": ["title": "B2"]], id: 2),
                request("tasks/delete", ["id": "b"], id: 3), request("tasks/get", ["id": "b"], id: 4),
                request("tasks/changes", ["since": 0], id: 5),
            ],
            expect: [.error(1004), .error(1004), .error(1004), .ok, .ok],
            finding: "the change log's seqs run from 1 to 9223372036854775807, outside 1 to 9007199254740991"),
        HostileFile(
            name: "a change seq of Int64.min, made just now",
            sql: "INSERT INTO change (seq, kind, task_id, version, at) VALUES (-9223372036854775808, 'deleted', 'gone', 1, \(nowSQL))",
            requests: [request("tasks/create", ["title": "c"], id: 1), request("tasks/changes", ["since": 0], id: 2)],
            expect: [.ok, .ok],
            finding: "the change log's seqs run from -9223372036854775808 to"),
        HostileFile(
            name: "a pruned-through seq of Int64.max",
            sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('history_pruned_through', 9223372036854775807)",
            requests: [request("tasks/changes", ["since": 0], id: 1), request("tasks/create", ["title": "c"], id: 2)],
            expect: [.error(1004), .ok],
            finding: "meta's history_pruned_through is 9223372036854775807"),
        HostileFile(
            name: "a creation time of Int64.min", sql: "UPDATE task SET created_at = -9223372036854775808 WHERE id = 'a'",
            requests: [
                request("tasks/get", ["id": "a"], id: 1), request("tasks/fetch", [:], id: 2),
                request("tasks/update", ["id": "a", "changes": ["title": "A2"]], id: 3),
            ],
            expect: [.ok, .ok, .ok],
            finding: "task a: createdAt must be a time in the years 0000 to 9999"),
        HostileFile(
            name: "a due date that is no date", sql: "UPDATE task SET due = 'someday' WHERE id = 'a'",
            requests: [
                request("tasks/get", ["id": "a"], id: 1), request("tasks/update", ["id": "a", "changes": ["title": "A2"]], id: 2),
                request("tasks/update", ["id": "b", "changes": ["due": "2026-01-01"]], id: 3),
            ],
            expect: [.ok, .error(1004), .ok],
            finding: "task a: due must be an RFC 3339 date-time with an offset, or a date (YYYY-MM-DD)"),
        HostileFile(
            name: "a wait that is no time", sql: "UPDATE task SET wait = 'someday', wait_at = NULL WHERE id = 'a'",
            requests: [
                request("tasks/get", ["id": "a"], id: 1), request("tasks/update", ["id": "a", "changes": ["title": "A2"]], id: 2),
                request("tasks/fetch", ["filter": ["waiting": false]], id: 3),
            ],
            expect: [.ok, .error(1004), .ok],
            finding: "task a: wait must be an RFC 3339 date-time with an offset, or a date (YYYY-MM-DD)"),
        HostileFile(
            name: "a meta that is not JSON, and one on several lines",
            sql: "UPDATE task SET meta = '{\"a\": [1,' WHERE id = 'a'; UPDATE task SET meta = '{\n  \"b\" : 2\n}' WHERE id = 'b'",
            requests: [
                request("tasks/get", ["id": "a"], id: 1), request("tasks/get", ["id": "b"], id: 2),
                request("tasks/fetch", [:], id: 3),
            ],
            expect: [.ok, .ok, .ok],
            finding: "task a: meta is not a JSON object"),
        HostileFile(
            name: "a dependency cycle another program wrote",
            sql:
                "INSERT INTO task_dependency (task_pk, depends_on_pk) SELECT a.pk, b.pk FROM task a, task b WHERE (a.id, b.id) IN (VALUES ('a', 'b'), ('b', 'a'))",
            requests: [
                request("tasks/get", ["id": "a"], id: 1), request("tasks/fetch", ["filter": ["blocked": true]], id: 2),
                request("tasks/update", ["id": "b", "changes": ["title": "B2"]], id: 3), request("tasks/get", ["id": "b"], id: 4),
            ],
            expect: [.ok, .ok, .ok, .ok],
            finding: "task a: its dependencies lead back to it (a dependency cycle)"),
        HostileFile(
            name: "a priority of Int64.max, past the CHECK constraint",
            sql: "PRAGMA ignore_check_constraints = ON; UPDATE task SET priority = 9223372036854775807 WHERE id = 'a'",
            requests: [
                request("tasks/get", ["id": "a"], id: 1), request("tasks/update", ["id": "a", "changes": ["title": "A2"]], id: 2),
                request("tasks/fetch", ["sort": [["field": "priority"]]], id: 3),
            ],
            // The update writes the title and version only: the priority stays as stored.
            expect: [.ok, .ok, .ok],
            finding: "task a: priority must be 0 (none), 1 (low), 2 (medium) or 3 (high)"),
        HostileFile(
            name: "a reminder that is no time", sql: "UPDATE task SET remind = 'someday', remind_at = 0 WHERE id = 'a'",
            requests: [
                request("tasks/get", ["id": "a"], id: 1), request("tasks/update", ["id": "a", "changes": ["title": "A2"]], id: 2),
                request("tasks/update", ["id": "b", "changes": ["remindAt": "2026-01-01"]], id: 3),
            ],
            expect: [.ok, .error(1004), .ok],
            finding: "task a: remindAt must be an RFC 3339 date-time with an offset, or a date (YYYY-MM-DD)"),
        HostileFile(
            name: "a reminder instant of Int64.min beside a readable time",
            sql: "UPDATE task SET remind = '2026-12-01', remind_at = -9223372036854775808 WHERE id = 'a'",
            requests: [request("tasks/get", ["id": "a"], id: 1), request("tasks/fetch", [:], id: 2)],
            expect: [.ok, .ok],
            finding: "task a: remind_at does not match the reminder time"),
    ]
}
