"""What both clients do the same way: the server's command line, the
`initialize` params, routing what the server sends, and keeping the tail of its
stderr."""

from __future__ import annotations

import collections
import logging
import os
import threading
from collections.abc import Sequence
from typing import Any, Callable, Union

from . import __version__
from .discovery import PathArg, find_server
from .models import DidChange, DidMissChanges, Remind
from .rpc import Notification, PendingCalls, Response, classify

#: Default seconds to wait for any single response.
DEFAULT_TIMEOUT = 10.0
#: Seconds the server gets to exit after `shutdown` + `exit` before it is killed.
EXIT_GRACE = 2.0
CLIENT_NAME = "taskline-client"

_log = logging.getLogger(__name__)
_server_log = logging.getLogger("taskline_client.server")

MessageObserver = Callable[[Any], None]
#: What the change callbacks and streams get, in the order the server sent them.
ChangeNotification = Union[DidChange, DidMissChanges]

_CHANGE_NOTIFICATIONS: dict[str, Callable[[Any], ChangeNotification]] = {
    "tasks/didChange": DidChange.from_wire,
    "tasks/didMissChanges": DidMissChanges.from_wire,
}


def server_command(server: PathArg | None, db: PathArg | None, args: Sequence[str]) -> list[str]:
    command = [find_server(server)]
    if db is not None:
        command += ["--db", os.fspath(db)]
    return command + list(args)


def initialize_params(notifications: bool, reminders: bool) -> dict[str, Any]:
    options: dict[str, Any] = {"notifications": notifications}
    if reminders:
        options["reminders"] = True
    return {
        "processId": os.getpid(),
        "clientInfo": {"name": CLIENT_NAME, "version": __version__},
        "initializationOptions": options,
    }


def route_message(
    message: Any,
    pending: PendingCalls[Any],
    deliver_change: Callable[[ChangeNotification], None],
    observer: MessageObserver | None,
    deliver_remind: Callable[[Remind], None] | None = None,
) -> None:
    """Hand one message from the server to whoever waits for it. Whatever the
    message carries, this returns: a response that cannot be read fails its
    call, a notification that cannot be read becomes a `DidMissChanges` for
    the changes it carried (reason "unreadable"), so the reader goes on."""
    if observer is not None:
        run_guarded(observer, message)
    try:
        event = classify(message)
    except Exception as error:
        _log.exception("cannot read a message from the server: %r", message)
        if isinstance(message, dict):
            pending.fail(message.get("id"), error)
        return
    if isinstance(event, Response):
        if event.id is None and event.error is not None:
            _log.warning("the server rejected something we sent: %s", event.error)
        pending.resolve(event)
    elif isinstance(event, Notification) and event.method in _CHANGE_NOTIFICATIONS:
        try:
            notification = _CHANGE_NOTIFICATIONS[event.method](event.params)
        except Exception:
            _log.exception("cannot read a %s: %r", event.method, event.params)
            missed = _missed_range(event.params)
            if missed is None:
                return
            notification = missed
        deliver_change(notification)
    elif isinstance(event, Notification) and event.method == "tasks/remind" and deliver_remind is not None:
        try:
            remind = Remind.from_wire(event.params)
        except Exception:
            _log.exception("cannot read a tasks/remind: %r", event.params)
            return
        deliver_remind(remind)


def _missed_range(params: Any) -> DidMissChanges | None:
    """What an unreadable `tasks/didChange` covered, when its seqs can be read."""
    try:
        first = params["changes"][0]["seq"]
        last = params["seq"]
    except (KeyError, IndexError, TypeError):
        return None
    if not (isinstance(first, int) and isinstance(last, int)):
        return None
    return DidMissChanges(since=first - 1, seq=last, reason="unreadable")


def run_guarded(callback: Callable[[Any], None], argument: Any) -> None:
    """Run user code from the reader without letting its errors stop the reader."""
    try:
        callback(argument)
    except Exception:
        _log.exception("%r raised", callback)


class StderrTail:
    """Keeps the last lines the server wrote to stderr, to explain why it exited.

    Fed raw chunks as they are read. Every line is also logged at DEBUG level on
    the `taskline_client.server` logger.
    """

    def __init__(self, max_lines: int = 20, max_line_chars: int = 500) -> None:
        self._lines: collections.deque[str] = collections.deque(maxlen=max_lines)
        self._max_line_chars = max_line_chars
        self._partial = b""
        self._lock = threading.Lock()

    def feed(self, chunk: bytes) -> None:
        *complete, self._partial = (self._partial + chunk).split(b"\n")
        for raw_line in complete:
            self._add(raw_line)

    def finish(self) -> None:
        """Keep an unterminated last line, once the stream has ended."""
        if self._partial:
            self._add(self._partial)
            self._partial = b""

    def text(self) -> str:
        with self._lock:
            return "\n".join(self._lines)

    def _add(self, raw_line: bytes) -> None:
        line = raw_line.decode("utf-8", errors="replace").rstrip("\r")
        _server_log.debug("%s", line)
        with self._lock:
            self._lines.append(line[: self._max_line_chars])
