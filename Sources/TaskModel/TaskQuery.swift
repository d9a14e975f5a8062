/// What `tasks/fetch` asks for.
public struct TaskQuery: Sendable, Hashable {
    public var filter = TaskFilter()
    public var sort: [SortKey] = [SortKey(field: .createdAt)]
    public var limit = 100
    public var cursor: String?
    public var offset: Int?
    public var includeTotal = false

    public static let maxLimit = 1000
    public static let maxSortKeys = 5

    public init(
        filter: TaskFilter = TaskFilter(), sort: [SortKey] = [SortKey(field: .createdAt)], limit: Int = 100,
        cursor: String? = nil, offset: Int? = nil, includeTotal: Bool = false
    ) {
        self.filter = filter
        self.sort = sort
        self.limit = limit
        self.cursor = cursor
        self.offset = offset
        self.includeTotal = includeTotal
    }
}

extension TaskQuery {
    /// The limit, offset and sort within their rules; the filter and cursor are the store's
    /// to read. A sort has 1 to `maxSortKeys` keys, each field at most once.
    package func validate() throws {
        guard (1...Self.maxLimit).contains(limit) else {
            throw TaskStoreError.invalid(field: "limit", reason: "must be 1 to \(Self.maxLimit)")
        }
        if let offset {
            guard offset >= 0 else { throw TaskStoreError.invalid(field: "offset", reason: "must be 0 or more") }
            guard cursor == nil else { throw TaskStoreError.invalid(field: "offset", reason: "cannot be combined with cursor") }
        }
        guard (1...Self.maxSortKeys).contains(sort.count) else {
            throw TaskStoreError.invalid(field: "sort", reason: "must have 1 to \(Self.maxSortKeys) entries")
        }
        var seen: Set<SortKey.Field> = []
        for (index, key) in sort.enumerated() where !seen.insert(key.field).inserted {
            throw TaskStoreError.invalid(field: "sort[\(index)].field", reason: "\(key.field.rawValue) appears more than once")
        }
    }
}

public struct TaskFilter: Sendable, Hashable {
    public var done: Bool?
    /// A task matches when it has all of these.
    public var tags: [String] = []
    /// A literal, case-insensitive substring of the title or the notes.
    public var text: String?
    /// Matches `dueAfter <= due < dueBefore`.
    public var dueBefore: String?
    public var dueAfter: String?
    public var ids: [String]?
    /// Matches the project and every project under it (`Home` matches `Home.Garage`).
    public var project: String?
    /// True: has a dependency that is not done; false: has none.
    public var blocked: Bool?
    /// True: its wait time is later than the server's clock; false: it has none, or it has passed.
    public var waiting: Bool?

    public static let maxTextLength = 1024
    public static let maxIDs = 1000

    public init(
        done: Bool? = nil, tags: [String] = [], text: String? = nil,
        dueBefore: String? = nil, dueAfter: String? = nil, ids: [String]? = nil,
        project: String? = nil, blocked: Bool? = nil, waiting: Bool? = nil
    ) {
        self.done = done
        self.tags = tags
        self.text = text
        self.dueBefore = dueBefore
        self.dueAfter = dueAfter
        self.ids = ids
        self.project = project
        self.blocked = blocked
        self.waiting = waiting
    }
}

public struct SortKey: Sendable, Hashable {
    public enum Field: String, Sendable, CaseIterable {
        case createdAt, updatedAt, due, priority, title, project
    }

    public var field: Field
    public var descending: Bool

    public init(field: Field, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }
}

public struct TaskPage: Sendable, Hashable {
    public var tasks: TaskBuffer
    /// Where the next page starts, or nil on the last page.
    public var nextCursor: String?
    public var total: Int?
    /// The database's newest `seq` as of this page: where `tasks/changes` takes over.
    public var seq: Int64

    public init(tasks: TaskBuffer, nextCursor: String?, total: Int?, seq: Int64) {
        self.tasks = tasks
        self.nextCursor = nextCursor
        self.total = total
        self.seq = seq
    }
}
