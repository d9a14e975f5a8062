from __future__ import annotations

from pathlib import Path

from support import objects, run_sync
from taskline_client import Client


def test_a_task_goes_to_the_server_and_back(server: str, collection: str, tmp_path: Path) -> None:
    laptop = tmp_path / "laptop.sqlite"
    with Client(laptop, server=server) as client:
        task = client.request("tasks/create", {"title": "Fix bike", "tags": ["home"], "due": "2026-12-04", "priority": 3})
    run_sync(server, laptop, collection)
    assert set(objects(collection)) == {task["id"]}
    desktop = tmp_path / "desktop.sqlite"
    run_sync(server, desktop, collection)
    with Client(desktop, server=server) as client:
        copy = client.request("tasks/get", {"id": task["id"]})
    assert copy["title"] == "Fix bike"
