"""JSON-RPC 2.0 bookkeeping shared by the synchronous and the asyncio client."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from .errors import ServerError, UnsendableRequest, error_from_wire
from .framing import encode_frame


def request_frame(
    request_id: int | str, method: str, params: Mapping[str, Any] | None, max_message_bytes: int | None = None
) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return _checked_frame(method, message, max_message_bytes)


def notification_frame(
    method: str, params: Mapping[str, Any] | None = None, max_message_bytes: int | None = None
) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return _checked_frame(method, message, max_message_bytes)


def _checked_frame(method: str, message: Mapping[str, Any], max_message_bytes: int | None) -> bytes:
    """The frame of `message`, or `UnsendableRequest` for what the server would
    answer with id null (-32700, -32600) instead of answering the call."""
    try:
        frame = encode_frame(message)
    except UnicodeEncodeError:
        raise UnsendableRequest(method, "a string holds a lone surrogate (it is not well-formed Unicode)") from None
    body_bytes = len(frame) - frame.index(b"\r\n\r\n") - 4
    if max_message_bytes is not None and body_bytes > max_message_bytes:
        raise UnsendableRequest(
            method, f"it is {body_bytes} bytes, more than the server's limit of {max_message_bytes}"
        )
    return frame


def cancel_frame(request_id: int) -> bytes:
    return notification_frame("$/cancelRequest", {"id": request_id})


@dataclass(frozen=True)
class Response:
    id: Any
    result: Any
    error: ServerError | None


@dataclass(frozen=True)
class Notification:
    method: str
    params: Any


def classify(message: Any) -> Response | Notification | None:
    """Tell responses from notifications; None for anything else (e.g. a batch)."""
    if not isinstance(message, dict):
        return None
    if isinstance(message.get("method"), str) and "id" not in message:
        return Notification(message["method"], message.get("params"))
    if "result" in message or "error" in message:
        error = message.get("error")
        return Response(
            message.get("id"),
            message.get("result"),
            error_from_wire(error) if isinstance(error, dict) else None,
        )
    return None


class _Settable(Protocol):
    def done(self) -> bool: ...

    def set_result(self, result: Any) -> None: ...

    def set_exception(self, exception: BaseException) -> None: ...


_Future = TypeVar("_Future", bound=_Settable)


class PendingCalls(Generic[_Future]):
    """Requests awaiting their response, each with the future that gets it.

    Works for `concurrent.futures.Future` (set from the reader thread) and for
    `asyncio.Future` (set on the loop): each single dict operation is atomic.
    """

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self._futures: dict[int, _Future] = {}
        self._failure: BaseException | None = None

    def add(self, future: _Future) -> int:
        """Register a request and return its id; raises once `fail_all` ran."""
        request_id = next(self._ids)
        self._futures[request_id] = future
        # Checked after inserting, so a concurrent fail_all cannot miss it.
        if self._failure is not None:
            self._futures.pop(request_id, None)
            raise self._failure
        return request_id

    def discard(self, request_id: int) -> bool:
        """Forget a request; True if it was still waiting for its response."""
        return self._futures.pop(request_id, None) is not None

    def resolve(self, response: Response) -> None:
        future = self._futures.pop(response.id, None) if isinstance(response.id, int) else None
        if future is None or future.done():
            return  # the caller gave up on it (timeout or cancellation)
        if response.error is not None:
            future.set_exception(response.error)
        else:
            future.set_result(response.result)

    def fail(self, request_id: Any, error: BaseException) -> None:
        """Fail one waiting request (if it still waits) with `error`."""
        future = self._futures.pop(request_id, None) if isinstance(request_id, int) else None
        if future is not None and not future.done():
            future.set_exception(error)

    def fail_all(self, error: BaseException) -> None:
        """Fail every waiting request, and every later `add`, with `error`."""
        self._failure = error
        while True:
            try:
                _, future = self._futures.popitem()
            except KeyError:
                return
            if not future.done():
                future.set_exception(error)
