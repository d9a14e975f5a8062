"""Helpers shared by the tests (fixtures live in conftest.py)."""

from __future__ import annotations

import asyncio
import json
import os
import select
import shlex
import stat
import subprocess
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, Callable, TypeVar

from taskline_client import Task
from taskline_client.framing import FrameDecoder, encode_frame

_T = TypeVar("_T")


def run(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run an async test body (no pytest plugin needed)."""
    return asyncio.run(coroutine)


def oldest_first(tasks: list[Task]) -> list[Task]:
    """Tasks in the server's default order: by creation time, then id. Tasks made in the same
    millisecond need not come back in the order they were made: the contract breaks ties by id."""
    return sorted(tasks, key=lambda task: (task.created_at, task.id))


def write_script(path: Path, body: str) -> Path:
    """An executable /bin/sh script, e.g. a stand-in or a wrapper for the server."""
    path.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def stdin_logging_server(server: str, tmp_path: Path) -> tuple[Path, Path]:
    """A wrapper of the server that logs what it reads; returns it and the log."""
    stdin_log = tmp_path / "server-stdin"
    wrapper = write_script(
        tmp_path / "taskline-logging-stdin", f'tee {shlex.quote(str(stdin_log))} | exec {shlex.quote(server)} "$@"'
    )
    return wrapper, stdin_log


def initialization_options(stdin_log: Path) -> Any:
    """The `initializationOptions` of the first message in a log of the server's stdin."""
    header, _, rest = stdin_log.read_bytes().partition(b"\r\n\r\n")
    length = int(header.split(b":")[1])
    return json.loads(rest[:length])["params"]["initializationOptions"]


def process_is_gone(pid: int) -> bool:
    """True once the process has ended (a zombie nobody has reaped counts as ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


class Recorder:
    """A callback that keeps what it is called with, and can wait for it."""

    def __init__(self) -> None:
        self.calls: list[Any] = []
        self._condition = threading.Condition()

    def __call__(self, argument: Any) -> None:
        with self._condition:
            self.calls.append(argument)
            self._condition.notify_all()

    def wait_for(self, count: int, timeout: float = 5.0) -> list[Any]:
        with self._condition:
            self._condition.wait_for(lambda: len(self.calls) >= count, timeout)
            return list(self.calls)


class RawServer:
    """The real server spoken to without the client library, for what the
    library never sends on its own (requests before `initialize`, cancellation)."""

    def __init__(self, server: str, db: Path, observer: Callable[[Any], None]) -> None:
        self.process = subprocess.Popen(
            [server, "--db", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self._observer = observer
        self._decoder = FrameDecoder()
        self._received: list[Any] = []

    def send(self, *messages: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"".join(encode_frame(message) for message in messages))
        self.process.stdin.flush()

    def response_to(self, request_id: Any, timeout: float = 10.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            for message in self._received:
                if isinstance(message, dict) and message.get("id") == request_id and "method" not in message:
                    return message
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no response to id {request_id!r}"
            self._read(remaining)

    def close(self) -> int:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        returncode = self.process.wait(10)
        self.process.stdout.close()
        return returncode

    def _read(self, timeout: float) -> None:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        if select.select([fd], [], [], timeout)[0]:
            chunk = os.read(fd, 65536)
            assert chunk, "the server closed its output"
            for message in self._decoder.feed(chunk):
                self._observer(message)
                self._received.append(message)


def store_a_task_from_the_year_0(server: str, db: Path, tmp_path: Path) -> str:
    """A task whose createdAt is in the year 0000, which `taskline import` accepts."""
    task_id = "0000-task"
    record = (
        f'{{"id":"{task_id}","title":"ancient","notes":"","done":false,"priority":0,"tags":[],"due":null,'
        '"createdAt":"0000-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z",'
        '"completedAt":null,"version":1}\n'
    )
    source = tmp_path / "ancient.jsonl"
    source.write_text(record, encoding="utf-8")
    subprocess.run([server, "import", "--db", str(db), str(source)], check=True, capture_output=True)
    return task_id
