import JSON
import JSONRPC
import PeopleLanguage
import TaskModel

/// `tasks/parse`: the task, or the changes to one, that words typed as on the command line
/// describe (`Call the bank +money due:fri pri:H`), read in the client's time zone. Writes
/// nothing, so that a front-end can show what it would create as the person types.
enum ParseText: TaskMethod {
    struct Params: Sendable {
        var text: String
        /// The task the words change; nil: the words make a new one.
        var id: String?
    }

    static let name = "tasks/parse"

    static func params(from reader: inout ParamsReader) throws(ResponseError) -> Params {
        Params(text: try reader.requiredString("text"), id: try reader.string("id"))
    }

    static func run(_ params: Params, on store: any TaskStoring, client: ClientSettings) async throws -> MethodOutcome {
        var edit = TaskEdit()
        do throws(UsageError) {
            let dates = DateContext(now: Timestamp.now(), calendar: client.calendar)
            try TaskWords.read(TaskWords.words(of: params.text), into: &edit, dates: dates, modify: params.id != nil)
            if params.id == nil, edit.titleWords.isEmpty { throw UsageError("what task? Give its title") }
        } catch {
            throw ResponseError.invalidParams(field: "text", reason: error.message)
        }
        let dependsOn: [String]?
        do {
            // Short ids as the command line takes them; every store answers them.
            dependsOn = try await (store as? any CommandLineStoring)?.resolveDependencies(edit.dependsOn) ?? edit.dependsOn
        } catch let error as UsageError {
            throw ResponseError.invalidParams(field: "text", reason: error.message)
        }
        guard let id = params.id else {
            return MethodOutcome(result: ["task": encode(edit.draft(dependsOn: dependsOn ?? []))])
        }
        let task = try await store.get(id: id)
        return MethodOutcome(result: ["changes": encode(edit.changes(to: task, dependsOn: dependsOn))])
    }

    /// `tasks/create` params: the title and the members the words set.
    private static func encode(_ draft: TaskDraft) -> JSON {
        var params: JSONObject = ["title": .string(draft.title)]
        if draft.done { params["done"] = true }
        if draft.priority != 0 { params["priority"] = .integer(Int64(draft.priority)) }
        if !draft.tags.isEmpty { params["tags"] = strings(draft.tags) }
        if let due = draft.due { params["due"] = .string(due) }
        if let project = draft.project { params["project"] = .string(project) }
        if !draft.dependsOn.isEmpty { params["dependsOn"] = strings(draft.dependsOn) }
        if let wait = draft.wait { params["wait"] = .string(wait) }
        if let rule = draft.recurrence { params["recurrence"] = ["rule": .string(rule)] }
        if let remindAt = draft.remindAt { params["remindAt"] = .string(remindAt) }
        return .object(params)
    }

    /// `tasks/update` changes: the members the words set; `null` clears.
    private static func encode(_ changes: TaskChanges) -> JSON {
        var members: JSONObject = [:]
        func nullable(_ value: String??) -> JSON? {
            value.map { $0.map(JSON.string) ?? .null }
        }
        if let title = changes.title { members["title"] = .string(title) }
        if let done = changes.done { members["done"] = .bool(done) }
        if let priority = changes.priority { members["priority"] = .integer(Int64(priority)) }
        if let tags = changes.tags { members["tags"] = strings(tags) }
        if let due = nullable(changes.due) { members["due"] = due }
        if let project = nullable(changes.project) { members["project"] = project }
        if let dependsOn = changes.dependsOn { members["dependsOn"] = strings(dependsOn) }
        if let wait = nullable(changes.wait) { members["wait"] = wait }
        if let recurrence = changes.recurrence { members["recurrence"] = recurrence.map { ["rule": .string($0)] } ?? .null }
        if let remindAt = nullable(changes.remindAt) { members["remindAt"] = remindAt }
        return .object(members)
    }

    private static func strings(_ values: [String]) -> JSON {
        .array(values.map(JSON.string))
    }
}
