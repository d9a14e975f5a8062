"""The synchronous client: one server process, a reader thread, blocking calls."""

from __future__ import annotations

import concurrent.futures
import os
import queue
import subprocess
import sys
import threading
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any, Callable, TypeVar

from . import calls
from .discovery import PathArg
from .errors import ServerExited, TasklineError, Timeout
from .framing import FrameDecoder, FramingError
from .models import Change, ChangesPage, FetchPage, Remind, Reversal, ServerInfo, Task
from .operations import OperationLike, OperationResult, apply_call
from .rpc import PendingCalls, cancel_frame, notification_frame, request_frame
from .session import (
    DEFAULT_TIMEOUT,
    EXIT_GRACE,
    ChangeNotification,
    MessageObserver,
    StderrTail,
    initialize_params,
    route_message,
    run_guarded,
    server_command,
)

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from typing import Unpack
    else:
        from typing_extensions import Unpack

ChangeCallback = Callable[[ChangeNotification], None]
RemindCallback = Callable[[Remind], None]

_Result = TypeVar("_Result")
_READ_SIZE = 65536


class Client:
    """Spawns `taskline`, initializes it, and exposes the `tasks/*` methods.

    Use it as a context manager, or call `close()`; an unclosed client shuts its
    server down when it is garbage collected or at interpreter exit.

    `tasks/didChange` notifications (`DidChange`) go to the callbacks registered
    with `on_change`, and so do `tasks/didMissChanges` (`DidMissChanges`), in
    their place, when the server could not send some changes. They run on the
    client's reader thread: keep them short, and do not call this client from
    inside one (hand the work to another thread).

    `reminders=True` asks the server for `tasks/remind` notifications
    (`initializationOptions.reminders`): a task's `remind_at` has passed. Each
    reaches `on_remind`, if given, as a `Remind`, and `message_observer`.
    `on_remind` alone asks for them too. It is set before `initialize`, so it
    also gets the reminders that passed while no client asked for them, and it
    runs on the reader thread, with the same rules as the change callbacks.

    `message_observer`, if given, sees every message the server sends, as
    decoded JSON, on the reader thread (meant for debugging and tests, and for
    notifications this client does not read itself).

    `reminders=True` asks the server for `tasks/remind` notifications
    (`initializationOptions.reminders`); they reach `message_observer`. A server
    without reminders ignores the request.
    """

    def __init__(
        self,
        db: PathArg | None = None,
        *,
        server: PathArg | None = None,
        args: Sequence[str] = (),
        timeout: float = DEFAULT_TIMEOUT,
        notifications: bool = True,
        reminders: bool = False,
        message_observer: MessageObserver | None = None,
        on_remind: RemindCallback | None = None,
    ) -> None:
        self.timeout = timeout
        self._connection = _Connection(server_command(server, db, args), message_observer, on_remind)
        self._finalizer = weakref.finalize(self, self._connection.close)
        try:
            wants_reminders = reminders or on_remind is not None
            result = self._connection.request("initialize", initialize_params(notifications, wants_reminders), timeout)
            self._connection.notify("initialized", {})
        except BaseException:
            self._finalizer.detach()
            self._connection.abort()
            raise
        self.server_info = ServerInfo.from_wire(result)
        self._connection.max_message_bytes = self.server_info.max_message_bytes

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def process(self) -> subprocess.Popen[bytes]:
        return self._connection.process

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def close(self) -> None:
        """Send `shutdown` and `exit`, and wait for the server to end (killing it
        if it does not within a grace period). Calling it again does nothing.

        Called from a change callback (on the reader thread), it sends them and
        returns at once; a thread of its own waits for the server to end."""
        self._finalizer()

    def create(self, title: str, **fields: Unpack[calls.NewTaskFields]) -> Task:
        return self._perform(calls.create(title, fields))

    def get(self, task_id: str) -> Task:
        return self._perform(calls.get(task_id))

    def fetch(self, **options: Unpack[calls.FetchOptions]) -> FetchPage:
        return self._perform(calls.fetch(options))

    def iter_tasks(self, *, page_size: int = 100, **options: Unpack[calls.PageOptions]) -> Iterator[Task]:
        """Every matching task, fetched page by page with cursors."""
        page = self.fetch(limit=page_size, **options)
        yield from page.tasks
        while page.next_cursor is not None:
            page = self.fetch(limit=page_size, cursor=page.next_cursor, **options)
            yield from page.tasks

    def update(self, task_id: str, *, if_version: int | None = None, **changes: Unpack[calls.TaskChanges]) -> Task:
        return self._perform(calls.update(task_id, changes, if_version))

    def delete(self, task_id: str, *, if_version: int | None = None) -> None:
        self._perform(calls.delete(task_id, if_version))

    def apply(self, operations: Iterable[OperationLike], atomic: bool = True) -> tuple[OperationResult, ...]:
        """Several writes (`Create`, `Update`, `Delete`) in one transaction,
        announced in one `tasks/didChange`; one result per operation, in order.

        With `atomic=True` either all are applied or none: the first failure is
        raised as it would be by the single call, with its index in
        `error.operation`. With `atomic=False` each stands alone, and a failure
        is reported in its result's `error`.
        """
        return self._perform(apply_call(operations, atomic))

    def parse(self, text: str, task_id: str | None = None) -> dict[str, Any]:
        """What `text`, words as `taskline add` takes them (`Call the bank
        +money due:fri pri:H`), would make: `tasks/create` params, in wire form;
        with `task_id`, the `tasks/update` changes `taskline modify` would make to
        that task. Writes nothing. Words the grammar refuses raise
        `InvalidParams` (field `text`) with the command line's message."""
        return self._perform(calls.parse(text, task_id))

    def undo(self, *, scope: str | None = None, force: bool = False) -> Reversal | None:
        """Reverts the newest change group (a write request or an `apply`, or a
        redo) not undone yet: this connection's (`scope="connection"`, the
        default) or any writer's (`scope="database"`). None when there is
        nothing to undo. Raises `UndoConflict` when tasks of the group changed
        since, unless `force=True`."""
        return self._perform(calls.undo(scope, force))

    def redo(self, *, scope: str | None = None, force: bool = False) -> Reversal | None:
        """Re-applies the newest undo of the scope not redone yet, unless a
        write of the scope came after it. None when there is nothing to redo;
        `UndoConflict` as for `undo()`."""
        return self._perform(calls.redo(scope, force))

    def changes(self, since: int, limit: int | None = None) -> ChangesPage:
        """The changes after `since` (a seq; 0 for the beginning), oldest first,
        at most `limit` (1–1000, default 100) of them. Raises `HistoryExpired`
        when the server no longer keeps them, and `InvalidParams` (field
        `since`) when `since` is ahead of the database (another database file)."""
        return self._perform(calls.changes(since, limit))

    def iter_changes(self, since: int, *, page_size: int = 100) -> Iterator[Change]:
        """Every change after `since`, fetched page by page until none are left."""
        page = self.changes(since, page_size)
        yield from page.changes
        while page.has_more:
            page = self.changes(page.seq, page_size)
            yield from page.changes

    def request(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        """Send any request and return its raw result."""
        return self._connection.request(method, params, self.timeout)

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Send any notification."""
        self._connection.notify(method, params)

    def on_change(self, callback: ChangeCallback) -> Callable[[], None]:
        """Call `callback` with every `tasks/didChange` and `tasks/didMissChanges`;
        returns a function that unregisters it."""
        return self._connection.add_change_callback(callback)

    def on_exit(self, callback: Callable[[ServerExited], None]) -> Callable[[], None]:
        """Call `callback` (on the reader thread) with a `ServerExited` if the
        server ends, or is stopped for sending something malformed, before
        `close()`: after it, no more changes come. Returns a function that
        unregisters it."""
        return self._connection.add_exit_callback(callback)

    def _perform(self, call: calls.Call[_Result]) -> _Result:
        return call.read_result(self.request(call.method, call.params))


class _Connection:
    """The server process and the raw JSON-RPC traffic with it.

    Frames are written by a writer thread, so that a server that stops reading
    can only make a call time out, never block it.  Kept apart from `Client` so
    that the finalizer can hold it without keeping the client alive.
    """

    def __init__(
        self, command: list[str], message_observer: MessageObserver | None, on_remind: RemindCallback | None = None
    ) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._observer = message_observer
        self._pending: PendingCalls[concurrent.futures.Future[Any]] = PendingCalls()
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._callbacks: list[ChangeCallback] = []
        self._on_remind = on_remind
        self._exit_callbacks: list[Callable[[ServerExited], None]] = []
        self._closing = False
        self.max_message_bytes: int | None = None
        self._stderr = StderrTail()
        self._writer = _daemon_thread("taskline-writer", self._write_frames)
        self._reader = _daemon_thread("taskline-reader", self._read_messages)
        self._stderr_drainer = _daemon_thread("taskline-stderr", self._drain_stderr)
        # Started only once all exist, and the reader last: once the server has
        # exited it joins the stderr drainer, which must have been started by then.
        for thread in (self._stderr_drainer, self._writer, self._reader):
            thread.start()

    def request(self, method: str, params: Mapping[str, Any] | None, timeout: float) -> Any:
        if threading.current_thread() is self._reader:
            raise RuntimeError("a change callback or message observer cannot call the client (it would deadlock)")
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        request_id = self._pending.add(future)
        try:
            self._outbox.put(request_frame(request_id, method, params, self.max_message_bytes))
        except BaseException:
            self._pending.discard(request_id)
            raise
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            raise Timeout(method, timeout) from None
        finally:
            if self._pending.discard(request_id):
                self._outbox.put(cancel_frame(request_id))

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        self._outbox.put(notification_frame(method, params, self.max_message_bytes))

    def add_change_callback(self, callback: ChangeCallback) -> Callable[[], None]:
        # Copy on write, so the reader thread can iterate without a lock.
        self._callbacks = [*self._callbacks, callback]

        def remove() -> None:
            self._callbacks = [registered for registered in self._callbacks if registered is not callback]

        return remove

    def add_exit_callback(self, callback: Callable[[ServerExited], None]) -> Callable[[], None]:
        self._exit_callbacks = [*self._exit_callbacks, callback]

        def remove() -> None:
            self._exit_callbacks = [registered for registered in self._exit_callbacks if registered is not callback]

        return remove

    def close(self) -> None:
        self._closing = True
        if threading.current_thread() is self._reader:
            # The reader cannot wait for the answer it would have to read itself.
            self._outbox.put(request_frame("shutdown", "shutdown", None))
            self._outbox.put(notification_frame("exit"))
            threading.Thread(target=self._finish, name="taskline-close").start()
            return
        try:
            self.request("shutdown", None, EXIT_GRACE)
            self.notify("exit")
        except TasklineError:
            pass  # it has exited or does not answer: _finish ends it either way
        self._finish()

    def abort(self) -> None:
        self._closing = True
        self.process.kill()
        self._finish()

    def _finish(self) -> None:
        self._outbox.put(None)  # the writer closes stdin after what is queued
        try:
            self.process.wait(EXIT_GRACE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for thread in (self._writer, self._reader, self._stderr_drainer):
            if thread is not threading.current_thread():
                thread.join()
        _close_quietly(self.process.stdout)
        _close_quietly(self.process.stderr)

    def _write_frames(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            frame = self._outbox.get()
            while frame is not None:
                stdin.write(frame)
                stdin.flush()
                frame = self._outbox.get()
        except OSError:
            pass  # the server is gone; the reader tells the callers why
        finally:
            _close_quietly(stdin)

    def _read_messages(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        decoder = FrameDecoder()
        problem = ""
        try:
            while True:
                chunk = os.read(stdout.fileno(), _READ_SIZE)
                if not chunk:
                    break
                for message in decoder.feed(chunk):
                    route_message(message, self._pending, self._deliver_change, self._observer, self._deliver_remind)
        except FramingError as error:
            problem = f"sent a malformed message ({error}) and was stopped"
            self.process.kill()
        exited = self._exit_error(problem)
        self._pending.fail_all(exited)
        if not self._closing:
            for callback in self._exit_callbacks:
                run_guarded(callback, exited)

    def _deliver_change(self, change: ChangeNotification) -> None:
        for callback in self._callbacks:
            run_guarded(callback, change)

    def _deliver_remind(self, remind: Remind) -> None:
        if self._on_remind is not None:
            run_guarded(self._on_remind, remind)

    def _drain_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        while True:
            chunk = os.read(stderr.fileno(), _READ_SIZE)
            if not chunk:
                break
            self._stderr.feed(chunk)
        self._stderr.finish()

    def _exit_error(self, problem: str = "") -> ServerExited:
        try:
            returncode: int | None = self.process.wait(EXIT_GRACE)
        except subprocess.TimeoutExpired:
            returncode = None
        self._stderr_drainer.join(EXIT_GRACE)
        return ServerExited(returncode, self._stderr.text(), problem)


def _daemon_thread(name: str, target: Callable[[], None]) -> threading.Thread:
    # Daemon threads: a client that is never closed must not keep Python running.
    return threading.Thread(target=target, name=name, daemon=True)


def _close_quietly(stream: IO[bytes] | None) -> None:
    if stream is None:
        return
    try:
        stream.close()
    except OSError:
        pass  # flushing into a pipe the server already closed
