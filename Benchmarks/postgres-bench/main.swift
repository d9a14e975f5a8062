import Foundation
import JSON
import PostgreSQL

// The PostgreSQL store's figures (issue 26), each section on a schema of its own, each
// throughput and round trip beside the baseline (Baseline.swift):
//   postgres-bench --db CONNINFO [--quick] [--pages N] [--only SECTION] [--json PATH] [--taskline PATH]
// SECTION is creates, gets, live or pages; pages are measured at N tasks (--pages; 1,000
// with --quick), and not without one of the two.
// docs/performance.md gives the targets and the figures of one run.

struct Options {
    var db = ""
    var quick = false
    var json: String?
    var taskline = ".build/release/taskline"
    var pages: Int?
    var only: String?

    func runs(_ section: String) -> Bool { only == nil || only == section }

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--db": db = rest.popFirst() ?? ""
            case "--json": json = rest.popFirst()
            case "--taskline": taskline = rest.popFirst() ?? taskline
            case "--pages":
                guard let count = rest.popFirst().flatMap({ Int($0) }), count > 0 else { Self.usage("--pages needs a number of tasks") }
                pages = count
            case "--only":
                guard let section = rest.popFirst(), ["creates", "gets", "live", "pages"].contains(section) else {
                    Self.usage("--only takes creates, gets, live or pages")
                }
                only = section
            default: Self.usage("unknown argument \(argument)")
            }
        }
        if db.isEmpty { Self.usage("--db CONNINFO is required") }
    }

    static func usage(_ problem: String) -> Never {
        FileHandle.standardError.write(
            Data(
                "postgres-bench: \(problem)\nusage: postgres-bench --db CONNINFO [--quick] [--pages N] [--only creates|gets|live|pages] [--json PATH] [--taskline PATH]\n"
                    .utf8))
        exit(2)
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let sizes =
    options.quick
    ? (servers: 8, createsPerServer: 100, baselineCreatesPerConnection: 25, tasks: 200, gets: 200, listeners: 5, writeSeconds: 0.5)
    : (servers: 8, createsPerServer: 2_000, baselineCreatesPerConnection: 250, tasks: 1_000, gets: 2_000, listeners: 20, writeSeconds: 4.0)
let pageTasks = options.pages ?? (options.quick ? 1_000 : nil)
let pageSamples = options.quick ? 3 : 21
let writesPerSecond = 500.0

/// A `@Sendable` closure may carry what one thread uses at a time.
struct Handed<T>: @unchecked Sendable {
    let value: T
}

/// Runs `body(0)` … `body(count - 1)` each on a thread of its own and waits for all.
func inParallel(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func seconds(_ body: () -> Void) -> Double {
    let start = now()
    body()
    return Double(now() - start) / 1e9
}

/// The sample that `fraction` of the others are at most: 0.99 for the 99th percentile.
func percentile(_ fraction: Double, of samples: [Double]) -> Double {
    samples.sorted()[min(samples.count - 1, Int(Double(samples.count) * fraction))]
}

/// Fresh, empty schemas, one per section, dropped at the end.
final class Schemas {
    private let admin: PostgresConnection
    private var names: [String] = []

    init(db: String) throws {
        admin = try PostgresConnection(db)
        try admin.execute("SET client_min_messages = warning")
    }

    /// A connection string whose search_path is a new schema; its tables made by a server.
    func fresh() throws -> String {
        let name = "postgres_bench_\(getpid())_\(names.count)"
        try admin.execute("CREATE SCHEMA \(name)")
        names.append(name)
        let db: String
        if options.db.hasPrefix("postgresql://") || options.db.hasPrefix("postgres://") {
            db = options.db + (options.db.contains("?") ? "&" : "?") + "options=-c%20search_path%3D\(name)"
        } else {
            db = options.db + " options='-c search_path=\(name)'"
        }
        let server = try Server(binary: options.taskline, db: db)
        server.initialize(notifications: false)
        server.shutdown()
        return db
    }

    func dropAll() throws {
        for name in names { try admin.execute("DROP SCHEMA \(name) CASCADE") }
    }
}

func count(_ table: String, in db: String) throws -> Int {
    try PostgresConnection(db).query("SELECT count(*) AS n FROM \(table)")[0].int("n")
}

func connections(_ count: Int, _ db: String) throws -> [Handed<PostgresConnection>] {
    try (0..<count).map { _ in Handed(value: try PostgresConnection(db)) }
}

var report: [(key: String, value: Double, unit: String)] = []
@MainActor func record(_ key: String, _ value: Double, _ unit: String, _ label: String) {
    report.append((key, value, unit))
    print(label.padding(toLength: 60, withPad: " ", startingAt: 0) + String(format: "%10.1f ", value) + unit)
}

let schemas = try Schemas(db: options.db)

// 1. Pipelined creates: each of 8 servers gets its requests in one stream while it answers
// (its group commit puts those waiting into one transaction); the baseline's connections
// each run one create's transaction after another.
if options.runs("creates") {
    let db = try schemas.fresh()
    let servers = try (0..<sizes.servers).map { _ in try Server(binary: options.taskline, db: db) }
    for server in servers { server.initialize(notifications: false) }
    let streams = servers.enumerated().map { number, server in
        (0..<sizes.createsPerServer).flatMap { server.request("tasks/create", #"{"title":"pipelined \#(number) \#($0)"}"#) }
    }
    let elapsed = seconds {
        inParallel(sizes.servers) { number in
            let server = servers[number]
            let stream = streams[number]
            Thread { server.send(stream) }.start()
            for _ in 0..<sizes.createsPerServer { _ = server.response() }
        }
    }
    for server in servers { server.shutdown() }
    let created = sizes.servers * sizes.createsPerServer
    guard try count("task", in: db) == created else { fatalError("pipelined creates: not every task is stored") }

    let baselineDB = try schemas.fresh()
    let baselineConnections = try connections(sizes.servers, baselineDB)
    let channel = try Baseline.channel(baselineConnections[0].value)
    let baselineElapsed = seconds {
        inParallel(sizes.servers) { number in
            let connection = baselineConnections[number].value
            for index in 0..<sizes.baselineCreatesPerConnection {
                try! Baseline.create(title: "pipelined \(number) \(index)", on: connection, channel: channel)
            }
        }
    }
    let serverRate = Double(created) / elapsed
    let baselineRate = Double(sizes.servers * sizes.baselineCreatesPerConnection) / baselineElapsed
    record("pipelinedCreatesPerSecond", serverRate, "tasks/s", "creates, pipelined, \(sizes.servers) servers")
    record("baselineCreatesPerSecond", baselineRate, "tasks/s", "  baseline, \(sizes.servers) connections, one transaction each")
    record("pipelinedCreatesRatio", serverRate / baselineRate, "x", "  ratio (target >= 0.8)")
}

// 2. Lock-step tasks/get through one server, alternating with the baseline's SELECT so that
// both see the same machine (its speed drifts).
if options.runs("gets") {
    let db = try schemas.fresh()
    let server = try Server(binary: options.taskline, db: db)
    server.initialize(notifications: false)
    let ids = (0..<sizes.tasks).map { index in
        server.call("tasks/create", #"{"title":"get \#(index)"}"#)["id"]?.stringValue ?? ""
    }
    let connection = try PostgresConnection(db)
    let requests = (0..<sizes.gets).map { server.request("tasks/get", #"{"id":"\#(ids[$0 % ids.count])"}"#) }
    server.spins = true
    var served: [Double] = []
    var direct: [Double] = []
    for index in 0..<sizes.gets {
        served.append(
            seconds {
                server.send(requests[index])
                _ = server.response()
            } * 1e6)
        let id = ids[(index * 7919) % ids.count]
        direct.append(seconds { try! Baseline.get(id: id, on: connection) } * 1e6)
    }
    server.spins = false
    server.shutdown()
    let (servedMedian, directMedian) = (percentile(0.5, of: served), percentile(0.5, of: direct))
    record("getMedianMicroseconds", servedMedian, "us", "tasks/get, lock-step, median round trip")
    record("baselineGetMedianMicroseconds", directMedian, "us", "  baseline SELECT, median")
    record("getRatio", servedMedian / directMedian, "x", "  ratio (target <= 2)")
}

// 3. A write on one server to tasks/didChange on each listening server, beside the same
// through bare connections: one writing, the others listening and reading the log.
@MainActor func recordLive(_ outcome: Live.Outcome, _ name: String, _ label: String, p99 p99Label: String, side: String = "") {
    record("\(name)MedianMilliseconds", percentile(0.5, of: outcome.latencies), "ms", label)
    record("\(name)P99Milliseconds", percentile(0.99, of: outcome.latencies), "ms", p99Label)
    record("\(name)Missed", Double(outcome.missed), "changes", "  \(side)missed, over all listeners (target 0)")
    record("\(name)Doubled", Double(outcome.doubled), "changes", "  \(side)heard twice, over all listeners (target 0)")
    record("\(name)BusyPercent", outcome.busyPercent, "%", "  \(side)machine CPU busy meanwhile")
}

if options.runs("live") {
    let live = Live(writes: Int(writesPerSecond * sizes.writeSeconds), listeners: sizes.listeners, writesPerSecond: writesPerSecond)
    let db = try schemas.fresh()
    let writer = try Server(binary: options.taskline, db: db)
    writer.initialize(notifications: false)
    let listeners = try (0..<live.listeners).map { _ in try Server(binary: options.taskline, db: db) }
    for listener in listeners { listener.initialize(notifications: true) }
    let requests = (0..<live.writes).map { writer.request("tasks/create", #"{"title":"live \#($0)"}"#) }
    Thread { for _ in 0..<live.writes { _ = writer.response() } }.start()
    let served = live.run(
        listen: { Live.listen(to: listeners[$0], writes: live.writes, deadline: $1) },
        write: { writer.send(requests[$0]) })
    for server in listeners + [writer] { server.shutdown() }
    recordLive(
        served, "didChange", "write to tasks/didChange elsewhere, median (target <= 20)",
        p99: "  p99 (target <= 250)")
    print("  (\(live.writes) creates at \(Int(writesPerSecond))/s, pipelined through one server; \(live.listeners) listening servers)")

    let baselineDB = try schemas.fresh()
    let connection = try PostgresConnection(baselineDB)
    let channel = try Baseline.channel(connection)
    let listening = try connections(live.listeners, baselineDB)
    for listener in listening {
        try listener.value.listen(channel)
        try Baseline.prepareChanges(on: listener.value)
    }
    let direct = live.run(
        listen: { Live.listen(on: listening[$0].value, channel: channel, writes: live.writes, deadline: $1) },
        write: { try! Baseline.create(title: "live \($0)", on: connection, channel: channel) })
    recordLive(direct, "baselineNotify", "  baseline: write to log read elsewhere, median", p99: "  baseline p99", side: "baseline ")
}

// 4. Pages of 50 at `pageTasks` tasks (PageMatrix), and what a lock-step create costs there.
var pageCells: [PageMatrix.Cell] = []
if options.runs("pages"), let pageTasks {
    let db = try schemas.fresh()
    let loading = seconds {
        try! PageLoad.load(count: pageTasks, into: db) { FileHandle.standardError.write(Data("  loaded \($0) tasks\n".utf8)) }
    }
    record("pageLoadTasksPerSecond", Double(pageTasks) / loading, "tasks/s", "pages: \(pageTasks) tasks loaded (INSERT … SELECT, VACUUM ANALYZE)")
    let server = try Server(binary: options.taskline, db: db)
    server.initialize(notifications: false)
    let measured = PageMatrix.measure(server, samples: pageSamples)
    pageCells = measured.cells
    for (filter, timing) in measured.totals {
        record(
            "pageTotalMedianMilliseconds_\(filter.replacingOccurrences(of: " ", with: "_"))", timing.median, "ms",
            "  includeTotal, \(filter) filter, median (target <= 20)")
    }
    let creates = (0..<(options.quick ? 20 : 500)).map {
        server.request("tasks/create", #"{"title":"created at size \#($0)","due":"2027-06-01","project":"Home","tags":["t3"]}"#)
    }
    server.spins = true
    let createTimes = creates.map { request in
        seconds {
            server.send(request)
            _ = server.response()
        } * 1e6
    }
    server.spins = false
    record("pageSizeCreateMedianMicroseconds", percentile(0.5, of: createTimes), "us", "  tasks/create there, lock-step, median")
    record("pageSizeCreateP99Microseconds", percentile(0.99, of: createTimes), "us", "  same, p99")
    server.shutdown()
    let met = pageCells.filter(\.met).count
    print(
        "\nPages of 50 at \(pageTasks) tasks: first page · middle page, median/p99 ms; a miss of <= \(PageMatrix.format(PageMatrix.medianTarget))/\(PageMatrix.format(PageMatrix.p99Target)) in bold; \(met) of \(pageCells.count) cells met"
    )
    print(PageMatrix.table(pageCells))
}

try schemas.dropAll()

if let path = options.json {
    var object = JSONObject()
    for entry in report { object[entry.key] = .number(String(format: "%.3f", entry.value)) }
    if !pageCells.isEmpty { object["pages"] = PageMatrix.json(pageCells) }
    try Data(JSONWriter.bytes(.object(object))).write(to: URL(fileURLWithPath: path))
}
