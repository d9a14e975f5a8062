import TaskModel
import Testing

@Suite struct TaskBufferTests {
    static let tasks: [TaskItem] = [
        TaskItem(id: "a", title: "A", createdAt: 1, updatedAt: 2),
        TaskItem(
            id: "b", title: "Tab\t é 😀", notes: "line 1\nline 2", done: true, priority: 3, tags: ["x", "y"],
            due: "2026-12-01", project: "Home.Garage", dependsOn: ["a", "c"], wait: "2026-11-30T08:00:00Z",
            meta: #"{"n":1}"#, recurrence: "FREQ=DAILY", seriesId: "b", createdAt: -5, updatedAt: Int64.max,
            completedAt: 0, version: 7, remindAt: "2026-11-30T09:00:00Z"),
        TaskItem(id: "c", title: "", notes: "", tags: ["only"], createdAt: 0, updatedAt: 0, completedAt: Int64.min),
        // Canonically equivalent to é, but other bytes: a buffer keeps the bytes.
        TaskItem(id: "d", title: "e\u{301}", createdAt: 0, updatedAt: 0),
    ]

    @Test func tasksComeBackAsTheyWentIn() {
        let buffer = TaskBuffer(Self.tasks)
        #expect(buffer.count == Self.tasks.count)
        for (task, back) in zip(Self.tasks, buffer) {
            #expect(back.isIdentical(to: task), "\(back) != \(task)")
        }
    }

    @Test func fieldsAreReadAsBytesAndNulls() {
        let buffer = TaskBuffer(Self.tasks)
        #expect(buffer.withText(1, .title) { Array($0) } == Array("Tab\t é 😀".utf8))
        #expect(buffer.withText(0, .due) { _ in true } == nil)
        #expect(buffer.withText(0, .tags) { $0.count } == 0)
        var items: [String] = []
        buffer.forEachItem(1, .dependsOn) { items.append(String(decoding: $0, as: UTF8.self)) }
        #expect(items == ["a", "c"])
        #expect(buffer.number(1, .completedAt) == 0)
        #expect(buffer.number(0, .completedAt) == nil)
        #expect(buffer.number(2, .completedAt) == Int64.min)
        #expect(TaskBuffer([Self.tasks[0]]).textByteCount == 4)  // "a", "A", "{}"
    }

    /// Buffers are equal when their tasks are, whatever order a store set the fields in.
    @Test func equalityIsTheTasks() {
        var filledBackwards = TaskBuffer()
        filledBackwards.appendNullTask()
        for field in TaskBuffer.Text.allCases.reversed() {
            let text: String? =
                switch field {
                case .id: "a"
                case .title: "A"
                case .notes, .tags, .dependsOn: ""
                case .meta: "{}"
                default: nil
                }
            if var text { text.withUTF8 { filledBackwards.set(field, $0) } }
        }
        filledBackwards.set(.done, 0)
        filledBackwards.set(.priority, 0)
        filledBackwards.set(.createdAt, 1)
        filledBackwards.set(.updatedAt, 2)
        filledBackwards.set(.completedAt, nil)
        filledBackwards.set(.version, 1)
        #expect(filledBackwards == TaskBuffer([Self.tasks[0]]))
        #expect(filledBackwards.hashValue == TaskBuffer([Self.tasks[0]]).hashValue)
        #expect(filledBackwards != TaskBuffer([Self.tasks[2]]))
    }
}
