"""What the clients do when the server sends what Python cannot hold, dies, or
would reject what they send, and when the caller misuses them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable

import pytest
from support import Recorder, process_is_gone, run, store_a_task_from_the_year_0, wait_until

from taskline_client import (
    AsyncClient,
    Client,
    DidChange,
    DidMissChanges,
    ServerExited,
    UnsendableRequest,
    UnsupportedTimestamp,
    VersionConflict,
)


def test_a_timestamp_python_cannot_hold_fails_that_call_only(
    open_client: Callable[..., Client], server: str, db: Path, tmp_path: Path
) -> None:
    ancient = store_a_task_from_the_year_0(server, db, tmp_path)
    client = open_client(timeout=5)
    modern = client.create("modern")
    with pytest.raises(VersionConflict) as conflict:
        client.update(ancient, title="renamed", if_version=7)  # the 1002 carries the ancient task
    with pytest.raises(UnsupportedTimestamp) as unreadable:
        _ = conflict.value.current
    assert unreadable.value.text == "0000-01-01T00:00:00.000Z"
    with pytest.raises(UnsupportedTimestamp):
        list(client.iter_tasks())
    assert client.get(modern.id) == modern  # the reader still reads


def test_a_change_python_cannot_hold_arrives_as_a_missed_range(
    open_client: Callable[..., Client], server: str, db: Path, tmp_path: Path
) -> None:
    ancient = store_a_task_from_the_year_0(server, db, tmp_path)
    client = open_client(timeout=5)
    received = Recorder()
    client.on_change(received)
    # Sent raw: the update's own result is unreadable too.
    client.request("tasks/update", {"id": ancient, "changes": {"title": "renamed"}})
    client.create("after it")
    first, second = received.wait_for(2)
    assert isinstance(first, DidMissChanges) and first.reason == "unreadable"
    assert isinstance(second, DidChange) and second.changes[0].seq == first.seq + 1
    assert first.since == first.seq - 1  # the one change the unreadable notification carried


def test_close_inside_a_change_callback_ends_the_server(open_client: Callable[..., Client]) -> None:
    client = open_client()
    client.on_change(lambda change: client.close())
    client.create("the last one")
    assert wait_until(lambda: process_is_gone(client.process.pid)), "the server outlived close()"
    assert client.process.wait(5) == 0  # after shutdown and exit
    assert client.closed


def test_the_sync_client_says_when_the_server_died(open_client: Callable[..., Client]) -> None:
    client = open_client()
    exits = Recorder()
    client.on_exit(exits)
    client.process.kill()
    (error,) = exits.wait_for(1)
    assert isinstance(error, ServerExited) and error.returncode == -9


def test_a_closed_client_reports_no_death(open_client: Callable[..., Client]) -> None:
    client = open_client()
    exits = Recorder()
    client.on_exit(exits)
    client.close()
    assert exits.calls == []


def test_the_change_stream_raises_when_the_server_died(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client, client.change_stream() as stream:
            await client.create("seen")
            client.process.kill()
            first = await asyncio.wait_for(stream.__anext__(), 5)
            assert isinstance(first, DidChange)
            with pytest.raises(ServerExited):
                await asyncio.wait_for(stream.__anext__(), 5)

    run(scenario())


def test_a_full_change_stream_names_what_it_left_out(client_options: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with AsyncClient(**client_options) as client, client.change_stream(max_buffered=3) as stream:
            for number in range(10):
                await client.create(f"task {number}")
            await client.fetch()  # answered after the last notification was sent
            await asyncio.sleep(0)
            kept = [await asyncio.wait_for(stream.__anext__(), 5) for _ in range(4)]
            assert all(isinstance(notification, DidChange) for notification in kept[:3])
            missed = kept[3]
            assert isinstance(missed, DidMissChanges) and missed.reason == "overflow"
            assert missed.since == kept[2].seq
            assert missed.seq == (await client.fetch()).seq
            assert len((await client.changes(missed.since)).changes) == 7
            await client.create("after the gap")
            latest = await asyncio.wait_for(stream.__anext__(), 5)
            assert isinstance(latest, DidChange) and latest.changes[0].seq == missed.seq + 1

    run(scenario())


def test_a_string_with_a_lone_surrogate_is_refused_at_once(open_client: Callable[..., Client]) -> None:
    client = open_client(timeout=30)
    with pytest.raises(UnsendableRequest) as refused:
        client.create("cut in half \ud83d")
    assert refused.value.method == "tasks/create"
    assert client.create("whole \U0001f600").title == "whole \U0001f600"


def test_a_message_over_the_servers_limit_is_refused_at_once(client_options: dict[str, Any]) -> None:
    with Client(**client_options, args=["--max-message-bytes", "4096"], timeout=30) as client:
        assert client.server_info.max_message_bytes == 4096
        with pytest.raises(UnsendableRequest) as refused:
            client.create("long notes", notes="n" * 5000)
        assert "4096" in str(refused.value)
        assert client.create("short notes", notes="n" * 100).notes == "n" * 100

    async def scenario() -> None:
        async with AsyncClient(**client_options, args=["--max-message-bytes", "4096"], timeout=30) as client:
            with pytest.raises(UnsendableRequest):
                await client.create("long notes", notes="n" * 5000)

    run(scenario())


def test_database_and_page_seq_let_a_copy_follow_on(open_client: Callable[..., Client], db: Path) -> None:
    client = open_client()
    info = client.server_info
    assert info.database_seq == 0 and len(info.database_id) > 0
    made = client.create("one")
    page = client.fetch()
    assert page.tasks == (made,) and page.seq == info.database_seq + 1
    assert client.changes(page.seq).changes == ()
    client.close()
    again = open_client()
    assert again.server_info.database_id == info.database_id and again.server_info.database_seq == page.seq
    again.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    replaced = open_client()
    for number in range(3):
        replaced.create(f"new {number}")
    assert replaced.fetch().seq > page.seq  # `since` alone would not show the file is another one
    assert replaced.server_info.database_id != info.database_id
