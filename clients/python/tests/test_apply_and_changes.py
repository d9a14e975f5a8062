"""`apply` (tasks/apply) and `changes`/`iter_changes` (tasks/changes) through the
synchronous client, against the real server."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Callable

import pytest
from support import Recorder, wait_until

from taskline_client import (
    ChangeKind,
    ChangesPage,
    Client,
    Create,
    Delete,
    DidChange,
    HistoryExpired,
    InvalidParams,
    OperationResult,
    Priority,
    ServerError,
    TaskAlreadyExists,
    TaskNotFound,
    Update,
    VersionConflict,
)
from taskline_client.errors import error_from_wire


def test_apply_returns_one_result_per_operation(client: Client) -> None:
    doomed = client.create("doomed")
    due = datetime(2026, 12, 1, 17, tzinfo=timezone(timedelta(hours=1)))
    results = client.apply(
        [
            Create("first", id="one", tags=["b", "a"], priority=Priority.HIGH, due=due),
            Update("one", if_version=1, done=True),
            Delete(doomed.id, if_version=1),
        ]
    )
    assert [type(result) for result in results] == [OperationResult] * 3
    created, updated, deleted = results
    assert created.ok and created.task is not None
    assert (created.task.id, created.task.tags, created.task.due) == ("one", ("a", "b"), "2026-12-01T17:00:00+01:00")
    assert updated.task is not None and updated.task.done and updated.task.version == 2
    assert deleted == OperationResult(task=None, error=None)
    assert client.get("one") == updated.task
    with pytest.raises(TaskNotFound):
        client.get(doomed.id)


def test_apply_accepts_operations_in_their_wire_form(client: Client) -> None:
    created, renamed = client.apply(
        [{"create": {"title": "raw", "id": "raw"}}, {"update": {"id": "raw", "changes": {"title": "cooked"}}}]
    )
    assert created.task is not None and created.task.title == "raw"
    assert renamed.task is not None and renamed.task.title == "cooked"
    assert Create("raw", id="raw").to_wire() == {"create": {"title": "raw", "id": "raw"}}
    assert Update("x", due=None).to_wire() == {"update": {"id": "x", "changes": {"due": None}}}


def test_an_atomic_apply_that_fails_applies_nothing_and_raises_the_operations_error(client: Client) -> None:
    kept = client.create("kept")
    with pytest.raises(TaskNotFound) as caught:
        client.apply([Create("never made"), Update(kept.id, title="never renamed"), Delete("no-such-task")])
    assert caught.value.operation == 2
    assert caught.value.task_id == "no-such-task"
    assert caught.value.data["operation"] == 2
    assert [task.title for task in client.iter_tasks()] == ["kept"]
    assert client.get(kept.id) == kept


def test_an_atomic_apply_with_a_stale_version_raises_version_conflict(client: Client) -> None:
    task = client.create("contested")
    current = client.update(task.id, title="moved on")
    with pytest.raises(VersionConflict) as caught:
        client.apply([Create("fine"), Update(task.id, if_version=1, done=True)])
    assert caught.value.operation == 1
    assert caught.value.current == current


def test_an_atomic_apply_with_bad_params_names_the_operation(client: Client) -> None:
    with pytest.raises(InvalidParams) as caught:
        client.apply([Create("fine"), Update("any", priority=9)])
    assert caught.value.field == "operations[1].update.changes.priority"
    assert caught.value.operation == 1
    assert client.fetch(include_total=True).total == 0


def test_a_non_atomic_apply_reports_each_failure_and_applies_the_rest(client: Client) -> None:
    client.create("twin", id="twin")
    made, duplicate, missing = client.apply(
        [Create("made"), Create("again", id="twin"), Update("no-such-task", done=True)], atomic=False
    )
    assert made.ok and made.task is not None and made.task.title == "made"
    assert isinstance(duplicate.error, TaskAlreadyExists) and duplicate.error.task_id == "twin"
    assert not duplicate.ok and duplicate.task is None
    assert isinstance(missing.error, TaskNotFound) and missing.error.operation is None
    with pytest.raises(TaskAlreadyExists):
        duplicate.unwrap()
    assert made.unwrap() == made.task
    assert sorted(task.title for task in client.iter_tasks()) == ["made", "twin"]


def test_an_empty_apply_is_invalid_params(client: Client) -> None:
    with pytest.raises(InvalidParams) as caught:
        client.apply([])
    assert caught.value.field == "operations"
    assert caught.value.operation is None


def test_all_changes_of_an_apply_come_in_one_notification(client: Client) -> None:
    before = client.create("before")
    client.get(before.id)  # lets the create's own notification pass first
    recorder = Recorder()
    client.on_change(recorder)
    results = client.apply([Create("a"), Create("b"), Update(before.id, done=True), Delete(before.id)])
    client.fetch()  # a notification comes before the answer to a later request
    notifications: list[DidChange] = recorder.calls
    assert len(notifications) == 1
    (notification,) = notifications
    assert [(change.kind, change.task) for change in notification.changes] == [
        (ChangeKind.CREATED, results[0].task),
        (ChangeKind.CREATED, results[1].task),
        (ChangeKind.UPDATED, results[2].task),
        (ChangeKind.DELETED, None),
    ]
    seqs = [change.seq for change in notification.changes]
    assert seqs == list(range(seqs[0], seqs[0] + 4))
    assert notification.seq == seqs[-1]


def test_changes_pages_through_the_history_with_tasks_as_they_are_now(client: Client) -> None:
    first = client.create("first")
    second = client.create("second")
    renamed = client.update(first.id, title="renamed")
    client.delete(second.id)

    page = client.changes(0, limit=3)
    assert isinstance(page, ChangesPage) and page.has_more
    assert [(change.kind, change.id, change.version) for change in page.changes] == [
        (ChangeKind.CREATED, first.id, 1),
        (ChangeKind.CREATED, second.id, 1),
        (ChangeKind.UPDATED, first.id, 2),
    ]
    # Creations and updates carry the task as it is now; absent once deleted.
    assert [change.task for change in page.changes] == [renamed, None, renamed]
    assert page.seq == page.changes[-1].seq

    rest = client.changes(page.seq)
    assert not rest.has_more
    assert [(change.kind, change.id, change.task) for change in rest.changes] == [(ChangeKind.DELETED, second.id, None)]
    assert client.changes(rest.seq) == ChangesPage(changes=(), seq=rest.seq, has_more=False)


def test_iter_changes_yields_everything_after_since(client: Client) -> None:
    tasks = [client.create(f"task {number}") for number in range(7)]
    everything = list(client.iter_changes(0, page_size=2))
    assert [change.id for change in everything] == [task.id for task in tasks]
    seqs = [change.seq for change in everything]
    assert seqs == sorted(set(seqs))
    assert [change.id for change in client.iter_changes(seqs[3])] == [task.id for task in tasks[4:]]
    assert list(client.iter_changes(seqs[-1])) == []


def test_a_since_ahead_of_the_database_is_invalid_params(client: Client) -> None:
    client.create("only one")
    with pytest.raises(InvalidParams) as caught:
        client.changes(1000)
    assert caught.value.field == "since"


def test_an_expired_history_raises_history_expired(open_client: Callable[..., Client]) -> None:
    writer = open_client()
    for number in range(3):
        writer.create(f"task {number}")
    newest = list(writer.iter_changes(0))[-1].seq
    writer.close()
    # --history-days 0 drops every change but the newest at start-up.
    forgetful = open_client(args=["--history-days", "0"])
    with pytest.raises(HistoryExpired) as caught:
        forgetful.changes(0)
    assert caught.value.code == 1005
    assert caught.value.oldest_seq == newest
    # Following on from just before the oldest kept seq works.
    assert [change.seq for change in forgetful.changes(caught.value.oldest_seq - 1).changes] == [newest]
    made = forgetful.create("after the purge")
    kept = [change.task for change in forgetful.iter_changes(caught.value.oldest_seq - 1)]
    assert [task.title for task in kept if task] == ["task 2", "after the purge"] and kept[-1] == made


def test_history_expired_is_made_from_its_code() -> None:
    error = error_from_wire({"code": 1005, "message": "History expired", "data": {"oldestSeq": 42}})
    assert isinstance(error, HistoryExpired) and isinstance(error, ServerError)
    assert error.oldest_seq == 42
    assert error_from_wire({"code": 1005, "message": "no data"}).oldest_seq is None  # type: ignore[attr-defined]


def test_a_second_client_sees_an_apply_from_another_process_in_full(open_client: Callable[..., Client]) -> None:
    watcher, writer = open_client(), open_client()
    recorder = Recorder()
    watcher.on_change(recorder)
    results = writer.apply([Create(f"batch {number}") for number in range(5)])

    def received() -> list[Any]:
        return [change.task for notification in recorder.calls for change in notification.changes]

    assert wait_until(lambda: received() == [result.task for result in results]), received()
    assert all(notification.seq == notification.changes[-1].seq for notification in recorder.calls)
