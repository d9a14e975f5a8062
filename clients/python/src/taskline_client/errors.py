"""The exception hierarchy, rooted at `TasklineError`, and the mapping from
JSON-RPC error objects to it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .models import Task


class TasklineError(Exception):
    """Base class of everything this package raises on purpose."""


class ServerNotFound(TasklineError):
    """No taskline executable was found (argument, TASKLINE_SERVER, PATH)."""


class ServerExited(TasklineError):
    """The server process ended, or was stopped because it misbehaved."""

    def __init__(self, returncode: int | None, stderr_tail: str = "", problem: str = "") -> None:
        if problem:
            status = problem
        elif returncode is None:
            status = "closed its output"
        else:
            status = f"exited with code {returncode}"
        message = f"taskline server {status}"
        if stderr_tail:
            message += f"; its last stderr output:\n{stderr_tail}"
        super().__init__(message)
        self.returncode = returncode
        self.stderr_tail = stderr_tail


class UnsupportedTimestamp(TasklineError, ValueError):
    """A valid RFC 3339 time that Python's `datetime` cannot hold (the year 0000,
    a leap second), or text that is no RFC 3339 time at all. `text` is the value
    as the server sent it."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(f"cannot read the time {text!r}: {reason}")
        self.text = text


class UnsendableRequest(TasklineError, ValueError):
    """A request was not sent because the server would reject it unread: a
    string that is not well-formed Unicode (a lone surrogate), or a message
    larger than the server's `max_message_bytes`. Nothing reached the server."""

    def __init__(self, method: str, reason: str) -> None:
        super().__init__(f"{method} was not sent: {reason}")
        self.method = method
        self.reason = reason


class Timeout(TasklineError, TimeoutError):
    """A request got no response in time (it is cancelled on the server)."""

    def __init__(self, method: str, seconds: float) -> None:
        super().__init__(f"{method} got no response within {seconds:g} s")
        self.method = method
        self.seconds = seconds


class ServerError(TasklineError):
    """The server answered a request with a JSON-RPC error."""

    code: int

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message
        self.data = data

    @property
    def operation(self) -> int | None:
        """In an atomic `apply` that failed, the index of the operation that
        failed (from `data.operation`, or from the `operations[i]` that begins
        an `InvalidParams` field); None otherwise."""
        index = self._data_member("operation")
        if isinstance(index, int) and not isinstance(index, bool):
            return index
        field = self._data_text("field")
        match = _OPERATION_FIELD.match(field) if field is not None else None
        return int(match.group(1)) if match else None

    def _data_member(self, name: str) -> Any:
        return self.data.get(name) if isinstance(self.data, Mapping) else None

    def _data_text(self, name: str) -> str | None:
        value = self._data_member(name)
        return value if isinstance(value, str) else None


class ProtocolError(ServerError):
    """Any error code without a class of its own (-32700, -32600, -32603, …)."""


class TaskNotFound(ServerError):
    code = 1001

    @property
    def task_id(self) -> str | None:
        return self._data_text("id")


class VersionConflict(ServerError):
    """`if_version` did not match; `current` is the task as it is now."""

    code = 1002

    @property
    def current(self) -> Task | None:
        """The task as it is now; raises `UnsupportedTimestamp` for a task
        Python cannot hold (read when asked, so the error itself always arrives)."""
        from .models import Task

        task = self._data_member("task")
        return None if task is None else Task.from_wire(task)


class TaskAlreadyExists(ServerError):
    code = 1003

    @property
    def task_id(self) -> str | None:
        return self._data_text("id")


class StorageError(ServerError):
    """The database failed (protocol §7). `kind` says what failed on either store (`busy`,
    `readOnly`, `full`, `corrupt`, `storedDataOutOfRange`, `unreachable`, `other`) and
    `retryable` whether the same request may succeed if sent again; `data` also holds
    `code` and `extendedCode` (SQLite's result codes) and the database's `message`."""

    code = 1004

    @property
    def kind(self) -> str | None:
        return self._data_text("kind")

    @property
    def retryable(self) -> bool:
        return self._data_member("retryable") is True


class HistoryExpired(ServerError):
    """`changes(since)` asked for changes older than the server still keeps
    (`--history-days`): refetch everything with `fetch`/`iter_tasks` instead.
    `oldest_seq` is the oldest seq it still holds."""

    code = 1005

    @property
    def oldest_seq(self) -> int | None:
        value = self._data_member("oldestSeq")
        return value if isinstance(value, int) and not isinstance(value, bool) else None


class InvalidParams(ServerError):
    """`field` is the dotted path of the offending member ("" for all params)."""

    code = -32602

    @property
    def field(self) -> str | None:
        return self._data_text("field")


class MethodNotFound(ServerError):
    code = -32601


class ServerNotInitialized(ServerError):
    code = -32002


class RequestCancelled(ServerError):
    code = -32800


class UndoConflict(ServerError):
    """`undo()` or `redo()` found tasks of the group changed since, and reverted
    nothing (pass `force=True` to revert anyway). `tasks` are those tasks as they
    are now; `deleted` the ids of those that no longer exist."""

    code = 1007

    @property
    def tasks(self) -> tuple[Task, ...]:
        from .models import Task

        tasks = self._data_member("tasks")
        return tuple(Task.from_wire(task) for task in tasks) if isinstance(tasks, list) else ()

    @property
    def deleted(self) -> tuple[str, ...]:
        deleted = self._data_member("deleted")
        return tuple(deleted) if isinstance(deleted, list) else ()


_OPERATION_FIELD = re.compile(r"operations\[(\d+)\]")

_CLASS_BY_CODE: dict[int, type[ServerError]] = {
    cls.code: cls
    for cls in (
        TaskNotFound,
        VersionConflict,
        TaskAlreadyExists,
        StorageError,
        HistoryExpired,
        UndoConflict,
        InvalidParams,
        MethodNotFound,
        ServerNotInitialized,
        RequestCancelled,
    )
}


def error_from_wire(error: Mapping[str, Any]) -> ServerError:
    """Turn the `error` member of a response into the matching exception."""
    code = error.get("code")
    cls = _CLASS_BY_CODE.get(code, ProtocolError) if isinstance(code, int) else ProtocolError
    return cls(code if isinstance(code, int) else 0, str(error.get("message", "")), error.get("data"))
