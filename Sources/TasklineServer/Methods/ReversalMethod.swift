import JSON
import JSONRPC
import TaskModel

/// `tasks/undo` and `tasks/redo`: revert the newest change group of a scope that there is
/// to revert. Their params are the same: `scope` and `force`.
protocol ReversalMethod: TaskMethod where Params == ReversalParams {
    /// The result's member that holds the reverted group (`undone`, `redone`).
    static var groupMember: String { get }
    static func revert(_ params: ReversalParams, on store: any TaskStoring) async throws -> Reversal?
}

struct ReversalParams: Sendable {
    var scope: UndoScope
    var force: Bool
}

extension ReversalMethod {
    static func params(from reader: inout ParamsReader) throws(ResponseError) -> ReversalParams {
        var scope = UndoScope.connection
        if let name = try reader.string("scope") {
            guard let named = UndoScope(rawValue: name) else {
                let names = UndoScope.allCases.map(\.rawValue).joined(separator: " or ")
                throw .invalidParams(field: reader.field("scope"), reason: "must be \(names)")
            }
            scope = named
        }
        return ReversalParams(scope: scope, force: try reader.bool("force") ?? false)
    }

    /// `{<groupMember>: group, tasks, deleted}`, or `{}` when there was nothing to revert.
    static func run(_ params: ReversalParams, on store: any TaskStoring, client _: ClientSettings) async throws -> MethodOutcome {
        guard let reversal = try await revert(params, on: store) else { return MethodOutcome(result: .object([:])) }
        return MethodOutcome(
            result: [
                groupMember: encode(reversal.group),
                "tasks": TaskJSON.encode(reversal.tasks),
                "deleted": .array(reversal.deleted.map(JSON.string)),
            ], changes: reversal.changes.map { TaskJSON.text(of: $0) })
    }

    private static func encode(_ group: ChangeGroup) -> JSON {
        var at: [UInt8] = []
        Timestamp.append(milliseconds: group.at, to: &at)
        return [
            "firstSeq": .integer(group.firstSeq),
            "lastSeq": .integer(group.lastSeq),
            "kind": .string(group.kind.rawValue),
            "own": .bool(group.own),
            "at": .string(String(decoding: at, as: UTF8.self)),
        ]
    }
}

enum UndoGroup: ReversalMethod {
    static let name = "tasks/undo"
    static let groupMember = "undone"

    static func revert(_ params: ReversalParams, on store: any TaskStoring) async throws -> Reversal? {
        try await store.undo(scope: params.scope, force: params.force)
    }
}

enum RedoGroup: ReversalMethod {
    static let name = "tasks/redo"
    static let groupMember = "redone"

    static func revert(_ params: ReversalParams, on store: any TaskStoring) async throws -> Reversal? {
        try await store.redo(scope: params.scope, force: params.force)
    }
}
