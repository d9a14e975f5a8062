/// What `taskline`'s commands for people (add, list, done, show, …) ask of a store beyond
/// what the server does: ids shortened for typing (`ShortID`, the same answers on every
/// store), a task's history and how many tasks have each tag and project. Both stores
/// conform.
public protocol CommandLineStoring: TaskStoring {
    /// What it takes to give the tasks `ids` their short ids: the ids whose keys start as
    /// theirs do (`ShortIDs.heads(of:)`).
    func shortIDs(for ids: some Sequence<String>) throws -> ShortIDs
    /// The id of the task whose id is `text`, or else of the one task whose key starts with
    /// it (see `ShortID.resolve`).
    func resolveID(_ text: String) throws -> String
    /// Task `id`'s entries in the change log, oldest first, as far back as the log is kept.
    func loggedChanges(of id: String) throws -> [LoggedChange]
    /// How many open tasks (`all`: tasks) have each tag; a tag none has is left out.
    func tagCounts(all: Bool) throws -> [String: Int]
    /// How many open tasks (`all`: tasks) are in each project, not counting the projects
    /// under it; a project none is in is left out.
    func projectCounts(all: Bool) throws -> [String: Int]
}

extension CommandLineStoring {
    /// The short id of the task `id`.
    public func shortID(for id: String) throws -> String {
        try shortIDs(for: [id]).shortID(for: id)
    }
}
