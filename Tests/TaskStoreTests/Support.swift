import EventLoop
import TaskModel
import TaskStore
import TestSupport

/// `loop`: the store's executor, which the caller stops; nil, a loop of the store's own.
func makeStore(
    _ directory: TemporaryDirectory, name: String = "tasks.sqlite", clock: ManualClock = ManualClock(),
    options: StoreOptions = StoreOptions(durability: .normal), loop: EventLoop? = nil
) throws -> TaskStore {
    try TaskStore(path: directory.file(name), options: options, loop: loop, clock: { clock.read() })
}

extension TaskStore {
    @discardableResult
    nonisolated func add(
        _ title: String, notes: String = "", done: Bool = false, priority: Int = 0, tags: [String] = [],
        due: String? = nil, id: String? = nil
    ) async throws -> TaskItem {
        try await create(TaskDraft(id: id, title: title, notes: notes, done: done, priority: priority, tags: tags, due: due)).value
    }

    nonisolated func titles(_ query: TaskQuery) async throws -> [String] {
        try await fetch(query).tasks.map(\.title)
    }

    /// The ids of every page in the order of `sort`, `limit` at a time, paged by cursor. Stops
    /// once more than `atMost` came, so that a cursor that leads back fails a test, not hangs it.
    nonisolated func idsPagedByCursor(sort: [SortKey], limit: Int, atMost: Int) async throws -> [String] {
        var ids: [String] = []
        var cursor: String?
        repeat {
            let page = try await fetch(TaskQuery(sort: sort, limit: limit, cursor: cursor))
            ids += page.tasks.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil && ids.count <= atMost
        return ids
    }
}

/// The field named by the `invalid` error `body` throws, or nil when it succeeds.
func invalidField(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch TaskStoreError.invalid(let field, _) {
        return field
    } catch {
        return "unexpected \(error)"
    }
}
