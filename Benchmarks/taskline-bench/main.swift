import Foundation
import JSON

// taskline-bench: Taskline beside raw SQLite, in one run. See docs/performance.md.
//
//   taskline-bench [--sizes 1000,100000,1000000] [--quick] [--only reads|writes|queries|live] [--json PATH]
//                  [--databases DIR]
//
// --databases keeps each size's populated file in DIR (tasks-N.sqlite) and reuses one
// found there rather than populating it again: the matrix at a million tasks then runs
// without the minutes of populating. The writes part changes the file it measures.
//
// Needs the release build of `taskline` and `sqlite-baseline` beside it (swift build -c release).

struct Options {
    var sizes = [1000, 100_000, 1_000_000]
    var quick = false
    var jsonPath: String?
    /// The one part to run, or nil for all of them.
    var only: String?
    /// Where populated files are kept and reused (nil: a temporary folder, removed).
    var databases: String?

    func runs(_ part: String) -> Bool { only == nil || only == part }
}

var options = Options()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--sizes": options.sizes = (arguments.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }
    case "--quick":
        options.quick = true
        options.sizes = [1000]
    case "--json": options.jsonPath = arguments.popFirst()
    case "--databases" where arguments.first != nil: options.databases = arguments.popFirst()
    case "--only" where ["reads", "writes", "queries", "live"].contains(arguments.first ?? ""): options.only = arguments.popFirst()
    default:
        FileHandle.standardError.write(
            Data("usage: taskline-bench [--sizes N,N…] [--quick] [--only reads|writes|queries|live] [--json PATH] [--databases DIR]\n".utf8))
        exit(2)
    }
}

let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
let taskline = binDirectory + "/taskline"
let baselineBinary = binDirectory + "/sqlite-baseline"
let work = NSTemporaryDirectory() + "taskline-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
if let databases = options.databases {
    try FileManager.default.createDirectory(atPath: databases, withIntermediateDirectories: true)
}
defer { try? FileManager.default.removeItem(atPath: work) }

let samples = options.quick ? 50 : 1000
let cpu =
    (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
    .split(separator: "\n").first { $0.hasPrefix("model name") }?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
var report = Report(machine: "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB, \(cpu)")

@MainActor func baseline(_ arguments: [String]) -> [String: Double] {
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: baselineBinary)
    process.arguments = arguments
    process.standardOutput = output
    try! process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        FileHandle.standardError.write(Data("taskline-bench: sqlite-baseline \(arguments.joined(separator: " ")) failed\n".utf8))
        exit(1)
    }
    return (try? JSONSerialization.jsonObject(with: data) as? [String: Double]) ?? [:]
}

@MainActor func spawn(_ db: String, _ extra: [String] = []) -> Driver {
    try! Driver(binary: taskline, arguments: ["--db", db, "--log-level", "error"] + extra)
}

/// Fills a new database with `count` tasks through `tasks/apply`, 1,000 at a time:
/// time-ordered ids (`benchTaskID`) and a mix of priorities, done flags, tags, due dates,
/// projects, dependencies and wait times, so that every index and filter has the work it
/// has in a real database.
@MainActor func populate(_ db: String, count: Int) -> Double {
    let server = spawn(db, ["--durability", "normal"])
    server.initialize(notifications: false)
    let elapsed = seconds {
        var lines: [String] = []
        for first in stride(from: 0, to: count, by: 1000) {
            let operations = (first..<min(count, first + 1000)).map { index in
                let choice = { (attribute: UInt64, choices: Int) in benchChoice(index, attribute, of: choices) }
                let due =
                    choice(1, 2) == 0
                    ? #","due":"2027-\#(String(format: "%02d", choice(2, 12) + 1))-\#(String(format: "%02d", choice(3, 28) + 1))""# : ""
                let project = [
                    "", #","project":"Home""#, #","project":"Home.Garage""#, #","project":"Work.Alpha""#,
                    #","project":"Work.P\#(choice(4, 97))""#,
                ][choice(5, 5)]
                // The task before it is in the same request: one in fifty depends on it.
                let dependsOn = index % 50 == 1 ? #","dependsOn":["\#(benchTaskID(index - 1))"]"# : ""
                let wait = [#","wait":"2099-01-01""#, #","wait":"2020-01-01""#, ""][min(2, choice(6, 100))]
                return #"{"create":{"id":"\#(benchTaskID(index))","title":"Task \#(index) word\#(index % 1000)","priority":\#(choice(7, 4)),"#
                    + #""done":\#(choice(8, 3) == 0),"tags":["t\#(choice(9, 10))","g\#(choice(10, 7))"]\#(due)\#(project)\#(dependsOn)\#(wait)}}"#
            }
            lines.append(server.requestLine("tasks/apply", #"{"operations":[\#(operations.joined(separator: ","))]}"#))
            if lines.count == 20 {
                server.pipeline(lines)
                lines = []
            }
        }
        if !lines.isEmpty { server.pipeline(lines) }
    }
    server.shutdown()
    return Double(count) / elapsed
}

@MainActor func measureReads(size: Int, db: String) {
    let group = size >= 1_000_000 ? "\(size / 1_000_000)M" : size >= 1000 ? "\(size / 1000)k" : "\(size)"
    let server = spawn(db)
    server.initialize()
    let count = options.quick ? 20 : 100

    let pages = baseline([db, "page", "\(count)", "\(size * 9 / 10)"])
    let gets = baseline([db, "get", "\(min(size, samples))", "\(size)"])
    let getRequests = (0..<2 * samples).map { server.request("tasks/get", #"{"id":"\#(benchTaskID(spreadTaskNumber($0, size: size)))"}"#) }
    var index = 0
    let get = {
        server.roundTrip(getRequests[index])
        index += 1
    }
    report.add(group, "get, lock-step, median", medianMicroseconds(samples, get), "µs", baseline: gets["medianMicroseconds"], target: .atMost(40))
    // What a client that sleeps while it waits sees: the same, plus waking its own CPU.
    server.pollsForAnswers = false
    report.add(group, "get, lock-step, median, driver sleeping while it waits", medianMicroseconds(samples, get), "µs")
    server.pollsForAnswers = true

    // Every page figure is sampled in the same rounds (see interleavedMedianMicroseconds):
    // a first and a deep page for each sort and filter, then the text filter and the total.
    var pageNames: [String] = []
    var bodies: [() -> Void] = []
    let filters = [("", "no filter"), (#","filter":{"done":false}"#, "done filter"), (#","filter":{"tags":["t3"]}"#, "tags filter")]
    // By due date both ways: descending reads the dated and the undated tasks in two runs.
    for (field, order) in [("createdAt", "asc"), ("updatedAt", "asc"), ("due", "asc"), ("due", "desc"), ("priority", "asc"), ("title", "asc")] {
        for (filter, filterName) in filters where field == "createdAt" || filter.isEmpty {
            let sort = #""sort":[{"field":"\#(field)","order":"\#(order)"}]"#
            let atDepth = server.call("tasks/fetch", #"{\#(sort),"limit":50,"offset":\#(size * 9 / 10)\#(filter)}"#)
            let deepParams = atDepth["nextCursor"]?.stringValue.map { #"{\#(sort),"limit":50,"cursor":"\#($0)"\#(filter)}"# }
            let firstParams = #"{\#(sort),"limit":50\#(filter)}"#
            // Each round sends the same request again: one at a time, so its id is never in doubt.
            let (first, deep) = (server.request("tasks/fetch", firstParams), server.request("tasks/fetch", deepParams ?? firstParams))
            pageNames.append("fetch 50 by \(field)\(order == "desc" ? " descending" : ""), \(filterName)")
            bodies += [{ server.roundTrip(first) }, { server.roundTrip(deep) }]
        }
    }
    let text = server.request("tasks/fetch", #"{"limit":50,"filter":{"text":"word777"}}"#)
    let total = server.request("tasks/fetch", #"{"limit":50,"includeTotal":true,"filter":{"done":false}}"#)
    bodies += [{ server.roundTrip(text) }, { server.roundTrip(total) }]
    let medians = interleavedMedianMicroseconds(count, bodies)
    for (index, name) in pageNames.enumerated() {
        let (first, deep) = (medians[2 * index], medians[2 * index + 1])
        let isBaseline = index == 0  // createdAt, no filter: what sqlite-baseline reads
        report.add(group, name + ", first page", first, "µs", baseline: isBaseline ? pages["firstPageMicroseconds"] : nil, target: .atMost(500))
        report.add(group, name + ", at 90% depth", deep, "µs", baseline: isBaseline ? pages["deepPageMicroseconds"] : nil, target: .atMost(500))
        report.add(group, name + ", deep ÷ first", deep / first, "×", target: .atMost(1.2))
    }
    report.add(group, "fetch, text filter, median", medians[2 * pageNames.count] / 1000, "ms", target: .atMost(20))
    report.add(group, "fetch with includeTotal, median", medians[2 * pageNames.count + 1] / 1000, "ms", target: .atMost(20))

    // Page through everything, then read the peak memory.
    var cursor = "null"
    let pagingTime = seconds {
        repeat {
            let page = server.call("tasks/fetch", #"{"limit":1000,"cursor":\#(cursor)}"#)
            cursor = page["nextCursor"].map { JSONWriter.string($0) } ?? "null"
        } while cursor != "null"
    }
    report.add(group, "page through all tasks, 1,000 a page", Double(size) / pagingTime, "tasks/s")
    report.add(group, "peak RSS after paging through all", Double(server.memory().peak) / 1024, "MB", target: .atMost(25))

    // Memory across many requests: resident size after 10% and after all of them.
    let requests = options.quick ? 20_000 : 1_000_000
    let chunk = 10_000
    var rssAtTenth = 0
    for round in 0..<(requests / chunk) {
        server.pipeline(
            (0..<chunk).map { server.requestLine("tasks/get", #"{"id":"\#(benchTaskID(spreadTaskNumber(round * chunk + $0, size: size)))"}"#) })
        if round == requests / chunk / 10 { rssAtTenth = server.memory().current }
    }
    report.add(
        group, "RSS after \(requests) requests ÷ after \(requests / 10)", Double(server.memory().current) / Double(max(1, rssAtTenth)), "×",
        target: .atMost(1.1))
    server.shutdown()

    var startups: [Double] = []
    for _ in 0..<(options.quick ? 5 : 20) {
        var fresh: Driver?
        startups.append(
            seconds {
                fresh = spawn(db)
                fresh?.initialize()
            })
        fresh?.write(Array(#"{"jsonrpc":"2.0","method":"exit"}"#.utf8) + [10])
        fresh?.process.waitUntilExit()
    }
    report.add(group, "spawn to initialize response, median", median(startups) * 1000, "ms", target: .atMost(10))
}

@MainActor func measureQueries(size: Int, db: String) {
    let group = size >= 1_000_000 ? "\(size / 1_000_000)M" : size >= 1000 ? "\(size / 1000)k" : "\(size)"
    let server = spawn(db)
    server.initialize(notifications: false)
    let cells = QueryMatrix.measure(server, samples: options.quick ? 3 : 21)
    report.queryMatrices.append((group, cells))
    report.add(
        group, "query matrix: cells of \(cells.count) missing the median or p99 target", Double(cells.filter { !$0.met }.count), "cells",
        target: .atMost(0))
    // The target is one filter's (`next`'s held to it too); lists of more are measured beside.
    for (filter, milliseconds) in QueryMatrix.measureTotals(server, samples: options.quick ? 3 : 21) {
        let judged = !QueryMatrix.countedLists.contains { $0.name == filter }
        report.add(group, "fetch with includeTotal, \(filter) filter, median", milliseconds, "ms", target: judged ? .atMost(20) : nil)
    }
    for (sort, milliseconds) in QueryMatrix.measureOffsets(server, offset: size / 2, samples: options.quick ? 3 : 11) {
        report.add(group, "fetch 50 at offset \(size / 2) by \(sort), median", milliseconds, "ms", target: .atMost(100))
    }
    server.shutdown()
}

@MainActor func measureWrites(size: Int, db: String) {
    let group = size >= 1_000_000 ? "\(size / 1_000_000)M" : size >= 1000 ? "\(size / 1000)k" : "\(size)"
    for durability in ["full", "normal"] {
        let writes = options.quick ? 500 : (durability == "full" ? 3000 : 10_000)
        let base = baseline([db, "insert", "\(writes)", durability])
        _ = baseline([db, "update", "\(writes)", durability])  // undo nothing; keeps both sides' tables the same size
        let server = spawn(db, ["--durability", durability])
        server.initialize()
        var lines: [String] = []
        for index in 0..<writes { lines.append(server.requestLine("tasks/create", #"{"title":"pipelined \#(index)"}"#)) }
        let rate = Double(writes) / seconds { server.pipeline(lines) }
        report.add(
            group, "create, pipelined (group commit), \(durability)", rate, "tasks/s", baseline: base["perSecond"],
            target: .ratioAtLeast(durability == "full" ? 3 : 0.9))
        // Five times the other loops' samples: 1,000 lock-step creates last a few hundredths
        // of a second, so one of the machine's slow stretches could set a run's median; the
        // baseline's come from all its writes.
        let creates = (0..<min(writes, 5 * samples)).map { _ in server.request("tasks/create", #"{"title":"lock-step"}"#) }
        var next = 0
        let lockStep = microseconds(creates.count) {
            server.roundTrip(creates[next])
            next += 1
        }
        report.add(
            group, "create, lock-step, \(durability), median", median(lockStep), "µs", baseline: base["medianMicroseconds"],
            target: durability == "normal" ? .atMost(80) : nil)
        // The commits that checkpoint themselves: in taskline once the WAL holds 4,000 frames,
        // in the baseline at SQLite's automatic 1,000.
        report.add(
            group, "create, lock-step, \(durability), 99th percentile", percentile(0.99, of: lockStep), "µs",
            baseline: base["p99Microseconds"])
        // What the median leaves out: the commits that wait for a checkpoint, or the time a
        // checkpoint beside the commits takes from them.
        report.add(group, "create, lock-step, \(durability), mean", lockStep.reduce(0, +) / Double(lockStep.count), "µs")
        server.shutdown()
    }
    // The baseline's writes and taskline's share the text index: each must leave it as its
    // content gives it (sqlite-baseline exits, and the run with it, if not).
    _ = baseline([db, "text-check"])
}

/// Undo and redo of one `tasks/apply` that updated 1,000 tasks spread over the file: each
/// reversal reads the group's 1,000 changes and snapshots and writes 1,000 tasks back, a
/// change group of its own. Undo and redo alternate, so every round reverts the same amount.
@MainActor func measureUndo(size: Int, db: String) {
    let group = size >= 1_000_000 ? "\(size / 1_000_000)M" : size >= 1000 ? "\(size / 1000)k" : "\(size)"
    let server = spawn(db, ["--durability", "normal"])
    server.initialize()
    // Titles no file holds yet: a kept file (`--databases`) may already hold the titles
    // an apply would set, which would then change nothing and leave nothing to undo. Each
    // title sorts at a place of its own, and each priority is drawn as the file's were, so
    // that every run on a kept file moves as many index entries between leaves as one on a
    // fresh file: titles sharing a prefix sit together in the title index, and on a file a
    // run has left them on, with the priorities at one value, a reversal would write a
    // fraction of the pages one on a fresh file writes.
    let run = Int(Date().timeIntervalSince1970 * 1000)
    let operations = (0..<min(size, 1000)).map { index in
        let title = "Task \(benchChoice(run, UInt64(1000 + index), of: max(size, 1000))) undo bench \(index) \(run)"
        let priority = benchChoice(run, UInt64(3000 + index), of: 4)
        return #"{"update":{"id":"\#(benchTaskID(spreadTaskNumber(index, size: size)))","changes":{"title":"\#(title)","priority":\#(priority)}}}"#
    }
    server.call("tasks/apply", #"{"operations":[\#(operations.joined(separator: ","))]}"#)
    let rounds = options.quick ? 3 : 15
    var undos: [Double] = []
    var redos: [Double] = []
    for _ in 0..<rounds {
        var answers: [JSON] = []
        undos.append(seconds { answers.append(server.call("tasks/undo")) } * 1000)
        redos.append(seconds { answers.append(server.call("tasks/redo")) } * 1000)
        for answer in answers {
            guard case .array(let tasks)? = answer["tasks"], tasks.count == operations.count else {
                FileHandle.standardError.write(Data("taskline-bench: an undo or redo did not revert the \(operations.count) tasks\n".utf8))
                exit(1)
            }
        }
    }
    report.add(group, "undo of a 1,000-change group (tasks/apply), median", median(undos), "ms", target: .atMost(100))
    report.add(group, "redo of it, median", median(redos), "ms")
    // The same a second apart, as a person would undo: each reversal's checkpoint (a sync
    // of the pages it wrote, on the server's own thread) is over before the next begins.
    var paused: [Double] = []
    for _ in 0..<(options.quick ? 2 : 7) {
        for method in ["tasks/undo", "tasks/redo"] {
            Thread.sleep(forTimeInterval: 1)
            paused.append(seconds { _ = server.call(method) } * 1000)
        }
    }
    report.add(group, "undo or redo a second after the last, median", median(paused), "ms")
    server.shutdown()
}

/// Two servers on one file: how soon one hears of the other's commits, and what a watching
/// server costs while nothing happens.
@MainActor func measureLiveNotifications() {
    let db = work + "/live.sqlite"
    let listener = spawn(db)
    listener.initialize()
    let writer = spawn(db, ["--durability", "normal"])
    writer.initialize(notifications: false)
    var latencies: [Double] = []
    for index in 0..<(options.quick ? 50 : 500) {
        writer.call("tasks/create", #"{"title":"live \#(index)"}"#)
        // The commit came just before the writer's answer: time from there to the listener's news.
        latencies.append(seconds { listener.readNotification() } * 1000)
        usleep(2_000)
    }
    latencies.sort()
    report.add("live", "other process's change to notification, median", latencies[latencies.count / 2], "ms", target: .atMost(50))
    report.add("live", "other process's change to notification, 99th percentile", latencies[latencies.count * 99 / 100], "ms", target: .atMost(250))
    writer.shutdown()

    let idleSeconds: UInt32 = options.quick ? 5 : 60
    let before = listener.cpuSeconds()
    sleep(idleSeconds)
    // The kernel counts CPU time in ticks of 10 ms: one tick in a minute is 0.017% of a core.
    let idleCPU = listener.cpuSeconds() - before
    report.add(
        "live", "CPU of a watching server idle for \(idleSeconds) s, % of one core", idleCPU / Double(idleSeconds) * 100, "%",
        target: .atMost(0.1))
    listener.shutdown()
}

@MainActor func measureTaskwarrior() {
    guard let task = ["/usr/bin/task", "/usr/local/bin/task"].first(where: FileManager.default.isExecutableFile) else { return }
    let data = work + "/taskwarrior"
    try? FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: data + "/taskrc", contents: Data("data.location=\(data)\nconfirmation=off\n".utf8))
    let perTask = medianMicroseconds(20) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: task)
        process.arguments = ["rc:" + data + "/taskrc", "add", "reference task"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
        process.waitUntilExit()
    }
    report.add("ref", "Taskwarrior `task add`, per task", perTask / 1000, "ms")
}

for size in options.sizes {
    let db = (options.databases ?? work) + "/tasks-\(size).sqlite"
    let group = size >= 1_000_000 ? "\(size / 1_000_000)M" : size >= 1000 ? "\(size / 1000)k" : "\(size)"
    if options.databases != nil && FileManager.default.fileExists(atPath: db) {
        FileHandle.standardError.write(Data("size \(size): reusing \(db)\n".utf8))
        // A file an older build populated is brought to this build's schema before the
        // baseline, which expects its tables, opens it.
        let server = spawn(db)
        server.initialize()
        // Each writes part adds its tasks to a kept file: past its size, every figure of it
        // is of a larger file than its label says.
        if case .integer(let count) = server.call("tasks/fetch", #"{"limit":1,"includeTotal":true}"#)["total"], Int(count) != size {
            FileHandle.standardError.write(
                Data(
                    """
                    size \(size): the kept file holds \(count) tasks, and its figures are of them; \
                    delete it for a file of \(size)

                    """.utf8))
        }
        server.shutdown()
    } else {
        FileHandle.standardError.write(Data("size \(size): populating…\n".utf8))
        report.add(group, "populate with tasks/apply, 1,000 per request", populate(db, count: size), "tasks/s")
    }
    let before = CPUTimes.now()
    if options.runs("reads") { measureReads(size: size, db: db) }
    if options.runs("queries") { measureQueries(size: size, db: db) }
    if options.runs("writes") {
        measureWrites(size: size, db: db)
        measureUndo(size: size, db: db)
    }
    report.add(group, "CPU time stolen by the hypervisor while measuring", CPUTimes.now().stolenPercent(since: before), "%")
}
if options.runs("live") {
    measureLiveNotifications()
    measureTaskwarrior()
}

print("Machine: \(report.machine)")  // stdout-ok: the benchmark's report
print(report.table)  // stdout-ok
for (size, cells) in report.queryMatrices {
    print(
        "\nQuery matrix, \(size): first page · middle page, median/p99 ms; a miss of ≤ \(format(QueryMatrix.medianTarget))/\(format(QueryMatrix.p99Target)) in bold"
    )  // stdout-ok
    print(QueryMatrix.table(cells))  // stdout-ok
}
if let path = options.jsonPath {
    try report.json.write(toFile: path, atomically: true, encoding: .utf8)
}
