import Foundation
import SQLite
import TaskModel
import TestSupport
import Testing

@testable import TaskStore

@Suite struct StoreFileTests {
    let directory = TemporaryDirectory()

    @Test func createsFoldersAndAPrivateFile() async throws {
        let path = directory.file("a/b/c/tasks.sqlite")
        let store = try TaskStore(path: path)
        _ = try await store.create(TaskDraft(title: "x"))
        #expect(fileMode(path) == 0o600)
        #expect(fileMode(path + "-wal") == 0o600)
        #expect(fileMode(directory.file("a/b/c")) == 0o700)
    }

    @Test func refusesAFileThatIsNotADatabaseAndLeavesItAlone() throws {
        let path = directory.file("notes.txt")
        let text = Data(String(repeating: "not a database, just some text\n", count: 200).utf8)
        _ = FileManager.default.createFile(atPath: path, contents: text)
        #expect { try TaskStore(path: path) } throws: { error in
            if case StoreOpenError.notADatabase = error { return true }
            return false
        }
        #expect(fileBytes(path) == text)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func refusesAnotherApplicationsDatabaseAndLeavesItAlone() throws {
        let path = directory.file("other.sqlite")
        do {
            let db = try Database(path: path)
            try db.execute("CREATE TABLE tasks (name TEXT); INSERT INTO tasks VALUES ('theirs')")
        }
        let before = fileBytes(path)
        #expect { try TaskStore(path: path) } throws: { error in
            if case StoreOpenError.foreignSchema = error { return true }
            return false
        }
        #expect(fileBytes(path) == before)
    }

    @Test func refusesANewerSchema() async throws {
        let path = directory.file("future.sqlite")
        do { _ = try TaskStore(path: path) }
        do {
            let db = try Database(path: path)
            try db.setUserVersion(99)
        }
        let before = fileBytes(path)
        #expect { try TaskStore(path: path) } throws: { error in
            if case StoreOpenError.newerSchema(_, 99, _) = error { return true }
            return false
        }
        #expect(fileBytes(path) == before)
    }

    @Test func refusesATruncatedFile() throws {
        let path = directory.file("truncated.sqlite")
        do { _ = try TaskStore(path: path) }
        let bytes = try #require(fileBytes(path))
        try Data(bytes.prefix(100)).write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreOpenError.self) { try TaskStore(path: path) }
    }

    @Test func startsFromATemplateOnlyWhenTheDatabaseIsMissing() async throws {
        let template = directory.file("template.sqlite")
        do {
            let store = try TaskStore(path: template)
            _ = try await store.create(TaskDraft(id: "welcome", title: "Welcome to Taskline"))
        }
        let path = directory.file("user/tasks.sqlite")
        let fresh = try TaskStore(path: path, options: StoreOptions(templatePath: template))
        #expect(try await fresh.get(id: "welcome").title == "Welcome to Taskline")
        _ = try await fresh.delete(id: "welcome")
        #expect(fileMode(path) == 0o600)

        let reopened = try TaskStore(path: path, options: StoreOptions(templatePath: template))
        await #expect(throws: TaskStoreError.notFound(id: "welcome")) { try await reopened.get(id: "welcome") }
        #expect(try await reopened.currentSeq() == 2)
    }

    /// Two processes starting from a template at once each make a copy; the one put in place
    /// second must not replace the first, which its process may have written to already.
    @Test func aTemplateCopyNeverReplacesADatabaseMadeMeanwhile() async throws {
        let template = directory.file("template.sqlite")
        do { _ = try await TaskStore(path: template).create(TaskDraft(id: "welcome", title: "Welcome")) }
        let path = directory.file("tasks.sqlite")
        do {
            let first = try TaskStore(path: path, options: StoreOptions(templatePath: template))
            _ = try await first.create(TaskDraft(id: "acknowledged", title: "written by the first process"))
        }
        try StoreFile.materialize(template: template, at: path, options: StoreOptions())
        let store = try TaskStore(path: path)
        #expect(try await store.get(id: "acknowledged").title == "written by the first process")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.contains(".template-") })
    }

    @Test func aBadTemplateLeavesNothingBehind() throws {
        let template = directory.file("bad-template")
        _ = FileManager.default.createFile(atPath: template, contents: Data(repeating: 7, count: 4096))
        let path = directory.file("tasks.sqlite")
        #expect(throws: StoreOpenError.self) { try TaskStore(path: path, options: StoreOptions(templatePath: template)) }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == ["bad-template"])
    }

    /// New files get 2 KiB pages (see StoreFile.newFilePageSize); a file made with another
    /// page size keeps it and is served as before.
    @Test func newFilesGetSmallPagesAndOlderFilesKeepTheirs() async throws {
        let fresh = directory.file("new.sqlite")
        do { _ = try await TaskStore(path: fresh).create(TaskDraft(title: "new")) }
        #expect(try Database(path: fresh).integer("PRAGMA page_size") == 2048)

        let older = directory.file("older.sqlite")
        do { _ = try await TaskStore(path: older).create(TaskDraft(id: "kept", title: "kept")) }
        do {  // as files were made before: SQLite's default page size
            let database = try Database(path: older)
            try database.execute("PRAGMA journal_mode = DELETE")
            try database.execute("PRAGMA page_size = 4096")
            try database.execute("VACUUM")
        }
        let store = try TaskStore(path: older)
        _ = try await store.create(TaskDraft(id: "added", title: "added"))
        #expect(try await store.get(id: "kept").title == "kept")
        #expect(try await store.get(id: "added").title == "added")
        #expect(try Database(path: older).integer("PRAGMA page_size") == 4096)
    }

    @Test func memoryDatabaseWorks() async throws {
        let store = try TaskStore(path: ":memory:")
        let task = try await store.create(TaskDraft(title: "ephemeral")).value
        #expect(try await store.get(id: task.id) == task)
    }
}
