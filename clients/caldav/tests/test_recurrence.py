"""Completing an occurrence of a recurring task, on either side and in each shape clients
write it, makes exactly one next occurrence on both sides."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from support import objects, put, run_sync, text_of
from taskline_client import Client
from test_sync import everything

TITLE = "Take out the bins"


def start(server: str, collection: str, db: Path) -> dict[str, Any]:
    with Client(db, server=server) as client:
        task: dict[str, Any] = client.request(
            "tasks/create",
            {"title": TITLE, "due": "2026-12-03", "recurrence": {"rule": "FREQ=WEEKLY"}, "tags": ["home"]},
        )
    run_sync(server, db, collection)
    return task


def open_in_taskline(db: Path, server: str) -> list[dict[str, Any]]:
    return [task for task in everything(db, server).values() if task["title"] == TITLE and not task["done"]]


def open_on_server(collection: str) -> dict[str, Any]:
    return {
        uid: todo
        for uid, todo in objects(collection).items()
        if str(todo["SUMMARY"]) == TITLE and str(todo.get("STATUS", "")) != "COMPLETED"
    }


def assert_one_next_occurrence(server: str, collection: str, db: Path, first: dict[str, Any]) -> None:
    tasks = everything(db, server)
    assert tasks[first["id"]]["done"] is True
    assert tasks[first["id"]]["due"] == "2026-12-03"
    [following] = open_in_taskline(db, server)
    assert following["due"] == "2026-12-10"
    assert following["seriesId"] == first["id"]
    [(uid, todo)] = open_on_server(collection).items()
    assert todo["DUE"].to_ical() == b"20261210" and "RRULE" in todo
    assert len([t for t in objects(collection).values() if str(t["SUMMARY"]) == TITLE]) == 2
    # And it stays so: more syncs make nothing more.
    run_sync(server, db, collection)
    assert len(open_in_taskline(db, server)) == 1 and len(open_on_server(collection)) == 1
    assert uid in objects(collection)


def test_completed_in_taskline(server: str, collection: str, tmp_path: Path) -> None:
    laptop, desktop = tmp_path / "laptop.sqlite", tmp_path / "desktop.sqlite"
    first = start(server, collection, laptop)
    run_sync(server, desktop, collection)
    with Client(laptop, server=server) as client:
        client.request("tasks/update", {"id": first["id"], "changes": {"done": True}})
    run_sync(server, laptop, collection)
    assert_one_next_occurrence(server, collection, laptop, first)
    # The other database completes its copy of the occurrence, and makes no second next one.
    run_sync(server, desktop, collection)
    assert_one_next_occurrence(server, collection, desktop, first)


def test_tasks_org_moves_the_due_on_the_same_uid(server: str, collection: str, tmp_path: Path) -> None:
    db = tmp_path / "tasks.sqlite"
    first = start(server, collection, db)
    text = text_of(collection, first["id"])
    put(collection, first["id"], re.sub(r"DUE;VALUE=DATE:20261203", "DUE;VALUE=DATE:20261210", text))
    run_sync(server, db, collection)
    assert_one_next_occurrence(server, collection, db, first)


def test_thunderbird_writes_a_completed_instance_beside_the_series(
    server: str, collection: str, tmp_path: Path
) -> None:
    db = tmp_path / "tasks.sqlite"
    first = start(server, collection, db)
    text = text_of(collection, first["id"])
    instance = "\r\n".join(
        [
            "BEGIN:VTODO",
            f"UID:{first['id']}",
            "DTSTAMP:20261203T180000Z",
            "RECURRENCE-ID;VALUE=DATE:20261203",
            f"SUMMARY:{TITLE}",
            "DUE;VALUE=DATE:20261203",
            "STATUS:COMPLETED",
            "COMPLETED:20261203T180000Z",
            "PERCENT-COMPLETE:100",
            "END:VTODO",
            "",
        ]
    )
    put(collection, first["id"], text.replace("END:VCALENDAR", instance + "END:VCALENDAR"))
    run_sync(server, db, collection)
    assert_one_next_occurrence(server, collection, db, first)


def test_a_bridge_strips_the_rule_and_sends_the_next_occurrence_itself(
    server: str, collection: str, tmp_path: Path
) -> None:
    db = tmp_path / "tasks.sqlite"
    first = start(server, collection, db)
    text = text_of(collection, first["id"])
    completed = re.sub(r"^(X-TASKLINE-)?RRULE:[^\r\n]*\r?\n", "", text, flags=re.MULTILINE)
    completed = completed.replace("STATUS:NEEDS-ACTION", "STATUS:COMPLETED\r\nCOMPLETED:20261203T180000Z")
    put(collection, first["id"], completed)
    following = "\r\n".join(
        [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "PRODID:-//bridge//EN",
            "BEGIN:VTODO",
            "UID:bridge-next-1",
            "DTSTAMP:20261203T180000Z",
            f"SUMMARY:{TITLE}",
            "DUE;VALUE=DATE:20261210",
            "RRULE:FREQ=WEEKLY",
            "CATEGORIES:home",
            "STATUS:NEEDS-ACTION",
            "END:VTODO",
            "END:VCALENDAR",
            "",
        ]
    )
    put(collection, "bridge-next-1", following)
    run_sync(server, db, collection)
    assert_one_next_occurrence(server, collection, db, first)
    assert "bridge-next-1" in open_on_server(collection)
