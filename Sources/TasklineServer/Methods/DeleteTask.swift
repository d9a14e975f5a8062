import JSONRPC
import TaskModel

enum DeleteTask: SingleWriteMethod {
    struct Params: Sendable {
        var id: String
        var ifVersion: Int64?
    }

    static let name = "tasks/delete"

    static func params(from reader: inout ParamsReader) throws(ResponseError) -> Params {
        Params(id: try reader.requiredString("id"), ifVersion: try reader.integer("ifVersion"))
    }

    static func operation(from params: Params) -> TaskOperation {
        .delete(id: params.id, ifVersion: params.ifVersion)
    }
}
