"""Starting, initializing and stopping the server through the synchronous client."""

from __future__ import annotations

import gc
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pytest
from support import process_is_gone, wait_until, write_script

import taskline_client.client as client_module
from taskline_client import Client, ServerExited, Timeout


def test_initialize_reports_the_server(client: Client) -> None:
    info = client.server_info
    assert info.name == "taskline"
    assert info.protocol_version == "1"
    assert {"tasks/create", "tasks/get", "tasks/fetch", "tasks/update", "tasks/delete"} <= set(info.methods)
    assert info.notifications is True
    assert info.max_fetch_limit == 1000


def test_close_shuts_the_server_down_cleanly(client: Client) -> None:
    client.close()
    assert client.closed
    assert client.process.returncode == 0


def test_close_twice_is_harmless(client: Client) -> None:
    client.close()
    client.close()
    assert client.process.returncode == 0


def test_the_context_manager_closes(client_options: dict[str, Any]) -> None:
    with Client(**client_options) as client:
        client.create("inside")
    assert client.process.returncode == 0


def test_garbage_collection_closes(client_options: dict[str, Any]) -> None:
    client = Client(**client_options)
    process = client.process
    del client
    gc.collect()
    assert process.returncode == 0


def test_data_outlives_the_server(open_client: Callable[..., Client]) -> None:
    first = open_client()
    task = first.create("persisted")
    first.close()
    assert open_client().get(task.id) == task


def test_calls_after_close_raise_server_exited(client: Client) -> None:
    client.close()
    with pytest.raises(ServerExited) as caught:
        client.get("anything")
    assert caught.value.returncode == 0


def test_a_killed_server_fails_calls_with_server_exited(client: Client) -> None:
    client.process.send_signal(signal.SIGKILL)
    with pytest.raises(ServerExited) as caught:
        client.create("too late")
    assert caught.value.returncode == -signal.SIGKILL


def test_an_unusable_database_explains_itself(client_options: dict[str, Any], db: Path) -> None:
    db.write_bytes(b"this is not a SQLite database" * 100)
    with pytest.raises(ServerExited) as caught:
        Client(**client_options)
    assert caught.value.returncode == 3
    assert caught.value.stderr_tail  # the server's own explanation
    assert str(caught.value.stderr_tail) in str(caught.value)


def test_stderr_is_drained(tmp_path: Path, server: str, db: Path) -> None:
    # The pipe holds far less than this; a client that did not read stderr would
    # leave the wrapper blocked before it ever starts the server.
    noisy = write_script(
        tmp_path / "noisy-taskline",
        f'yes "log line for the stderr drain test" | head -c 2000000 >&2\nexec "{server}" "$@"',
    )
    with Client(db, server=noisy, timeout=10) as client:
        assert client.create("heard").title == "heard"
    assert client.process.returncode == 0


def test_a_server_that_never_answers_times_out(tmp_path: Path, db: Path) -> None:
    pid_file = tmp_path / "pid"
    silent = write_script(tmp_path / "silent", f"echo $$ > {pid_file}\nexec python3 -c 'import time; time.sleep(60)'")
    with pytest.raises(Timeout) as caught:
        Client(db, server=silent, timeout=0.5)
    assert caught.value.method == "initialize"
    assert process_is_gone(int(pid_file.read_text()))


def test_a_late_response_does_not_answer_the_next_call(client: Client) -> None:
    task = client.create("before the pause")
    client.timeout = 0.5
    client.process.send_signal(signal.SIGSTOP)
    try:
        with pytest.raises(Timeout):
            client.create("while paused")
    finally:
        client.process.send_signal(signal.SIGCONT)
    client.timeout = 10
    assert client.get(task.id) == task


def test_a_server_that_stops_reading_cannot_block_a_call(client: Client) -> None:
    client.timeout = 0.5
    client.process.send_signal(signal.SIGSTOP)
    try:
        with pytest.raises(Timeout):
            client.create("big", notes="🥛" * 65536)  # 256 KiB: more than a pipe holds
    finally:
        client.process.send_signal(signal.SIGCONT)
    client.timeout = 10
    assert client.create("small").title == "small"


def test_the_server_is_told_our_process_id(client_options: dict[str, Any], tmp_path: Path) -> None:
    # The server exits when the process named in `initialize` ends, so run the
    # client in a child Python and kill that child without letting it clean up.
    script = (
        "import sys, time\n"
        "from taskline_client import Client\n"
        f"client = Client({str(client_options['db'])!r}, server={client_options['server']!r})\n"
        "print(client.process.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    server_pid = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    parent.stdout.close()
    assert wait_until(lambda: process_is_gone(server_pid), timeout=5)


def test_a_server_that_exits_at_once_is_reported_even_if_the_stderr_thread_starts_late(
    client_options: dict[str, Any], db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The reader joins the stderr thread when the server has gone: that thread
    # must have been started before the reader could get there.
    make_thread = client_module._daemon_thread

    def slow_to_start_stderr_thread(name: str, target: Callable[[], None]) -> threading.Thread:
        thread = make_thread(name, target)
        if name == "taskline-stderr":
            start = thread.start

            def late_start() -> None:
                time.sleep(0.3)  # long enough for the reader to read the end of a server that failed at once
                start()

            thread.start = late_start  # type: ignore[method-assign]
        return thread

    monkeypatch.setattr(client_module, "_daemon_thread", slow_to_start_stderr_thread)
    db.write_bytes(b"this is not a SQLite database" * 100)
    with pytest.raises(ServerExited) as caught:
        Client(**{**client_options, "timeout": 5})
    assert caught.value.returncode == 3
