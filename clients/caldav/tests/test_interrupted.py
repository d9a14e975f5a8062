"""A sync killed halfway resumes with no duplicates and nothing lost; a server edit made while
a sync runs is never overwritten blind (If-Match)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import USER, DavServer
from support import objects, put, run_sync, text_of, vtodo
from taskline_client import Client
from test_sync import fields_by_id

from taskline_caldav.sync import Sync, open_collection

COUNT = 300


def start_sync(server: str, db: Path, url: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "taskline_caldav", "sync", "--db", str(db), "--url", url, "--user", USER]
    return subprocess.Popen(
        command,
        env={**os.environ, "TASKLINE_SERVER": server},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_sigkill_while_pushing_then_a_resumed_sync_makes_no_duplicates(
    server: str, radicale: DavServer, collection: str, tmp_path: Path
) -> None:
    laptop, desktop = tmp_path / "laptop.sqlite", tmp_path / "desktop.sqlite"
    with Client(laptop, server=server) as client:
        client.request("tasks/apply", {"operations": [{"create": {"title": f"Task {n}"}} for n in range(COUNT)]})
    process = start_sync(server, laptop, collection)
    # Killed once the server holds some of the tasks and not all: watched in Radicale's storage.
    while len(radicale.files(collection)) < COUNT // 4:
        assert process.poll() is None, "the sync ended before it could be killed"
        time.sleep(0.01)  # a poll's pace, not a wait for anything
    process.send_signal(signal.SIGKILL)
    process.communicate()
    written = len(radicale.files(collection))
    assert 0 < written < COUNT
    run_sync(server, laptop, collection)
    assert len(objects(collection)) == COUNT == len(radicale.files(collection))
    again = run_sync(server, laptop, collection)
    assert "0 to it" in again.stderr and "0 from the server" in again.stderr
    run_sync(server, desktop, collection)
    assert fields_by_id(desktop, server) == fields_by_id(laptop, server)


def test_sigkill_while_pulling_then_a_resumed_sync_makes_no_duplicates(
    server: str, collection: str, tmp_path: Path
) -> None:
    laptop, desktop = tmp_path / "laptop.sqlite", tmp_path / "desktop.sqlite"
    with Client(laptop, server=server) as client:
        client.request("tasks/apply", {"operations": [{"create": {"title": f"Task {n}"}} for n in range(COUNT)]})
    run_sync(server, laptop, collection)
    process = start_sync(server, desktop, collection)
    # Killed once the desktop's database holds tasks, before the sync could save its state.
    with Client(desktop, server=server) as watcher:
        while watcher.request("tasks/fetch", {"limit": 1, "includeTotal": True})["total"] == 0:
            assert process.poll() is None, "the sync ended before it could be killed"
            # No pause: the window between the commit and the state's save is short.
        process.send_signal(signal.SIGKILL)
    process.communicate()
    assert process.returncode == -signal.SIGKILL
    run_sync(server, desktop, collection)
    assert fields_by_id(desktop, server) == fields_by_id(laptop, server)
    assert len(objects(collection)) == COUNT
    again = run_sync(server, desktop, collection)
    assert "0 to it" in again.stderr


def test_a_server_edit_during_the_sync_is_not_overwritten(
    server: str, collection: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "tasks.sqlite"
    with Client(db, server=server) as client:
        task: dict[str, Any] = client.request("tasks/create", {"title": "Water the plants"})
    run_sync(server, db, collection)
    with Client(db, server=server) as client:
        client.request("tasks/update", {"id": task["id"], "changes": {"priority": 3}})
        sync = Sync(
            client, open_collection(collection, USER, os.environ["TASKLINE_CALDAV_PASSWORD"], False), collection, USER
        )
        listed = sync._remote_changes

        def racing() -> Any:
            # Another client writes right after this sync listed the collection.
            result = listed()
            text = text_of(collection, task["id"]).replace("SUMMARY:Water the plants", "SUMMARY:Water the ferns")
            put(collection, task["id"], text)
            return result

        monkeypatch.setattr(sync, "_remote_changes", racing)
        sync.run()
    assert "changed on the server during the sync" in capsys.readouterr().err
    assert str(objects(collection)[task["id"]]["SUMMARY"]) == "Water the ferns"
    run_sync(server, db, collection)
    with Client(db, server=server) as client:
        merged = client.request("tasks/get", {"id": task["id"]})
    assert merged["title"] == "Water the ferns" and merged["priority"] == 3
    todo = objects(collection)[task["id"]]
    assert str(todo["SUMMARY"]) == "Water the ferns" and int(todo["PRIORITY"]) == 1


def test_watch_pushes_a_change_as_it_happens_and_pulls_the_server_s(
    server: str, radicale: DavServer, collection: str, tmp_path: Path
) -> None:
    db = tmp_path / "tasks.sqlite"
    command = [sys.executable, "-m", "taskline_caldav", "sync", "--db", str(db), "--url", collection, "--user", USER]
    watcher = subprocess.Popen(
        [*command, "--watch", "--interval", "0.2"],
        env={**os.environ, "TASKLINE_SERVER": server},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with Client(db, server=server) as client:
            task = client.request("tasks/create", {"title": "Made while watched"})
            # Pushed on Taskline's notification: watched in Radicale's storage.
            while not any(task["id"] in path.name for path in radicale.files(collection)):
                assert watcher.poll() is None, watcher.communicate()[1]
                time.sleep(0.02)
            put(collection, "from-phone", vtodo("from-phone", "SUMMARY:Made on the phone"))
            while client.request("tasks/fetch", {"filter": {"ids": ["from-phone"]}})["tasks"] == []:
                assert watcher.poll() is None, watcher.communicate()[1]
                time.sleep(0.02)
    finally:
        watcher.terminate()
        watcher.communicate()
