// swift-tools-version:6.0
import PackageDescription

/// Nonisolated async functions run on their caller's executor rather than hopping to the
/// global one: the server, the method types and the store all stay on the store's thread.
let sameExecutor: [SwiftSetting] = [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let package = Package(
    name: "Taskline",
    products: [
        .executable(name: "taskline", targets: ["taskline"])
    ],
    targets: [
        // The SQLite C library, as the system installs it (Debian: libsqlite3-dev).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // libpq, PostgreSQL's C client library: its header as the system installs it (Debian:
        // libpq-dev), the library itself (libpq.so.5) loaded when the first PostgreSQL
        // connection opens, so that a process serving SQLite maps none of it.
        // dlopen and pthread_once are libc's from glibc 2.34, libdl's and libpthread's before.
        .target(name: "CLibPQ", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        // Leveled log lines on stderr: stdout belongs to the protocol.
        .target(name: "Logging"),
        // A thin, honest Swift layer over the C API: connections, statements, errors.
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        // A thin, honest Swift layer over libpq: connections, parameterised queries, rows read
        // by column name, errors with their SQLSTATE, transactions, LISTEN/NOTIFY, redaction.
        .target(name: "PostgreSQL", dependencies: ["CLibPQ"]),
        // pidfd_open(2) and ppoll(2), which Swift's Glibc module does not offer.
        .target(name: "CEventLoop"),
        // The process's one event loop: descriptors, timers, a wake-up, and the actors' executor.
        .target(name: "EventLoop", dependencies: ["CEventLoop", "Logging"]),
        // The task model, its rules and errors, and `TaskStoring`, what the server asks of a
        // store about tasks: shared by the stores, none of whose databases it knows.
        .target(name: "TaskModel"),
        // `ServedStore`, what serving a store takes beyond its operations on tasks: the event
        // loop it runs on, the watch for other writers, the checkpoint and close at exit.
        .target(name: "StoreServing", dependencies: ["TaskModel", "EventLoop"]),
        // Taskline's process-wide settings for the C library and SQLite (CSQLite's shim), made
        // at a process's start: taskline's main and the harnesses (power loss, fuzzing) call it.
        .target(name: "ProcessSetup", dependencies: ["CSQLite", "Logging"]),
        // The task rules a write follows (checks, versions, completion and the next occurrence,
        // dependents, change groups), written once over `StorageDriver`, the storage
        // primitives each store implements with its SQL.
        .target(name: "TaskEngine", dependencies: ["TaskModel"], swiftSettings: sameExecutor),
        // The store on SQLite: the actor that owns the database.
        .target(
            name: "TaskStore", dependencies: ["TaskModel", "TaskEngine", "StoreServing", "SQLite", "EventLoop", "Logging"],
            swiftSettings: sameExecutor),
        // The store on PostgreSQL: the same interface, over the PostgreSQL module.
        .target(
            name: "PostgresStore", dependencies: ["TaskModel", "TaskEngine", "StoreServing", "PostgreSQL", "EventLoop", "Logging"],
            swiftSettings: sameExecutor),
        // JSON text: a strict parser, the writers, and a reader of a stream of records.
        .target(name: "JSON"),
        // JSON-RPC 2.0 over a byte stream: framing, messages, the one writer, and the
        // connection, a source of the event loop. Knows nothing of tasks.
        .target(name: "JSONRPC", dependencies: ["JSON", "EventLoop", "Logging"]),
        // The Taskline protocol: lifecycle, method table, params, notifications.
        .target(
            name: "TasklineServer", dependencies: ["JSON", "JSONRPC", "TaskModel", "StoreServing", "EventLoop", "Logging", "PeopleLanguage"],
            swiftSettings: sameExecutor),
        // What people type for a task (title words, +tag, due:fri, pri:H, recur:monthly) and the
        // way dates are shown to them: pure functions of the text, the time and the time zone,
        // shared by the command line and the server's `tasks/parse`.
        .target(name: "PeopleLanguage", dependencies: ["TaskModel"]),
        .executableTarget(
            name: "taskline",
            dependencies: [
                "TasklineServer", "TaskModel", "TaskStore", "PostgresStore", "PostgreSQL", "StoreServing", "ProcessSetup", "JSON",
                "JSONRPC", "EventLoop", "Logging", "PeopleLanguage",
            ],
            // The Swift runtime linked in: an editor spawns taskline often, and loading the
            // runtime's shared libraries is most of a Swift program's start-up time.
            linkerSettings: [.unsafeFlags(["-static-stdlib"])]
        ),

        // Benchmarks: `swift build -c release` builds both; see README's Performance section.
        .executableTarget(name: "sqlite-baseline", dependencies: ["CSQLite"], path: "Benchmarks/sqlite-baseline"),
        .executableTarget(name: "taskline-bench", dependencies: ["JSON"], path: "Benchmarks/taskline-bench"),
        .executableTarget(name: "postgres-bench", dependencies: ["JSON", "PostgreSQL"], path: "Benchmarks/postgres-bench"),

        // Fuzzing: the harness (one input through the connection, the server and an in-memory
        // store) and the libFuzzer target around it; see scripts/fuzz.
        .target(
            name: "FuzzHarness",
            dependencies: [
                "EventLoop", "JSON", "JSONRPC", "SQLite", "TaskModel", "TaskStore", "TasklineServer", "ProcessSetup", "Logging",
            ],
            path: "Fuzz/FuzzHarness", swiftSettings: sameExecutor),
        .executableTarget(name: "taskline-fuzz", dependencies: ["FuzzHarness"], path: "Fuzz/taskline-fuzz"),

        // Power loss: a VFS that simulates it beneath SQLite, and a driver that checks a
        // workload's files at every crash point; see Tests/PowerLoss and scripts/test.
        .target(name: "CCrashVFS", dependencies: ["CSQLite"], path: "Tests/PowerLoss/CCrashVFS"),
        .executableTarget(
            name: "taskline-powerloss",
            dependencies: ["TaskModel", "TaskStore", "ProcessSetup", "EventLoop", "SQLite", "CSQLite", "CCrashVFS", "TestSupport"],
            path: "Tests/PowerLoss/taskline-powerloss"),

        // Temporary folders, fresh databases of either store, a driver for the real binary and a
        // seeded generator, shared by the test targets and the power-loss driver.
        .target(name: "CTestSupport", path: "Tests/CTestSupport"),
        .target(
            name: "TestSupport", dependencies: ["EventLoop", "JSON", "JSONRPC", "CTestSupport", "PostgreSQL"], path: "Tests/TestSupport"),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "CSQLite", "TestSupport"]),
        .testTarget(name: "EventLoopTests", dependencies: ["EventLoop", "TestSupport"]),
        .testTarget(
            name: "TaskStoreTests", dependencies: ["TaskModel", "TaskStore", "ProcessSetup", "EventLoop", "SQLite", "CSQLite", "TestSupport"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "JSONRPCTests", dependencies: ["JSONRPC", "JSON"]),
        .testTarget(name: "TasklineServerTests", dependencies: ["TasklineServer", "TaskModel", "TaskStore", "JSON", "JSONRPC", "EventLoop"]),
        .testTarget(name: "EndToEndTests", dependencies: ["JSON", "JSONRPC", "SQLite", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "FuzzTests", dependencies: ["FuzzHarness"]),
        .testTarget(name: "PeopleLanguageTests", dependencies: ["PeopleLanguage", "TaskModel"]),
        // Against a real cluster: run inside scripts/with-postgres, or they skip.
        .testTarget(name: "PostgreSQLTests", dependencies: ["PostgreSQL"]),
        // The store, and the real binary serving it, against a real cluster: run inside
        // scripts/with-postgres, or they skip.
        .testTarget(
            name: "PostgresStoreTests",
            dependencies: ["PostgresStore", "TaskStore", "TaskModel", "PostgreSQL", "EventLoop", "JSON", "TestSupport"]),
    ]
)
