import TaskModel

/// Shorthands the store tests share, on any store.
extension TaskStoring {
    @discardableResult
    public func add(
        _ title: String, notes: String = "", done: Bool = false, priority: Int = 0, tags: [String] = [],
        due: String? = nil, id: String? = nil
    ) throws -> TaskItem {
        try create(TaskDraft(id: id, title: title, notes: notes, done: done, priority: priority, tags: tags, due: due)).value
    }

    public func titles(_ query: TaskQuery) throws -> [String] {
        try fetch(query).tasks.map(\.title)
    }

    /// The ids of every page in the order of `sort`, `limit` at a time, paged by cursor. Stops
    /// once more than `atMost` came, so that a cursor that leads back fails a test, not hangs it.
    public func idsPagedByCursor(sort: [SortKey], limit: Int, atMost: Int) throws -> [String] {
        var ids: [String] = []
        var cursor: String?
        repeat {
            let page = try fetch(TaskQuery(sort: sort, limit: limit, cursor: cursor))
            ids += page.tasks.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil && ids.count <= atMost
        return ids
    }
}

/// The field named by the `invalid` error `body` throws, or nil when it succeeds.
public func invalidField(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch TaskStoreError.invalid(let field, _) {
        return field
    } catch {
        return "unexpected \(error)"
    }
}
