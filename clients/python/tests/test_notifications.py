"""`tasks/didChange` and `tasks/didMissChanges` through the synchronous client's callbacks."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path
from typing import Any, Callable

from support import Recorder, initialization_options, run, stdin_logging_server

from taskline_client import AsyncClient, ChangeKind, Client, DidChange, DidMissChanges


def test_changes_reach_callbacks_in_order(client: Client) -> None:
    recorder = Recorder()
    client.on_change(recorder)
    task = client.create("watched")
    updated = client.update(task.id, done=True)
    client.delete(task.id)
    notifications: list[DidChange] = recorder.wait_for(3)
    changes = [change for notification in notifications for change in notification.changes]
    assert [change.kind for change in changes] == [ChangeKind.CREATED, ChangeKind.UPDATED, ChangeKind.DELETED]
    assert [change.task for change in changes] == [task, updated, None]
    assert [change.version for change in changes] == [1, 2, 2]
    assert all(change.id == task.id for change in changes)
    seqs = [change.seq for change in changes]
    assert seqs == sorted(set(seqs))
    assert [notification.seq for notification in notifications] == seqs


def test_callbacks_run_on_the_reader_thread(client: Client) -> None:
    threads: list[threading.Thread] = []
    recorder = Recorder()
    client.on_change(lambda change: threads.append(threading.current_thread()))
    client.on_change(recorder)
    client.create("where am I")
    recorder.wait_for(1)
    assert threads and threads[0] is not threading.main_thread()


def test_unregistered_callbacks_hear_nothing(client: Client) -> None:
    removed, kept = Recorder(), Recorder()
    unregister = client.on_change(removed)
    client.on_change(kept)
    unregister()
    client.create("unheard")
    kept.wait_for(1)
    assert removed.calls == []


def test_a_failing_callback_does_not_stop_the_others(client: Client) -> None:
    def explode(change: DidChange | DidMissChanges) -> None:
        raise RuntimeError("callback bug")

    recorder = Recorder()
    client.on_change(explode)
    client.on_change(recorder)
    client.create("one")
    client.create("two")
    assert len(recorder.wait_for(2)) == 2


def test_calling_the_client_from_a_callback_is_refused(client: Client) -> None:
    outcomes = Recorder()

    def reenter(change: DidChange | DidMissChanges) -> None:
        assert isinstance(change, DidChange)
        try:
            client.get(change.changes[0].id)
        except RuntimeError as error:
            outcomes(error)

    client.on_change(reenter)
    client.create("no deadlock")
    assert "deadlock" in str(outcomes.wait_for(1)[0])


def test_an_update_that_changes_nothing_sends_nothing(client: Client) -> None:
    # A notification is written after its response and before the next one,
    # so once a later call has returned it has been delivered.
    task = client.create("still")
    client.get(task.id)
    recorder = Recorder()
    client.on_change(recorder)
    client.update(task.id, title="still")
    client.get(task.id)
    assert recorder.calls == []


def test_notifications_can_be_turned_off(open_client: Callable[..., Client]) -> None:
    client = open_client(notifications=False)
    assert client.server_info.notifications is False
    recorder = Recorder()
    client.on_change(recorder)
    task = client.create("quiet")
    client.get(task.id)  # the created notification would have come before this answer
    assert recorder.calls == []


def test_a_change_by_a_second_client_reaches_the_first(open_client: Callable[..., Client]) -> None:
    first, second = open_client(), open_client()
    recorder = Recorder()
    first.on_change(recorder)
    task = second.create("from elsewhere")
    notifications: list[Any] = recorder.wait_for(1, timeout=5)
    assert [change.task for notification in notifications for change in notification.changes] == [task]


def test_a_server_behind_pruned_history_says_what_was_missed_then_goes_on(
    open_client: Callable[..., Client],
) -> None:
    watcher, writer = open_client(), open_client()
    recorder = Recorder()
    watcher.on_change(recorder)
    writer.create("heard")
    heard = recorder.wait_for(1)[0].seq
    watcher.process.send_signal(signal.SIGSTOP)
    try:
        for title in ("pruned 1", "pruned 2", "kept"):
            writer.create(title)
        time.sleep(0.02)  # older than "now" for the pruner
        open_client(args=["--history-days", "0"]).close()  # prunes before it answers initialize
    finally:
        watcher.process.send_signal(signal.SIGCONT)
    assert recorder.wait_for(2)[1] == DidMissChanges(since=heard, seq=heard + 3, reason="historyExpired")
    writer.create("after")
    after = recorder.wait_for(3)[2]
    assert isinstance(after, DidChange) and [change.seq for change in after.changes] == [heard + 4]


def test_reminders_true_asks_the_server_for_reminders(server: str, db: Path, tmp_path: Path) -> None:
    wrapper, stdin_log = stdin_logging_server(server, tmp_path)
    with Client(db, server=wrapper):
        pass
    assert initialization_options(stdin_log) == {"notifications": True}
    with Client(db, server=wrapper, reminders=True):
        pass
    assert initialization_options(stdin_log) == {"notifications": True, "reminders": True}
    run(_open_async_client(wrapper, db))
    assert initialization_options(stdin_log) == {"notifications": True, "reminders": True}


async def _open_async_client(server: Path, db: Path) -> None:
    async with AsyncClient(db, server=server, reminders=True):
        pass
