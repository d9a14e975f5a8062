"""taskline-caldav sync against a real Radicale: fields both ways, changes on either side,
deletions, conflicts, two databases through one collection, bad items, wrong password."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support import delete, objects, put, run_sync, vtodo
from taskline_client import Client

from taskline_caldav.mapping import task_fields


def create(client: Client, title: str, **fields: Any) -> dict[str, Any]:
    task: dict[str, Any] = client.request("tasks/create", {"title": title, **fields})
    return task


def everything(db: Path | str, server: str) -> dict[str, dict[str, Any]]:
    """Every task of a database by id: its syncing fields."""
    with Client(db, server=server) as client:
        tasks: dict[str, dict[str, Any]] = {}
        cursor = None
        while True:
            params: dict[str, Any] = {"limit": 1000, **({"cursor": cursor} if cursor else {})}
            page = client.request("tasks/fetch", params)
            tasks.update({task["id"]: task for task in page["tasks"]})
            cursor = page.get("nextCursor")
            if not cursor:
                return tasks


def fields_by_id(db: Path | str, server: str) -> dict[str, dict[str, Any]]:
    return {task_id: task_fields(task) for task_id, task in everything(db, server).items()}


def get(db: Path | str, server: str, task_id: str) -> dict[str, Any]:
    with Client(db, server=server) as client:
        task: dict[str, Any] = client.request("tasks/get", {"id": task_id})
        return task


def test_every_field_goes_to_the_server_and_into_another_database(server: str, collection: str, tmp_path: Path) -> None:
    laptop, desktop = tmp_path / "laptop.sqlite", tmp_path / "desktop.sqlite"
    with Client(laptop, server=server) as client:
        chain = create(client, "Buy a new chain", tags=["home"], project="Home.Garage", priority=1)
        bike = create(
            client,
            "Fix bike",
            notes="Rear wheel.\nThe chain, then the brakes; then test, ride.",
            tags=["home", "bike"],
            priority=3,
            due="2026-12-04T08:30:00+01:00",
            project="Home.Garage",
            dependsOn=[chain["id"]],
            wait="2026-12-02",
            meta={"source": "tour", "nested": {"list": [1, 2.5, "x"]}},
            remindAt="2026-12-04T07:00:00Z",
            startedAt="2026-12-01T10:00:00Z",
            annotations=[{"at": "2026-12-01T11:00:00Z", "text": "Asked Ana for the pump"}],
        )
        create(
            client,
            "Pay the rent",
            due="2027-01-31",
            priority=2,
            recurrence={"rule": "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD"},
        )
        create(client, "Book the train", done=True, tags=["travel"])
    before = fields_by_id(laptop, server)
    run_sync(server, laptop, collection)

    on_server = objects(collection)
    assert set(on_server) == set(before)
    todo = on_server[bike["id"]]
    assert str(todo["SUMMARY"]) == "Fix bike"
    assert str(todo["DESCRIPTION"]).startswith("Rear wheel.\nThe chain")
    assert str(todo["STATUS"]) == "IN-PROCESS"
    assert int(todo["PRIORITY"]) == 1
    assert todo["DUE"].to_ical() == b"20261204T073000Z"
    assert todo["DTSTART"].to_ical() == b"20261202"
    assert set(todo.categories) == {"home", "bike", "project:Home.Garage"}
    assert str(todo["RELATED-TO"]) == chain["id"] and todo["RELATED-TO"].params["RELTYPE"] == "DEPENDS-ON"
    alarm = todo.subcomponents[0]
    assert alarm.name == "VALARM" and alarm["TRIGGER"].to_ical() == b"20261204T070000Z"
    rent = next(t for t in on_server.values() if str(t["SUMMARY"]) == "Pay the rent")
    assert rent["DUE"].to_ical() == b"20270131" and "RRULE" in rent and int(rent["PRIORITY"]) == 5
    train = next(t for t in on_server.values() if str(t["SUMMARY"]) == "Book the train")
    assert str(train["STATUS"]) == "COMPLETED" and "COMPLETED" in train

    run_sync(server, desktop, collection)
    assert fields_by_id(desktop, server) == before
    # And nothing to do after: a second sync of each changes nothing.
    run_sync(server, laptop, collection)
    run_sync(server, desktop, collection)
    assert fields_by_id(laptop, server) == before == fields_by_id(desktop, server)


PHONE_TASK = vtodo(
    "phone-1@example.org",
    "SUMMARY:Call the plumber",
    "DESCRIPTION:About the kitchen tap",
    "STATUS:NEEDS-ACTION",
    "DUE;TZID=Europe/Berlin:20261210T090000",
    "DTSTART;VALUE=DATE:20261208",
    "PRIORITY:3",
    "CATEGORIES:house,calls",
    "RRULE:FREQ=WEEKLY;BYDAY=TH",
    "RELATED-TO;RELTYPE=PARENT:someone-else",
    "X-APPLE-SORT-ORDER:42",
    "BEGIN:VALARM",
    "ACTION:DISPLAY",
    "DESCRIPTION:Reminder",
    "TRIGGER;VALUE=DATE-TIME:20261210T070000Z",
    "END:VALARM",
)


def test_a_task_written_by_another_client_reaches_taskline_and_keeps_its_properties(
    server: str, collection: str, tmp_path: Path
) -> None:
    db = tmp_path / "tasks.sqlite"
    put(collection, "phone-1@example.org", PHONE_TASK)
    put(collection, "low", vtodo("low", "SUMMARY:Low one", "PRIORITY:7", "DUE;VALUE=DATE:20261211"))
    put(collection, "medium", vtodo("medium", "SUMMARY:Medium one", "PRIORITY:5"))
    run_sync(server, db, collection)
    tasks = everything(db, server)
    plumber = tasks["phone-1@example.org"]
    assert plumber["title"] == "Call the plumber"
    assert plumber["notes"] == "About the kitchen tap"
    assert plumber["due"] == "2026-12-10T09:00:00+01:00"
    assert plumber["wait"] == "2026-12-08"
    assert plumber["priority"] == 3
    assert sorted(plumber["tags"]) == ["calls", "house"]
    assert plumber["recurrence"] == {"rule": "FREQ=WEEKLY;BYDAY=TH"}
    assert plumber["remindAt"] == "2026-12-10T07:00:00Z"
    assert tasks["low"]["priority"] == 1 and tasks["low"]["due"] == "2026-12-11"
    assert tasks["medium"]["priority"] == 2
    # Its properties Taskline has no field for are kept, and written back with a change.
    with Client(db, server=server) as client:
        client.request("tasks/update", {"id": "phone-1@example.org", "changes": {"title": "Call the plumber again"}})
    run_sync(server, db, collection)
    todo = objects(collection)["phone-1@example.org"]
    assert str(todo["SUMMARY"]) == "Call the plumber again"
    assert str(todo["X-APPLE-SORT-ORDER"]) == "42"
    assert str(todo["RELATED-TO"]) == "someone-else" and todo["RELATED-TO"].params["RELTYPE"] == "PARENT"


def test_creation_completion_and_deletion_on_the_server_are_picked_up(
    server: str, collection: str, tmp_path: Path
) -> None:
    db = tmp_path / "tasks.sqlite"
    with Client(db, server=server) as client:
        kept = create(client, "Kept")
        gone = create(client, "Deleted on the phone")
    run_sync(server, db, collection)
    put(collection, "new-on-phone", vtodo("new-on-phone", "SUMMARY:Made on the phone"))
    todo = objects(collection)[kept["id"]]
    put(
        collection,
        kept["id"],
        vtodo(kept["id"], "SUMMARY:Kept", "STATUS:COMPLETED", "COMPLETED:20261205T100000Z", "PERCENT-COMPLETE:100"),
    )
    assert todo is not None
    delete(collection, gone["id"])
    run_sync(server, db, collection)
    tasks = everything(db, server)
    assert set(tasks) == {kept["id"], "new-on-phone"}
    assert tasks[kept["id"]]["done"] is True
    assert tasks["new-on-phone"]["title"] == "Made on the phone"


def test_a_deletion_in_taskline_deletes_on_the_server_and_nothing_comes_back(
    server: str, collection: str, tmp_path: Path
) -> None:
    laptop, desktop = tmp_path / "laptop.sqlite", tmp_path / "desktop.sqlite"
    with Client(laptop, server=server) as client:
        task = create(client, "Soon deleted")
        create(client, "Stays")
    run_sync(server, laptop, collection)
    run_sync(server, desktop, collection)
    with Client(laptop, server=server) as client:
        client.request("tasks/delete", {"id": task["id"]})
    run_sync(server, laptop, collection)
    assert task["id"] not in objects(collection)
    run_sync(server, desktop, collection)
    assert task["id"] not in everything(desktop, server)
    run_sync(server, laptop, collection)
    assert task["id"] not in everything(laptop, server)
    assert len(objects(collection)) == 1


def test_offline_edits_on_both_sides_merge_field_by_field(server: str, collection: str, tmp_path: Path) -> None:
    db = tmp_path / "tasks.sqlite"
    with Client(db, server=server) as client:
        task = create(client, "Write the release notes", tags=["work"], priority=2)
    run_sync(server, db, collection)
    # Offline: the phone changes the title and adds a tag; Taskline the priority and another tag.
    put(
        collection,
        task["id"],
        vtodo(task["id"], "SUMMARY:Write the release notes for 2.0", "PRIORITY:5", "CATEGORIES:work,phone"),
    )
    with Client(db, server=server) as client:
        client.request("tasks/update", {"id": task["id"], "changes": {"priority": 3, "tags": ["work", "laptop"]}})
    run_sync(server, db, collection)
    merged = get(db, server, task["id"])
    assert merged["title"] == "Write the release notes for 2.0"
    assert merged["priority"] == 3
    assert sorted(merged["tags"]) == ["laptop", "phone", "work"]
    todo = objects(collection)[task["id"]]
    assert str(todo["SUMMARY"]) == "Write the release notes for 2.0"
    assert int(todo["PRIORITY"]) == 1
    assert set(todo.categories) == {"laptop", "phone", "work"}


def test_both_sides_changing_one_field_keeps_taskline_s_and_notes_the_server_s(
    server: str, collection: str, tmp_path: Path
) -> None:
    db = tmp_path / "tasks.sqlite"
    with Client(db, server=server) as client:
        task = create(client, "Buy oat milk")
    run_sync(server, db, collection)
    put(collection, task["id"], vtodo(task["id"], "SUMMARY:Buy soy milk"))
    with Client(db, server=server) as client:
        client.request("tasks/update", {"id": task["id"], "changes": {"title": "Buy rice milk"}})
    result = run_sync(server, db, collection)
    assert "both sides changed title" in result.stderr
    merged = get(db, server, task["id"])
    assert merged["title"] == "Buy rice milk"
    assert "caldav conflict: the server's title was: Buy soy milk" in merged["notes"]
    todo = objects(collection)[task["id"]]
    assert str(todo["SUMMARY"]) == "Buy rice milk"
    assert "Buy soy milk" in str(todo["DESCRIPTION"])


def converge(server: str, collection: str, laptop: Path | str, desktop: Path | str) -> None:
    with Client(laptop, server=server) as client:
        shared = create(client, "Plan the trip", tags=["travel"])
        create(client, "Only on the laptop at first")
    run_sync(server, laptop, collection)
    run_sync(server, desktop, collection)
    # Offline on both: each edits, creates and completes something.
    with Client(laptop, server=server) as client:
        client.request("tasks/update", {"id": shared["id"], "changes": {"notes": "Porto, then Lisbon"}})
        create(client, "Made on the laptop")
    with Client(desktop, server=server) as client:
        client.request("tasks/update", {"id": shared["id"], "changes": {"priority": 3}})
        create(client, "Made on the desktop")
    for db in (laptop, desktop, laptop):
        run_sync(server, db, collection)
    laptop_fields, desktop_fields = fields_by_id(laptop, server), fields_by_id(desktop, server)
    assert laptop_fields == desktop_fields
    assert len(laptop_fields) == 4 == len(objects(collection))
    assert laptop_fields[shared["id"]]["notes"] == "Porto, then Lisbon"
    assert laptop_fields[shared["id"]]["priority"] == 3


def test_two_databases_converge_through_one_collection(server: str, collection: str, tmp_path: Path) -> None:
    converge(server, collection, tmp_path / "laptop.sqlite", tmp_path / "desktop.sqlite")


def test_a_sqlite_and_a_postgresql_database_converge(server: str, collection: str, tmp_path: Path) -> None:
    postgres = os.environ.get("TASKLINE_TEST_POSTGRES")
    if not postgres:
        pytest.skip("no PostgreSQL (scripts/with-postgres sets TASKLINE_TEST_POSTGRES)")
    converge(server, collection, tmp_path / "laptop.sqlite", postgres)


def test_bad_items_are_named_on_stderr_and_skipped(server: str, collection: str, tmp_path: Path) -> None:
    db = tmp_path / "tasks.sqlite"
    put(collection, "good", vtodo("good", "SUMMARY:A good one"))
    # Radicale refuses an unparseable DUE itself (test_ics.py has one, in a file); a rule
    # Taskline cannot hold it stores.
    put(collection, "hourly", vtodo("hourly", "SUMMARY:Stretch", "DUE:20261204T090000Z", "RRULE:FREQ=HOURLY"))
    put(collection, "huge", vtodo("huge", "SUMMARY:Huge", "DESCRIPTION:" + "x" * 1_048_576))
    event = vtodo("meeting", "SUMMARY:x").replace("VTODO", "VEVENT")
    put(collection, "meeting", event.replace("SUMMARY:x", "SUMMARY:A meeting\r\nDTSTART:20261210T090000Z"))
    result = run_sync(server, db, collection)
    assert set(everything(db, server)) == {"good"}
    for name in ("hourly.ics", "huge.ics", "meeting.ics"):
        assert name in result.stderr
    assert "VEVENT" in result.stderr


def test_a_wrong_password_is_a_clear_error(server: str, collection: str, tmp_path: Path) -> None:
    secret = "not the password 7f3a"
    result = run_sync(server, tmp_path / "tasks.sqlite", collection, check=False, TASKLINE_CALDAV_PASSWORD=secret)
    assert result.returncode == 1
    assert "refused the credentials" in result.stderr
    assert secret not in result.stderr + result.stdout


def test_a_password_in_the_url_is_refused_and_not_printed(server: str, collection: str, tmp_path: Path) -> None:
    with_password = collection.replace("http://", "http://alice:hunter2-secret@")
    result = run_sync(server, tmp_path / "tasks.sqlite", with_password, check=False)
    assert result.returncode == 2
    assert "TASKLINE_CALDAV_PASSWORD" in result.stderr
    assert "hunter2-secret" not in result.stderr + result.stdout


def test_a_damaged_state_file_is_a_clear_error(server: str, collection: str, tmp_path: Path, state_home: Path) -> None:
    db = tmp_path / "tasks.sqlite"
    run_sync(server, db, collection)
    (state,) = (state_home / "taskline" / "caldav").glob("*.json")
    state.write_text('{"format": 1, "items": {"cut', encoding="utf-8")
    result = run_sync(server, db, collection, check=False)
    assert result.returncode == 1
    assert "cannot read the sync state" in result.stderr and "Traceback" not in result.stderr
