import JSON
import TaskModel
import TaskStore
import Testing

@testable import TasklineServer

@Suite struct TaskJSONTests {
    @Test func writesEveryFieldAsValidJSON() throws {
        let task = TaskItem(
            id: "id \"quoted\"", title: "Tab\there \\ é 😀", notes: "line 1\nline 2\u{1}", done: true, priority: 3,
            tags: ["a", "b"], due: "2026-12-01", project: "Home.\"Q\"", dependsOn: ["d1", "d\\2"], wait: "2026-11-30T08:00:00Z",
            meta: #"{"n":1.50,"s":"\u0001"}"#, recurrence: "FREQ=WEEKLY;BYDAY=\"MO\"", seriesId: "s\"1",
            createdAt: 0, updatedAt: 1_780_000_000_042, completedAt: nil, version: 42,
            remindAt: "2026-11-30T09:00:00+01:00",
            annotations: [Annotation(at: 0, text: "called \"Bo\" é"), Annotation(at: 1_780_000_000_042, text: "later")],
            startedAt: 1_780_000_000_000)
        let parsed = try JSONParser.parse(JSONWriter.bytes(TaskJSON.encode(task)))
        #expect(
            parsed == [
                "id": "id \"quoted\"", "title": "Tab\there \\ é 😀", "notes": "line 1\nline 2\u{1}", "done": true, "priority": 3,
                "tags": ["a", "b"], "due": "2026-12-01", "project": "Home.\"Q\"", "dependsOn": ["d1", "d\\2"],
                "wait": "2026-11-30T08:00:00Z", "meta": ["n": .number("1.50"), "s": "\u{1}"],
                "recurrence": ["rule": "FREQ=WEEKLY;BYDAY=\"MO\""], "seriesId": "s\"1", "remindAt": "2026-11-30T09:00:00+01:00",
                "startedAt": "2026-05-28T20:26:40.000Z",
                "annotations": [
                    ["at": "1970-01-01T00:00:00.000Z", "text": "called \"Bo\" é"], ["at": "2026-05-28T20:26:40.042Z", "text": "later"],
                ],
                "createdAt": "1970-01-01T00:00:00.000Z",
                "updatedAt": "2026-05-28T20:26:40.042Z", "completedAt": .null, "version": 42,
            ])
        let bare = TaskItem(id: "x", title: "x", createdAt: 0, updatedAt: 0)
        let parsedBare = try JSONParser.parse(JSONWriter.bytes(TaskJSON.encode(bare)))
        #expect(parsedBare["tags"] == [])
        #expect(parsedBare["due"] == .null)
        #expect(parsedBare["project"] == .null)
        #expect(parsedBare["dependsOn"] == [])
        #expect(parsedBare["meta"] == [:])
        #expect(parsedBare["recurrence"] == .null)
        #expect(parsedBare["seriesId"] == .null)
        #expect(parsedBare["remindAt"] == .null)
        #expect(parsedBare["startedAt"] == .null)
        #expect(parsedBare["annotations"] == [])
        #expect(parsedBare["done"] == false)
    }
}

extension TaskJSONTests {
    /// A page is written from the bytes SQLite holds: text another program stored that is not
    /// UTF-8 is written as U+FFFD, and the page is JSON a strict reader takes.
    @Test func bytesThatAreNotUTF8AreWrittenAsReplacementCharacters() throws {
        var buffer = TaskBuffer([TaskItem(id: "x", title: "x", tags: ["t"], createdAt: 0, updatedAt: 0)])
        let title: [UInt8] = [0x61, 0xFF, 0x62]
        title.withUnsafeBufferPointer { buffer.set(.title, $0) }
        let tags: [UInt8] = [0x74, 0x1F, 0xC3]
        tags.withUnsafeBufferPointer { buffer.set(.tags, $0) }
        let parsed = try JSONParser.parse(JSONWriter.bytes(TaskJSON.encode(buffer))).arrayValue ?? []
        #expect(parsed.first?["title"] == "a\u{FFFD}b")
        #expect(parsed.first?["tags"] == ["t", "\u{FFFD}"])
    }

    /// A page larger than the writer's buffer, with texts that need escapes, reads back as
    /// the tasks it was written from.
    @Test func aLargePageReadsBackWhole() throws {
        let tasks = (0..<300).map { index in
            TaskItem(
                id: "id\(index)", title: "T\"\(index)\"", notes: String(repeating: "n\t", count: index * 7),
                tags: ["a\(index % 3)", "é"], createdAt: Int64(index), updatedAt: Int64(index))
        }
        let parsed = try JSONParser.parse(JSONWriter.bytes(TaskJSON.encode(TaskBuffer(tasks)))).arrayValue ?? []
        #expect(parsed.count == tasks.count)
        for (index, task) in tasks.enumerated() where index < parsed.count {
            #expect(parsed[index] == (try JSONParser.parse(JSONWriter.bytes(TaskJSON.encode(task)))))
            #expect(parsed[index]["notes"] == .string(task.notes))
        }
    }
}
