import CLibPQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to a PostgreSQL server, through libpq.
///
/// Not thread-safe by itself: the owner (an actor) serialises every use. Connecting and
/// running a statement block until the server answers; `socket` lets an event loop wait for
/// notifications without blocking.
public final class PostgresConnection {
    public enum Status: Sendable {
        /// The connection works (as far as libpq knows: a lost connection shows at its next use).
        case ok
        /// Being opened without blocking: see `startConnecting(_:)`.
        case connecting
        /// The connection is lost; `reset()` opens a new one.
        case bad
    }

    let handle: OpaquePointer
    /// The connection string without its passwords, for messages and logs.
    public let redactedConnectionString: String
    /// The passwords of the connection string (see `passwords(in:)`), taken out of every message.
    private let secrets: [String]

    /// Connects with libpq's URI (`postgresql://…`, `postgres://…`) or key=value connection
    /// string, and waits until the connection is open. Anything the string leaves out comes
    /// from libpq's environment variables, service file and password file (`PGHOST`,
    /// `PGSERVICEFILE`, `PGPASSFILE`, …), as libpq documents; so do `sslmode` and the other
    /// options.
    public convenience init(_ connectionString: String) throws {
        try self.init(connectionString: connectionString, connect: { PQconnectdb($0) })
    }

    /// `connect` is `PQconnectdb`, or `PQconnectStart`, which returns a connection still
    /// being opened.
    init(connectionString: String, connect: (String) -> OpaquePointer?) throws {
        try loadLibpq()
        redactedConnectionString = redactPasswords(in: connectionString)
        secrets = passwords(in: connectionString)
        var parseError: UnsafeMutablePointer<CChar>?
        if let options = PQconninfoParse(connectionString, &parseError) {
            PQconninfoFree(options)
        } else {
            defer { PQfreemem(parseError) }
            // libpq quotes the part it cannot parse, which may be a piece of a password.
            let reason =
                secrets.isEmpty ? parseError.map { trimmed(String(cString: $0)) } ?? "" : "libpq's reason is withheld: it may quote the password"
            throw PostgresError(message: "cannot read the connection string \(redactedConnectionString): \(reason)")
        }
        guard let handle = connect(connectionString) else {
            throw PostgresError(message: "libpq could not allocate a connection", connectionLost: true)
        }
        self.handle = handle
        // Throwing here runs deinit, which frees the handle.
        guard PQstatus(handle) != CONNECTION_BAD else { throw connectionError("cannot connect to") }
    }

    deinit {
        PQfinish(handle)
    }

    public var status: Status {
        switch PQstatus(handle) {
        case CONNECTION_OK: .ok
        case CONNECTION_BAD: .bad
        default: .connecting
        }
    }

    /// Closes the connection and opens a new one with the same parameters. The new session
    /// has nothing of the old one: listen again, and set again what was set.
    public func reset() throws {
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else { throw connectionError("cannot reconnect to") }
    }

    /// The process id of the server process serving this connection (`pg_backend_pid()`).
    public var backendPID: Int32 { PQbackendPID(handle) }

    /// Runs one statement with `parameters` for `$1`, `$2`, … and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresValue] = []) throws -> PostgresRows {
        let types = parameters.map(\.typeOID)
        return try withParameters(parameters, sql: sql) { values in
            try rows(PQexecParams(handle, sql, Int32(parameters.count), types, values, nil, nil, 0), sql: sql)
        }
    }

    /// `parameters` in libpq's text format, as C strings for the length of `body`.
    private func withParameters<T>(_ parameters: [PostgresValue], sql: String, _ body: ([UnsafePointer<CChar>?]) throws -> T) throws -> T {
        let texts = try parameters.map { try $0.textFormat(sql: sql) }
        let copies = texts.map { $0.flatMap { UnsafePointer(strdup($0)) } }
        defer { for copy in copies { free(UnsafeMutablePointer(mutating: copy)) } }
        return try body(copies)
    }

    /// Parses and plans `sql` once, for `query(prepared:_:)` to run by `name` on this
    /// connection's PostgreSQL session (`PQprepare`): a statement run often then costs no
    /// planning. `parameterTypes` are the values' types, as `query` would send them. A new
    /// PostgreSQL session (after `reset()` or a reconnection) has none: prepare again.
    public func prepare(_ name: String, _ sql: String, parameterTypes: [PostgresValue]) throws {
        let types = parameterTypes.map(\.typeOID)
        _ = try rows(PQprepare(handle, name, sql, Int32(types.count), types), sql: sql)
    }

    /// Runs the statement prepared as `name` with `parameters` (`PQexecPrepared`).
    public func query(prepared name: String, _ parameters: [PostgresValue]) throws -> PostgresRows {
        try withParameters(parameters, sql: name) { values in
            try rows(PQexecPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0), sql: name)
        }
    }

    /// Runs one statement with `parameters` and returns how many rows it changed.
    @discardableResult
    public func run(_ sql: String, _ parameters: [PostgresValue] = []) throws -> Int {
        try query(sql, parameters).affectedRows
    }

    /// Runs a script of statements without parameters (schema, `SET`, `LISTEN`), in one round
    /// trip; it stops at the first statement that fails. Outside a transaction, each
    /// statement commits by itself unless the script says `BEGIN`.
    public func execute(_ script: String) throws {
        _ = try rows(PQexec(handle, script), sql: script)
    }

    private func rows(_ result: OpaquePointer?, sql: String) throws -> PostgresRows {
        guard let result else { throw PostgresError(result: nil, connection: self, sql: sql) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgresRows(result: result, sql: sql)
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            PQclear(result)
            throw PostgresError(message: "COPY is not supported by this layer", sql: sql)
        default:
            let error = PostgresError(result: result, connection: self, sql: sql)
            PQclear(result)
            throw error
        }
    }

    /// libpq's latest message about the connection.
    var errorMessage: String { String(cString: PQerrorMessage(handle)) }

    func connectionError(_ doing: String) -> PostgresError {
        PostgresError(message: "\(doing) \(redactedConnectionString): \(scrub(trimmed(errorMessage)))", connectionLost: true)
    }

    /// `message` with every password of the connection string replaced: libpq quotes parts of
    /// a connection string it cannot parse.
    func scrub(_ message: String) -> String {
        secrets.reduce(message) { $0.replacing($1, with: "***") }
    }
}

/// Loads libpq the first time, before any of its functions is called (see CLibPQ.h): a
/// process that opens no PostgreSQL connection never maps it.
private func loadLibpq() throws {
    var reason = [CChar](repeating: 0, count: 512)
    guard taskline_libpq_load(&reason, reason.count) == 0 else {
        throw PostgresError(message: String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
