import JSON
import JSONRPC
import PeopleLanguage

/// `initialize`: what the client told us, and what we answer.
struct Initialize {
    var processID: Int32?
    var notifications = true
    /// The client asked for `tasks/remind` (see Reminders.swift).
    var reminders = false
    var client = ClientSettings()

    /// The members Taskline reads are type-checked; every other member, at any level, is
    /// ignored: LSP clients send many, and editors' LSP frameworks share one
    /// `initializationOptions` object among the servers they start.
    init(params: JSON?) throws(ResponseError) {
        var reader = try ParamsReader(params)
        if let pid = try reader.integer("processId") {
            // 0 and negative numbers name process groups to kill(2), not a process.
            guard let pid = Int32(exactly: pid), pid >= 1 else {
                throw .invalidParams(field: "processId", reason: "must be a process id from 1 to 2147483647, or null")
            }
            processID = pid
        }
        if var clientInfo = try reader.object("clientInfo") {
            _ = try clientInfo.requiredString("name")
            _ = try clientInfo.string("version")
        }
        _ = try reader.object("capabilities")
        if var options = try reader.object("initializationOptions") {
            notifications = try options.bool("notifications") ?? true
            reminders = try options.bool("reminders") ?? false
            if let zone = try options.string("timeZone") {
                guard let calendar = LocalCalendar.named(zone) else {
                    throw .invalidParams(
                        field: options.field("timeZone"), reason: "must be an IANA time zone name the server knows, such as Europe/Paris, not \(zone)"
                    )
                }
                client.calendar = calendar
            }
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
                "notifications": [
                    "didChange": .bool(notifications), "didMissChanges": .bool(notifications),
                    "remind": .bool(reminders),
                ],
                "limits": ["maxMessageBytes": .integer(Int64(maxMessageBytes)), "maxFetchLimit": 1000],
            ],
        ]
    }
}
