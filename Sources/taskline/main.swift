import EventLoop
import JSONRPC
import Logging
import PostgresStore
import ProcessSetup
import StoreServing
import TaskStore
import TasklineServer

#if canImport(Glibc)
import Glibc
#endif

// A client that goes away must not kill us with SIGPIPE: the write fails with EPIPE
// instead, and the server finishes cleanly.
signal(SIGPIPE, SIG_IGN)

// The libraries' process-wide settings, before anything opens a store: SQLite takes its
// own only before it initializes.
ProcessSetup.configureLibraries()

// `taskline export`, `taskline add`, …: a command runs instead of the server.
if let status = Subcommands.runWaiting(Array(CommandLine.arguments.dropFirst())) {
    exit(status)
}

let options: CommandLineOptions
do {
    options = try CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    Log.error("\(error.message) (see taskline --help)")
    exit(2)
}

switch options.action {
case .help:
    print(CommandLineOptions.usage)  // stdout-ok: asked for, and no protocol runs
    exit(0)
case .version:
    print("taskline \(TasklineVersion.server) (protocol \(TasklineVersion.proto))")  // stdout-ok
    exit(0)
case .serve:
    // Someone typed `taskline` at a prompt: say what this is, and serve all the same.
    if isatty(STDIN_FILENO) == 1 {
        note("this is the Taskline server, reading JSON-RPC on stdin; for the command line see taskline --help (Ctrl-D ends)")
    }
}

Log.level = options.logLevel

// The protocol owns stdout. Keep a private duplicate of it for the one writer and point
// fd 1 at stderr, so a stray write from anywhere (a library, a debug print) can never
// corrupt the message stream.
let protocolFD = dup(STDOUT_FILENO)
guard protocolFD >= 0, dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else {
    Log.error("cannot set up stdout: \(String(cString: strerror(errno)))")
    exit(1)
}
_ = fcntl(protocolFD, F_SETFD, FD_CLOEXEC)

// One loop does the work: it reads and writes the protocol, runs the server and the store,
// and wakes for the database watch, the client's exit and the timers.
let loop = EventLoop(idleSpinNanoseconds: UInt64(options.idleSpinMicroseconds) * 1000)
let connection = Connection(
    inputFD: STDIN_FILENO, outputFD: protocolFD,
    options: Connection.Options(framing: options.framing, maxMessageBytes: options.maxMessageBytes), loop: loop)

let location = StoreLocation(options.databasePath)
let store: any ServedStore
do {
    switch location {
    case .sqlite(let path):
        var storeOptions = options.store
        storeOptions.backgroundCheckpoints = true
        storeOptions.idleTextIndexMerging = true
        store = try TaskStore(path: path, options: storeOptions, loop: loop)
    case .postgresql(let connectionString):
        store = try PostgresTaskStore(
            connectionString: connectionString,
            lockTimeoutMilliseconds: options.store.busyTimeoutMilliseconds, loop: loop)
    }
} catch {
    Log.error("\(error)")
    exit(3)
}
Log.info("serving \(location)")

let server = Server(
    store: store, writer: connection.writer,
    options: Server.Options(
        maxMessageBytes: options.maxMessageBytes, historyRetention: Int64(options.historyDays) * 86_400_000))
connection.start(receive: server.receive, onEnd: server.inputEnded)
// The loop is also the task's preferred executor: a continuation it resumes (the server
// waiting for input) then runs on the loop directly, not via a pool thread.
Task(executorPreference: loop) {
    let code = await server.run()
    // SQLite checkpoints when the last connection closes, which exit() never does: the
    // file named by --db then holds all the data by itself (a copy of it is complete), and
    // the next start has no WAL to replay. The connection is left open, and so are the
    // -wal and -shm files, without which a database in a read-only folder cannot be opened.
    do {
        try await store.checkpoint()
    } catch {
        Log.info("could not checkpoint the database before exiting: \(error)")
    }
    loop.stop(exitCode: code)
}
let code = loop.run()
connection.writer.drain()
exit(code)
