"""`remind_at` and `tasks/remind` through both clients."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from typing import Any

from support import Recorder, run

from taskline_client import AsyncClient, Client, Remind


def test_remind_at_is_written_read_and_cleared(client_options: dict[str, Any]) -> None:
    with Client(**client_options) as client:
        assert client.server_info.reminders is False
        at = datetime(2999, 1, 1, 9, 0, tzinfo=timezone(timedelta(hours=1)))
        task = client.create("call the garage", remind_at=at)
        assert task.remind_at == "2999-01-01T09:00:00+01:00"
        assert client.update(task.id, remind_at="2999-01-02").remind_at == "2999-01-02"
        assert client.update(task.id, remind_at=None).remind_at is None


def test_on_remind_gets_past_and_coming_reminders_once(client_options: dict[str, Any]) -> None:
    with Client(**client_options) as writer:
        missed = writer.create("missed while no client asked", remind_at="2000-01-01T00:00:00Z")
    recorder = Recorder()
    with Client(**client_options, on_remind=recorder) as client:
        assert client.server_info.reminders is True
        soon = client.create("soon", remind_at=datetime.now(timezone.utc) + timedelta(seconds=1))
        reminders: list[Remind] = recorder.wait_for(2, timeout=10)
        assert [[task.id for task in remind.tasks] for remind in reminders] == [[missed.id], [soon.id]]
        client.update(soon.id, title="renamed")
        client.fetch()  # a round trip after the update: a repeated reminder would have come by now
    assert len(recorder.calls) == 2


def test_the_async_client_delivers_reminders(client_options: dict[str, Any]) -> None:
    async def scenario() -> list[Remind]:
        reminders: list[Remind] = []
        arrived = asyncio.Event()

        def on_remind(remind: Remind) -> None:
            reminders.append(remind)
            arrived.set()

        async with AsyncClient(**client_options, on_remind=on_remind) as client:
            assert client.server_info.reminders is True
            await client.create("past", remind_at="2000-01-01")
            await asyncio.wait_for(arrived.wait(), 10)
        return reminders

    reminders = run(scenario())
    assert [[task.title for task in remind.tasks] for remind in reminders] == [["past"]]
