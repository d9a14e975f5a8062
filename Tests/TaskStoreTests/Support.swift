import EventLoop
import TaskModel
import TaskStore
import TestSupport

/// `loop`: the store's executor, which the caller stops; nil, a loop of the store's own.
func makeStore(
    _ directory: TemporaryDirectory, name: String = "tasks.sqlite", clock: ManualClock = ManualClock(),
    options: StoreOptions = StoreOptions(durability: .normal), loop: EventLoop? = nil
) throws -> TaskStore {
    try TaskStore(path: directory.file(name), options: options, loop: loop, clock: { clock.read() })
}
