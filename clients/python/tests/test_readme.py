"""The README's catch-up example (`Replica`, `follow`), run as it is written there."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any, Callable

import pytest
from support import wait_until

from taskline_client import Client, Create, Delete, Update

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.fixture(scope="module")
def example() -> dict[str, Any]:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    (code,) = [block for block in blocks if "class Replica" in block]
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    exec(compile(code, str(README), "exec"), namespace)
    return namespace


class RequestLog:
    """Records the methods a client sends, by wrapping its `request`."""

    def __init__(self, client: Client) -> None:
        self.methods: list[str] = []
        send = client.request

        def request(method: str, params: Any = None) -> Any:
            self.methods.append(method)
            return send(method, params)

        client.request = request  # type: ignore[method-assign]


def everything(client: Client) -> dict[str, Any]:
    return {task.id: task for task in client.iter_tasks()}


def test_the_first_sync_loads_and_follows_on_from_the_pages_seq(
    open_client: Callable[..., Client], example: dict[str, Any]
) -> None:
    writer = open_client()
    kept = writer.create("kept")
    writer.update(writer.create("gone").id, done=True)
    writer.delete(writer.create("gone too").id)
    writer.update(kept.id, title="renamed")
    replica, reader = example["Replica"](), open_client()
    log = RequestLog(reader)
    replica.sync(reader)
    assert replica.tasks == everything(writer) and len(replica.tasks) == 2
    assert replica.seq == list(writer.iter_changes(0))[-1].seq
    assert log.methods == ["tasks/fetch", "tasks/changes"]  # no replay of the history


def test_a_reconnect_catches_up_without_a_reload(open_client: Callable[..., Client], example: dict[str, Any]) -> None:
    replica = example["Replica"]()
    first = open_client()
    doomed, changed = first.create("doomed"), first.create("changed")
    replica.sync(first)
    first.close()
    # While the replica is away, another process writes (and reuses a deleted id).
    other = open_client()
    other.apply([Delete(doomed.id), Update(changed.id, priority=3), Create("new")])
    other.delete(changed.id)
    other.create("back again", id=changed.id)
    again = open_client()
    log = RequestLog(again)
    replica.sync(again)
    assert replica.tasks == everything(other)
    assert sorted(task.title for task in replica.tasks.values()) == ["back again", "new"]
    assert log.methods == ["tasks/changes"]


def test_an_expired_history_falls_back_to_a_reload(open_client: Callable[..., Client], example: dict[str, Any]) -> None:
    replica = example["Replica"]()
    first = open_client()
    first.create("one")
    replica.sync(first)
    first.close()
    other = open_client()
    other.create("two")
    other.create("two and a half")
    other.close()
    forgetful = open_client(args=["--history-days", "0"])  # keeps only the newest change
    log = RequestLog(forgetful)
    replica.sync(forgetful)
    assert sorted(task.title for task in replica.tasks.values()) == ["one", "two", "two and a half"]
    assert "tasks/fetch" in log.methods
    made = forgetful.create("three")
    replica.sync(forgetful)  # the seq the reload ended on is one the server knows
    assert replica.tasks == everything(forgetful) and made.id in replica.tasks


def test_another_database_at_the_same_path_falls_back_to_a_reload(
    open_client: Callable[..., Client], example: dict[str, Any], db: Path
) -> None:
    replica = example["Replica"]()
    first = open_client()
    first.create("old")
    replica.sync(first)
    first.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    fresh = open_client()
    for number in range(3):  # the new file's seq passes the one the replica knows
        fresh.create(f"new {number}")
    replica.sync(fresh)
    assert sorted(task.title for task in replica.tasks.values()) == ["new 0", "new 1", "new 2"]


def test_follow_keeps_the_replica_current_until_the_server_goes(
    open_client: Callable[..., Client], example: dict[str, Any]
) -> None:
    replica, client, writer = example["Replica"](), open_client(), open_client()
    writer.create("before")
    follower = threading.Thread(target=example["follow"], args=(client, replica), daemon=True)
    follower.start()
    results = writer.apply([Create(f"batch {number}") for number in range(4)])  # several changes, one notification
    writer.delete(results[0].unwrap().id)  # type: ignore[union-attr]
    assert wait_until(lambda: replica.tasks == everything(writer)), replica.tasks
    assert len(replica.tasks) == 4
    client.process.kill()
    follower.join(5)
    assert not follower.is_alive()
