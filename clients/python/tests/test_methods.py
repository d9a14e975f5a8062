"""Every `tasks/*` method through the synchronous client, with typed results."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Any, Callable

import pytest
from support import oldest_first

from taskline_client import Client, Filter, Priority, Recurrence, SortKey, Task, TaskNotFound


def test_create_returns_a_typed_task(client: Client) -> None:
    task = client.create(
        "Write the spec",
        notes="first line\nsecond line",
        priority=Priority.MEDIUM,
        tags=["work", "docs", "work"],
        due="2026-12-01T17:00:00+01:00",
    )
    assert task.title == "Write the spec"
    assert task.notes == "first line\nsecond line"
    assert task.done is False
    assert task.priority is Priority.MEDIUM
    assert task.tags == ("docs", "work")
    assert task.due == "2026-12-01T17:00:00+01:00"
    assert task.parsed_due == datetime(2026, 12, 1, 17, 0, tzinfo=timezone(timedelta(hours=1)))
    assert task.created_at.tzinfo is not None and task.created_at.utcoffset() == timedelta(0)
    assert task.updated_at == task.created_at
    assert task.completed_at is None
    assert task.version == 1


def test_create_defaults(client: Client) -> None:
    task = client.create("bare")
    assert (task.notes, task.done, task.priority, task.tags, task.due) == ("", False, Priority.NONE, (), None)


def test_create_done_sets_completed_at(client: Client) -> None:
    task = client.create("already done", done=True)
    assert task.completed_at == task.created_at


def test_create_with_a_chosen_id(client: Client) -> None:
    assert client.create("named", id="my-own-id").id == "my-own-id"


def test_due_accepts_dates_and_aware_datetimes(client: Client) -> None:
    on_a_day = client.create("a date", due=date(2026, 12, 1))
    assert (on_a_day.due, on_a_day.parsed_due) == ("2026-12-01", date(2026, 12, 1))
    moment = datetime(2026, 12, 1, 9, 30, 15, 500000, tzinfo=timezone(timedelta(hours=-5)))
    assert client.create("a moment", due=moment).parsed_due == moment


@pytest.mark.parametrize(
    ("due", "parsed"),
    [
        ("2026-12-01t17:00:00.5z", datetime(2026, 12, 1, 17, 0, 0, 500000, tzinfo=timezone.utc)),
        ("2026-12-01T17:00:00.123456789-00:00", datetime(2026, 12, 1, 17, 0, 0, 123456, tzinfo=timezone.utc)),
        ("9999-12-31T23:59:59+14:00", datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone(timedelta(hours=14)))),
    ],
)
def test_due_comes_back_exactly_as_given(client: Client, due: str, parsed: datetime) -> None:
    task = client.create("odd but valid", due=due)
    assert (task.due, task.parsed_due) == (due, parsed)
    assert client.update(task.id, due=task.due).version == 1  # the same text: no change


@pytest.mark.parametrize("due", ["0000-01-01T00:00:00Z", "2026-12-31T23:59:60Z"])
def test_a_due_python_cannot_hold_still_makes_a_task(client: Client, due: str) -> None:
    task = client.create("valid RFC 3339, beyond datetime", due=due)
    assert client.get(task.id).due == due
    with pytest.raises(ValueError):
        _ = task.parsed_due


def test_a_naive_due_datetime_is_refused_before_sending(client: Client) -> None:
    with pytest.raises(ValueError, match="time zone"):
        client.create("naive", due=datetime(2026, 12, 1, 9, 30))


def test_a_recurring_task_makes_its_next_occurrence_when_done(client: Client) -> None:
    task = client.create("Stand-up", due=date(2026, 12, 4), recurrence="FREQ=WEEKLY;BYDAY=MO,FR")
    assert task.recurrence == Recurrence("FREQ=WEEKLY;BYDAY=MO,FR") and task.series_id == task.id
    client.update(task.id, done=True)
    (following,) = client.fetch(filter=Filter(done=False)).tasks
    assert (following.due, following.series_id, following.recurrence) == ("2026-12-07", task.id, task.recurrence)
    ended = client.update(following.id, recurrence=None)
    assert ended.recurrence is None and ended.series_id == task.id
    assert client.update(ended.id, recurrence="FREQ=DAILY").recurrence == Recurrence("FREQ=DAILY")
    plain = client.create("plain")
    assert (plain.recurrence, plain.series_id) == (None, None)


def test_get_returns_the_stored_task(client: Client) -> None:
    task = client.create("stored")
    assert client.get(task.id) == task


def test_update_changes_fields_and_version(client: Client) -> None:
    task = client.create("draft", tags=["a"], due="2026-12-01")
    updated = client.update(task.id, title="final", tags=["b", "c"], priority=3, notes="n")
    assert (updated.title, updated.tags, updated.priority, updated.notes) == ("final", ("b", "c"), Priority.HIGH, "n")
    assert updated.version == 2
    assert updated.created_at == task.created_at
    assert updated.updated_at >= task.updated_at
    assert client.update(task.id, due=None).due is None


def test_update_done_sets_and_clears_completed_at(client: Client) -> None:
    task = client.create("chore")
    done = client.update(task.id, done=True)
    assert done.done and done.completed_at is not None
    undone = client.update(task.id, done=False)
    assert not undone.done and undone.completed_at is None


def test_an_update_that_changes_nothing_keeps_the_version(client: Client) -> None:
    task = client.create("steady")
    assert client.update(task.id) == task
    assert client.update(task.id, title="steady") == task


def test_update_with_the_current_version_succeeds(client: Client) -> None:
    task = client.create("guarded")
    assert client.update(task.id, title="still guarded", if_version=task.version).version == task.version + 1


def test_delete_removes_the_task(client: Client) -> None:
    task = client.create("doomed")
    client.delete(task.id, if_version=task.version)
    with pytest.raises(TaskNotFound):
        client.get(task.id)


def _titles(tasks: Any) -> list[str]:
    return [task.title for task in tasks]


@pytest.fixture
def groceries(client: Client) -> list[Task]:
    # Ids in creation order: tasks made in the same millisecond are listed by id.
    return [
        client.create("milk", tags=["shop"], priority=1, due="2026-12-02", id="grocery-1"),
        client.create(
            "bread", tags=["shop", "bakery"], priority=3, due="2026-12-01T08:00:00Z", notes="wholemeal", id="grocery-2"
        ),
        client.create("Call mum", done=True, priority=2, id="grocery-3"),
        client.create("pay rent", due="2026-12-31", id="grocery-4"),
    ]


def test_fetch_returns_oldest_first_by_default(client: Client, groceries: list[Task]) -> None:
    page = client.fetch()
    assert page.tasks == tuple(groceries)
    assert page.next_cursor is None
    assert page.total is None


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (Filter(done=True), ["Call mum"]),
        (Filter(tags=["shop", "bakery"]), ["bread"]),
        (Filter(text="WHOLE"), ["bread"]),
        (Filter(text="mum"), ["Call mum"]),
        (Filter(due_after=date(2026, 12, 1), due_before="2026-12-03"), ["milk", "bread"]),
        (Filter(due_after=datetime(2026, 12, 1, 9, tzinfo=timezone.utc)), ["milk", "pay rent"]),
        (Filter(done=False, tags=["shop"]), ["milk", "bread"]),
    ],
)
def test_fetch_filters(client: Client, groceries: list[Task], query: Filter, expected: list[str]) -> None:
    assert _titles(client.fetch(filter=query).tasks) == expected


def test_fetch_filters_by_ids(client: Client, groceries: list[Task]) -> None:
    wanted = [groceries[3].id, groceries[0].id]
    assert _titles(client.fetch(filter=Filter(ids=wanted)).tasks) == ["milk", "pay rent"]


def test_fetch_sorts(client: Client, groceries: list[Task]) -> None:
    assert _titles(client.fetch(sort=[SortKey("priority", "desc")]).tasks) == ["bread", "Call mum", "milk", "pay rent"]
    assert _titles(client.fetch(sort=[SortKey("due")]).tasks) == ["bread", "milk", "pay rent", "Call mum"]
    assert _titles(client.fetch(sort=[SortKey("title")]).tasks) == ["bread", "Call mum", "milk", "pay rent"]


def test_fetch_pages_with_cursors_and_counts(client: Client, groceries: list[Task]) -> None:
    first = client.fetch(limit=3, include_total=True)
    assert first.tasks == tuple(groceries[:3])
    assert first.total == 4
    assert first.next_cursor is not None
    rest = client.fetch(limit=3, cursor=first.next_cursor)
    assert rest.tasks == tuple(groceries[3:])
    assert rest.next_cursor is None


def test_fetch_with_an_offset(client: Client, groceries: list[Task]) -> None:
    assert client.fetch(offset=1, limit=2).tasks == tuple(groceries[1:3])


def test_iter_tasks_pages_through_everything(open_client: Callable[..., Client]) -> None:
    pages: list[Any] = []

    def count_pages(message: Any) -> None:
        if isinstance(message.get("result"), dict) and "tasks" in message["result"]:
            pages.append(message)

    client = open_client(message_observer=count_pages)
    created = [client.create(f"task {number}") for number in range(7)]
    assert list(client.iter_tasks(page_size=3)) == oldest_first(created)
    assert len(pages) == 3


def test_iter_tasks_neither_skips_nor_repeats_while_tasks_change(client: Client) -> None:
    # Ids in creation order: tasks made in the same millisecond are listed by id.
    created = [client.create(f"task {number}", id=f"task-{number}") for number in range(6)]
    seen: list[Task] = []
    for task in client.iter_tasks(page_size=2):
        if not seen:
            client.delete(created[0].id)  # already passed: must not shift later pages
            client.create("late arrival", id="task-9")
        seen.append(task)
    assert _titles(seen) == [f"task {number}" for number in range(6)] + ["late arrival"]


def test_iter_tasks_filters_and_sorts(client: Client, groceries: list[Task]) -> None:
    found = client.iter_tasks(page_size=1, filter=Filter(done=False), sort=[SortKey("title", "desc")])
    assert _titles(found) == ["pay rent", "milk", "bread"]
