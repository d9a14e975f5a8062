"""The asyncio client against the real server."""

from __future__ import annotations

import asyncio
import gc
import signal
from pathlib import Path
from typing import Any

import pytest
from support import oldest_first, process_is_gone, run, write_script

from taskline_client import (
    AsyncClient,
    ChangeKind,
    ChangesPage,
    ChangeStream,
    Create,
    Delete,
    DidChange,
    DidMissChanges,
    Filter,
    HistoryExpired,
    InvalidParams,
    ServerExited,
    Task,
    TaskNotFound,
    Timeout,
    Update,
    VersionConflict,
)


def test_lifecycle_ends_with_a_clean_exit(client_options: dict[str, Any]) -> None:
    async def scenario() -> AsyncClient:
        async with AsyncClient(**client_options) as client:
            assert client.server_info.protocol_version == "1"
        return client

    client = run(scenario())
    assert client.closed
    assert client.process.returncode == 0


def test_every_method(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client:
            task = await client.create("async", tags=["b", "a"], due="2026-12-01")
            assert task.tags == ("a", "b")
            assert await client.get(task.id) == task
            updated = await client.update(task.id, done=True, if_version=1)
            assert updated.done and updated.version == 2
            page = await client.fetch(filter=Filter(done=True), include_total=True)
            assert page.tasks == (updated,) and page.total == 1
            await client.delete(task.id)
            with pytest.raises(TaskNotFound):
                await client.get(task.id)

    run(scenario())


def test_iter_tasks_pages_through_everything(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client:
            created = [await client.create(f"task {number}") for number in range(5)]
            assert [task async for task in client.iter_tasks(page_size=2)] == oldest_first(created)

    run(scenario())


def test_concurrent_calls_get_their_own_answers(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client:
            created = await asyncio.gather(*(client.create(f"task {number}") for number in range(30)))
            fetched = await asyncio.gather(*(client.get(task.id) for task in reversed(created)))
            assert fetched == list(reversed(created))

    run(scenario())


def test_errors_map_to_classes(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client:
            task = await client.create("contested")
            await client.update(task.id, title="moved on")
            with pytest.raises(VersionConflict) as conflict:
                await client.delete(task.id, if_version=1)
            assert conflict.value.current is not None and conflict.value.current.title == "moved on"
            with pytest.raises(InvalidParams) as invalid:
                await client.fetch(limit=5000)
            assert invalid.value.field == "limit"

    run(scenario())


async def _next_change(changes: Any) -> DidChange:
    return await asyncio.wait_for(changes.__anext__(), 5)


def test_changes_arrive_through_the_async_iterator(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client, client.change_stream() as changes:
            task = await client.create("watched")
            updated = await client.update(task.id, priority=2)
            await client.delete(task.id)
            received = [(await _next_change(changes)).changes for _ in range(3)]
            kinds = [change.kind for batch in received for change in batch]
            assert kinds == [ChangeKind.CREATED, ChangeKind.UPDATED, ChangeKind.DELETED]
            assert [change.task for batch in received for change in batch] == [task, updated, None]

    run(scenario())


def test_the_iterator_ends_when_the_client_closes(client_options: dict[str, Any]) -> None:
    async def scenario() -> list[DidChange | DidMissChanges]:
        client = await AsyncClient(**client_options).start()
        changes = client.change_stream()
        await client.create("last words")
        await client.close()
        return [change async for change in changes]

    (notification,) = run(scenario())
    assert isinstance(notification, DidChange)
    assert [change.kind for change in notification.changes] == [ChangeKind.CREATED]


def test_notifications_can_be_turned_off(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options, notifications=False) as client, client.change_stream() as changes:
            assert client.server_info.notifications is False
            task = await client.create("quiet")
            await client.get(task.id)  # the created notification would have come before this answer
            changes.close()
            assert [change async for change in changes] == []

    run(scenario())


def test_a_change_by_a_second_client_reaches_the_first(client_options: dict[str, Any]) -> None:
    async def scenario() -> tuple[Task, DidChange]:
        async with AsyncClient(**client_options) as first, AsyncClient(**client_options) as second:
            async with first.change_stream() as changes:
                task = await second.create("from elsewhere")
                return task, await _next_change(changes)

    task, notification = run(scenario())
    assert [change.task for change in notification.changes] == [task]


def test_a_server_that_never_answers_times_out(tmp_path: Path, db: Path) -> None:
    pid_file = tmp_path / "pid"
    silent = write_script(tmp_path / "silent", f"echo $$ > {pid_file}\nexec python3 -c 'import time; time.sleep(60)'")

    async def scenario() -> None:
        with pytest.raises(Timeout) as caught:
            await AsyncClient(db, server=silent, timeout=0.5).start()
        assert caught.value.method == "initialize"

    run(scenario())
    assert process_is_gone(int(pid_file.read_text()))


def test_a_paused_server_times_out_and_recovers(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client:
            task = await client.create("before the pause")
            client.timeout = 0.5
            client.process.send_signal(signal.SIGSTOP)
            try:
                with pytest.raises(Timeout):
                    await client.create("while paused")
            finally:
                client.process.send_signal(signal.SIGCONT)
            client.timeout = 10
            assert await client.get(task.id) == task

    run(scenario())


def test_a_server_that_stops_reading_cannot_block_a_call(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client:
            client.timeout = 0.5
            client.process.send_signal(signal.SIGSTOP)
            try:
                with pytest.raises(Timeout):
                    await client.create("big", notes="🥛" * 65536)  # 256 KiB: more than a pipe holds
            finally:
                client.process.send_signal(signal.SIGCONT)
            client.timeout = 10
            assert (await client.create("small")).title == "small"

    run(scenario())


def test_a_cancelled_call_leaves_the_client_usable(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client:
            pending = asyncio.ensure_future(client.create("maybe"))
            await asyncio.sleep(0)
            pending.cancel()
            with pytest.raises(asyncio.CancelledError):
                await pending
            assert (await client.create("surely")).title == "surely"

    run(scenario())


def test_a_killed_server_fails_calls_with_server_exited(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client:
            client.process.send_signal(signal.SIGKILL)
            with pytest.raises(ServerExited) as caught:
                await client.create("too late")
            assert caught.value.returncode == -signal.SIGKILL

    run(scenario())


def test_garbage_collection_closes_while_the_loop_runs(client_options: dict[str, Any]) -> None:
    async def scenario() -> int | None:
        client = await AsyncClient(**client_options).start()
        process = client.process
        del client
        gc.collect()
        await asyncio.wait_for(process.wait(), 5)
        return process.returncode

    assert run(scenario()) == 0


def test_starting_twice_is_an_error(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client:
            with pytest.raises(RuntimeError, match="started already"):
                await client.start()

    run(scenario())


def test_apply_and_its_single_notification(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client, client.change_stream() as stream:
            kept = await client.create("kept")
            created, updated, deleted = await client.apply(
                [Create("new", tags=["x"]), Update(kept.id, done=True, if_version=1), Delete(kept.id)]
            )
            assert created.task is not None and created.task.tags == ("x",)
            assert updated.task is not None and updated.task.done
            assert deleted.ok and deleted.task is None
            assert [change.kind for change in (await _next_change(stream)).changes] == [ChangeKind.CREATED]
            notification = await _next_change(stream)
            assert [(change.kind, change.task) for change in notification.changes] == [
                (ChangeKind.CREATED, created.task),
                (ChangeKind.UPDATED, updated.task),
                (ChangeKind.DELETED, None),
            ]
            assert notification.seq == notification.changes[-1].seq

            with pytest.raises(TaskNotFound) as caught:
                await client.apply([Create("never"), Delete(kept.id)])
            assert caught.value.operation == 1
            (missing,) = await client.apply([Delete(kept.id)], atomic=False)
            assert isinstance(missing.error, TaskNotFound)
            assert [task.title async for task in client.iter_tasks()] == ["new"]

    run(scenario())


def test_changes_and_iter_changes(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client:
            tasks = [await client.create(f"task {number}") for number in range(5)]
            await client.delete(tasks[0].id)
            page = await client.changes(0, limit=2)
            assert isinstance(page, ChangesPage) and page.has_more
            assert [change.task for change in page.changes] == [None, tasks[1]]  # the first is gone now
            changes = [change async for change in client.iter_changes(page.seq, page_size=2)]
            assert [(change.kind, change.id) for change in changes] == [
                *((ChangeKind.CREATED, task.id) for task in tasks[2:]),
                (ChangeKind.DELETED, tasks[0].id),
            ]
            with pytest.raises(InvalidParams) as caught:
                await client.changes(changes[-1].seq + 1)
            assert caught.value.field == "since"

    run(scenario())


def test_an_expired_history_raises_history_expired(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client:
            await client.create("soon forgotten")
            await client.create("kept: the newest change always is")
        async with AsyncClient(**client_options, args=["--history-days", "0"]) as client:
            with pytest.raises(HistoryExpired) as caught:
                await client.changes(0)
            assert caught.value.oldest_seq is not None
            assert len((await client.changes(caught.value.oldest_seq - 1)).changes) == 1

    run(scenario())


def test_changes_without_arguments_is_the_deprecated_name_of_change_stream(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client:
            with pytest.warns(DeprecationWarning, match="change_stream"):
                stream = client.changes()
            assert isinstance(stream, ChangeStream)
            async with stream:
                task = await client.create("heard")
                assert [change.task for change in (await _next_change(stream)).changes] == [task]

    run(scenario())
