import JSONRPC

/// `initialize`: what the client told us, and what we answer.
struct Initialize {
    var processID: Int32?
    var notifications = true

    /// Unknown members of `initialize` params are ignored (LSP clients send many);
    /// the members Taskline reads are type-checked, and `initializationOptions` is ours, so strict.
    init(params: JSON?) throws(ResponseError) {
        guard let params else { return }
        guard let object = params.objectValue else {
            throw .invalidParams(field: "", reason: "must be an object, not \(params.typeName)")
        }
        switch object["processId"] {
        case nil, .null?: break
        case .integer(let pid)? where pid > 0 && pid <= Int64(Int32.max): processID = Int32(pid)
        case .some: throw .invalidParams(field: "processId", reason: "must be a positive integer or null")
        }
        if let clientInfo = object["clientInfo"], clientInfo != .null {
            guard case .object(let info) = clientInfo, info["name"]?.stringValue != nil else {
                throw .invalidParams(field: "clientInfo", reason: "must be an object with a string name")
            }
        }
        if let capabilities = object["capabilities"], capabilities != .null, capabilities.objectValue == nil {
            throw .invalidParams(field: "capabilities", reason: "must be an object")
        }
        if let options = object["initializationOptions"], options != .null {
            var reader = try ParamsReader(options, path: "initializationOptions")
            notifications = try reader.bool("notifications") ?? true
            try reader.finish()
        }
    }

    func result(maxMessageBytes: Int, databaseID: Int64, seq: Int64) -> JSON {
        [
            "serverInfo": ["name": "taskline", "version": .string(TasklineVersion.server)],
            "protocolVersion": .string(TasklineVersion.proto),
            // Which database, and how far its history goes: notifications follow from `seq`.
            "database": ["id": .string(String(UInt64(databaseID), radix: 16)), "seq": .integer(seq)],
            "capabilities": [
                "methods": .array(TaskMethods.all.map { .string($0.name) }),
                "notifications": ["didChange": .bool(notifications)],
                "limits": ["maxMessageBytes": .integer(Int64(maxMessageBytes)), "maxFetchLimit": 1000],
            ],
        ]
    }
}
