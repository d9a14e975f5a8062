"""The asyncio client: one server process, a reader task, awaitable calls."""

from __future__ import annotations

import asyncio
import collections
import os
import sys
import warnings
import weakref
from collections.abc import AsyncIterator, Coroutine, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable, TypeVar, overload

from . import calls
from .discovery import PathArg
from .errors import ServerExited, TasklineError, Timeout
from .framing import FrameDecoder, FramingError
from .models import Change, ChangesPage, DidMissChanges, FetchPage, Remind, Reversal, ServerInfo, Task
from .operations import OperationLike, OperationResult, apply_call
from .rpc import (
    PendingCalls,
    cancel_frame,
    notification_frame,
    request_frame,
)
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


_Result = TypeVar("_Result")
_READ_SIZE = 65536
# Closes started for collected clients; asyncio only keeps weak references to tasks.
_background_closes: set[asyncio.Task[None]] = set()


class AsyncClient:
    """Spawns `taskline` on `start()` (or `async with`), initializes it, and
    exposes the `tasks/*` methods as coroutines.

    `tasks/didChange` notifications are read from `change_stream()`.
    `reminders=True` asks the server for `tasks/remind` notifications; each
    reaches `on_remind`, if given, as a `Remind`, on the event loop from the
    `initialize` answer on (so it gets the reminders that passed while no client
    asked too), and `message_observer`. `on_remind` alone asks for them too.
    `message_observer`, if given, sees every message the server sends, as
    decoded JSON (meant for debugging and tests, and for notifications this
    client does not read itself). `reminders=True` asks the server for
    `tasks/remind` notifications, which reach `message_observer`.
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
        on_remind: Callable[[Remind], None] | None = None,
    ) -> None:
        self.timeout = timeout
        self._command = server_command(server, db, args)
        self._notifications = notifications
        self._reminders = reminders or on_remind is not None
        self._on_remind = on_remind
        self._observer = message_observer
        self._connection: _Connection | None = None
        self._finalizer: weakref.finalize[[], AsyncClient] | None = None
        self._server_info: ServerInfo | None = None

    async def start(self) -> AsyncClient:
        """Spawn and initialize the server; returns the client itself."""
        if self._connection is not None:
            raise RuntimeError("this client was started already")
        connection = await _Connection.spawn(self._command, self._observer, self._on_remind)
        self._connection = connection
        try:
            result = await connection.request(
                "initialize", initialize_params(self._notifications, self._reminders), self.timeout
            )
            connection.notify("initialized", {})
        except BaseException:
            await connection.abort()
            raise
        self._server_info = ServerInfo.from_wire(result)
        connection.max_message_bytes = self._server_info.max_message_bytes
        self._finalizer = weakref.finalize(self, connection.close_when_collected)
        return self

    async def __aenter__(self) -> AsyncClient:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def server_info(self) -> ServerInfo:
        if self._server_info is None:
            raise RuntimeError("the client has not been started")
        return self._server_info

    @property
    def process(self) -> asyncio.subprocess.Process:
        return self._started().process

    @property
    def closed(self) -> bool:
        return self._finalizer is not None and not self._finalizer.alive

    async def close(self) -> None:
        """Send `shutdown` and `exit`, and wait for the server to end (killing it
        if it does not within a grace period). Calling it again does nothing."""
        if self._finalizer is not None and self._finalizer.detach() is not None:
            await self._started().close()

    async def create(self, title: str, **fields: Unpack[calls.NewTaskFields]) -> Task:
        return await self._perform(calls.create(title, fields))

    async def get(self, task_id: str) -> Task:
        return await self._perform(calls.get(task_id))

    async def fetch(self, **options: Unpack[calls.FetchOptions]) -> FetchPage:
        return await self._perform(calls.fetch(options))

    async def iter_tasks(self, *, page_size: int = 100, **options: Unpack[calls.PageOptions]) -> AsyncIterator[Task]:
        """Every matching task, fetched page by page with cursors."""
        page = await self.fetch(limit=page_size, **options)
        for task in page.tasks:
            yield task
        while page.next_cursor is not None:
            page = await self.fetch(limit=page_size, cursor=page.next_cursor, **options)
            for task in page.tasks:
                yield task

    async def update(
        self, task_id: str, *, if_version: int | None = None, **changes: Unpack[calls.TaskChanges]
    ) -> Task:
        return await self._perform(calls.update(task_id, changes, if_version))

    async def delete(self, task_id: str, *, if_version: int | None = None) -> None:
        await self._perform(calls.delete(task_id, if_version))

    async def apply(self, operations: Iterable[OperationLike], atomic: bool = True) -> tuple[OperationResult, ...]:
        """Several writes (`Create`, `Update`, `Delete`) in one transaction,
        announced in one `tasks/didChange`; one result per operation, in order.

        With `atomic=True` either all are applied or none: the first failure is
        raised as it would be by the single call, with its index in
        `error.operation`. With `atomic=False` each stands alone, and a failure
        is reported in its result's `error`.
        """
        return await self._perform(apply_call(operations, atomic))

    async def parse(self, text: str, task_id: str | None = None) -> dict[str, Any]:
        """What `text`, words as `taskline add` takes them (`Call the bank
        +money due:fri pri:H`), would make: `tasks/create` params, in wire form;
        with `task_id`, the `tasks/update` changes `taskline modify` would make to
        that task. Writes nothing. Words the grammar refuses raise
        `InvalidParams` (field `text`) with the command line's message."""
        return await self._perform(calls.parse(text, task_id))

    async def undo(self, *, scope: str | None = None, force: bool = False) -> Reversal | None:
        """Reverts the newest change group (a write request or an `apply`, or a
        redo) not undone yet: this connection's (`scope="connection"`, the
        default) or any writer's (`scope="database"`). None when there is
        nothing to undo. Raises `UndoConflict` when tasks of the group changed
        since, unless `force=True`."""
        return await self._perform(calls.undo(scope, force))

    async def redo(self, *, scope: str | None = None, force: bool = False) -> Reversal | None:
        """Re-applies the newest undo of the scope not redone yet, unless a
        write of the scope came after it. None when there is nothing to redo;
        `UndoConflict` as for `undo()`."""
        return await self._perform(calls.redo(scope, force))

    @overload
    def changes(self, since: int, limit: int | None = None) -> Coroutine[Any, Any, ChangesPage]: ...

    @overload
    def changes(self) -> ChangeStream: ...

    def changes(
        self, since: int | None = None, limit: int | None = None
    ) -> Coroutine[Any, Any, ChangesPage] | ChangeStream:
        """`await client.changes(since, limit)`: the changes after `since` (a seq;
        0 for the beginning), oldest first, at most `limit` (1–1000, default 100)
        of them. Raises `HistoryExpired` when the server no longer keeps them, and
        `InvalidParams` (field `since`) when `since` is ahead of the database.

        Without arguments it returns `change_stream()`, as it did before
        `tasks/changes` existed; that form is deprecated.
        """
        if since is None:
            warnings.warn(
                "AsyncClient.changes() without arguments is deprecated; use change_stream()",
                DeprecationWarning,
                stacklevel=2,
            )
            return self.change_stream()
        return self._perform(calls.changes(since, limit))

    async def iter_changes(self, since: int, *, page_size: int = 100) -> AsyncIterator[Change]:
        """Every change after `since`, fetched page by page until none are left."""
        page = await self.changes(since, page_size)
        for change in page.changes:
            yield change
        while page.has_more:
            page = await self.changes(page.seq, page_size)
            for change in page.changes:
                yield change

    async def request(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        """Send any request and return its raw result."""
        return await self._started().request(method, params, self.timeout)

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Send any notification."""
        self._started().notify(method, params)

    def change_stream(self, max_buffered: int = 1000) -> ChangeStream:
        """A stream of every `tasks/didChange` from now on, until it is closed or
        the client is closed. Use it as `async with client.change_stream() as stream:`.

        If the server ends before `close()`, iteration raises `ServerExited`
        once the buffered notifications are read. At most `max_buffered`
        notifications wait unread; past that the stream keeps no more and
        yields, in their place, one `DidMissChanges` with reason "overflow"
        covering all it left out (read them with `changes(since)`)."""
        return self._started().open_stream(max_buffered)

    async def _perform(self, call: calls.Call[_Result]) -> _Result:
        return call.read_result(await self.request(call.method, call.params))

    def _started(self) -> _Connection:
        if self._connection is None:
            raise RuntimeError("the client has not been started")
        return self._connection


class ChangeStream:
    """An async iterator of `DidChange`s (and `DidMissChanges`, in their place when
    the server could not send some, or the stream could hold no more) that
    buffers them until they are read."""

    def __init__(self, on_close: Callable[[ChangeStream], None], max_buffered: int) -> None:
        if max_buffered < 1:
            raise ValueError("max_buffered must be at least 1")
        self._queue: collections.deque[ChangeNotification] = collections.deque()
        self._ready = asyncio.Event()
        self._max_buffered = max_buffered
        self._missed: DidMissChanges | None = None
        self._on_close = on_close
        self._ended = False
        self._failure: ServerExited | None = None

    def __aiter__(self) -> ChangeStream:
        return self

    async def __anext__(self) -> ChangeNotification:
        while not self._queue:
            if self._missed is not None:
                missed, self._missed = self._missed, None
                return missed
            if self._ended:
                if self._failure is not None:
                    failure, self._failure = self._failure, None
                    raise failure
                raise StopAsyncIteration
            self._ready.clear()
            await self._ready.wait()
        change = self._queue.popleft()
        if self._missed is not None:
            # A place is free: the range left out goes next, ahead of anything later.
            self._queue.append(self._missed)
            self._missed = None
        return change

    async def __aenter__(self) -> ChangeStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop receiving; iteration ends after the changes already buffered."""
        self._on_close(self)
        self.end()

    def put(self, change: ChangeNotification) -> None:
        if self._ended:
            return
        if self._missed is not None:
            self._missed = _widen(self._missed, change)
        elif len(self._queue) >= self._max_buffered:
            self._missed = _widen(None, change)
        else:
            self._queue.append(change)
        self._ready.set()

    def end(self, failure: ServerExited | None = None) -> None:
        if not self._ended:
            self._ended = True
            self._failure = failure
        self._ready.set()


def _widen(missed: DidMissChanges | None, change: ChangeNotification) -> DidMissChanges:
    """The range left out, grown by `change`."""
    if isinstance(change, DidMissChanges):
        since = change.since
    else:
        since = change.changes[0].seq - 1 if change.changes else change.seq
    return DidMissChanges(since=since if missed is None else missed.since, seq=change.seq, reason="overflow")


class _Connection:
    """The server process and the raw JSON-RPC traffic with it.

    Kept apart from `AsyncClient` so that the finalizer can hold it without
    keeping the client alive.
    """

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        message_observer: MessageObserver | None,
        on_remind: Callable[[Remind], None] | None,
    ) -> None:
        self.process = process
        self._on_remind = on_remind
        self._loop = asyncio.get_running_loop()
        self._observer = message_observer
        self._pending: PendingCalls[asyncio.Future[Any]] = PendingCalls()
        self._drain_lock = asyncio.Lock()
        self._streams: set[ChangeStream] = set()
        self._closing = False
        self.max_message_bytes: int | None = None
        self._stderr = StderrTail()
        self._stderr_task = asyncio.ensure_future(self._drain_stderr())
        self._reader_task = asyncio.ensure_future(self._read_messages())

    @classmethod
    async def spawn(
        cls, command: list[str], message_observer: MessageObserver | None, on_remind: Callable[[Remind], None] | None
    ) -> _Connection:
        process = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        return cls(process, message_observer, on_remind)

    async def request(self, method: str, params: Mapping[str, Any] | None, timeout: float) -> Any:
        future: asyncio.Future[Any] = self._loop.create_future()
        request_id = self._pending.add(future)
        try:
            frame = request_frame(request_id, method, params, self.max_message_bytes)
        except BaseException:
            self._pending.discard(request_id)
            raise
        try:
            # The timeout covers the write too: a server that stops reading
            # would otherwise hold drain() forever.
            return await asyncio.wait_for(self._send_and_wait(frame, future), timeout)
        except asyncio.TimeoutError:
            raise Timeout(method, timeout) from None
        finally:
            # Also reached when the awaiting task is cancelled.
            if self._pending.discard(request_id):
                self._write_nowait(cancel_frame(request_id))

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        self._write_nowait(notification_frame(method, params, self.max_message_bytes))

    def open_stream(self, max_buffered: int) -> ChangeStream:
        stream = ChangeStream(self._streams.discard, max_buffered)
        if self._reader_task.done():
            stream.end()
        else:
            self._streams.add(stream)
        return stream

    async def close(self) -> None:
        self._closing = True
        try:
            await self.request("shutdown", None, EXIT_GRACE)
            self.notify("exit")
        except TasklineError:
            pass  # it has exited or does not answer: _finish ends it either way
        await self._finish()

    async def abort(self) -> None:
        self._closing = True
        self.process.kill()
        await self._finish()

    def close_when_collected(self) -> None:
        """Finalizer of a client that was never closed: close on its loop if it
        still runs, else ask the server to exit and let it go."""
        if self._loop.is_running():
            self._loop.call_soon_threadsafe(self._close_in_background)
            return
        # Without a running loop the transports are unusable: write to the pipe itself.
        stdin = self.process.stdin
        assert stdin is not None
        pipe = stdin.transport.get_extra_info("pipe")
        try:
            os.write(pipe.fileno(), request_frame("shutdown", "shutdown", None) + notification_frame("exit"))
            pipe.close()
        except (OSError, ValueError):
            pass  # the server is gone already, or the pipe was closed

    def _close_in_background(self) -> None:
        task = self._loop.create_task(self.close())
        _background_closes.add(task)
        task.add_done_callback(_background_closes.discard)

    async def _finish(self) -> None:
        self._close_stdin()
        try:
            await asyncio.wait_for(self.process.wait(), EXIT_GRACE)
        except asyncio.TimeoutError:
            self.process.kill()
            await self.process.wait()
        await self._reader_task
        await self._stderr_task

    def _close_stdin(self) -> None:
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()

    def _write_nowait(self, frame: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        if not stdin.is_closing():
            stdin.write(frame)

    async def _send_and_wait(self, frame: bytes, future: asyncio.Future[Any]) -> Any:
        self._write_nowait(frame)
        stdin = self.process.stdin
        assert stdin is not None
        try:
            # One drainer at a time: Python 3.9 does not allow concurrent drain().
            async with self._drain_lock:
                await stdin.drain()
        except ConnectionError:
            pass  # the server is gone; the reader fails `future` with the reason
        return await future

    async def _read_messages(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        decoder = FrameDecoder()
        problem = ""
        try:
            while True:
                chunk = await stdout.read(_READ_SIZE)
                if not chunk:
                    break
                for message in decoder.feed(chunk):
                    route_message(message, self._pending, self._deliver_change, self._observer, self._deliver_remind)
        except FramingError as error:
            problem = f"sent a malformed message ({error}) and was stopped"
            self.process.kill()
        exited = await self._exit_error(problem)
        self._pending.fail_all(exited)
        for stream in self._streams:
            stream.end(None if self._closing else exited)
        self._streams.clear()

    def _deliver_change(self, change: ChangeNotification) -> None:
        for stream in self._streams:
            stream.put(change)

    def _deliver_remind(self, remind: Remind) -> None:
        if self._on_remind is not None:
            run_guarded(self._on_remind, remind)

    async def _drain_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        while True:
            chunk = await stderr.read(_READ_SIZE)
            if not chunk:
                break
            self._stderr.feed(chunk)
        self._stderr.finish()

    async def _exit_error(self, problem: str = "") -> ServerExited:
        try:
            returncode: int | None = await asyncio.wait_for(self.process.wait(), EXIT_GRACE)
        except asyncio.TimeoutError:
            returncode = None
        await asyncio.wait({self._stderr_task}, timeout=EXIT_GRACE)
        return ServerExited(returncode, self._stderr.text(), problem)
