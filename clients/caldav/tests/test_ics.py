"""taskline-caldav export and import: an .ics file instead of a server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support import vtodo
from taskline_client import Client
from test_sync import create, everything, fields_by_id


def tool(server: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "taskline_caldav", *arguments, "--server", server],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_export_then_import_gives_the_same_tasks(server: str, tmp_path: Path) -> None:
    first, second, file = tmp_path / "first.sqlite", tmp_path / "second.sqlite", tmp_path / "tasks.ics"
    with Client(first, server=server) as client:
        chain = create(client, "Buy a new chain", project="Home.Garage")
        create(
            client,
            "Fix bike",
            notes="Line one\nline two; three, four",
            tags=["home"],
            priority=3,
            due="2026-12-04T08:30:00+01:00",
            dependsOn=[chain["id"]],
            wait="2026-12-02",
            meta={"k": "v"},
            recurrence={"rule": "FREQ=MONTHLY;BYMONTHDAY=-1"},
            remindAt="2026-12-04T07:00:00Z",
            annotations=[{"at": "2026-12-01T11:00:00Z", "text": "a, b; c"}],
        )
        create(client, "Done already", done=True)
    assert tool(server, "export", "--db", str(first), str(file)).returncode == 0
    assert file.read_text(encoding="utf-8").count("BEGIN:VTODO") == 3
    result = tool(server, "import", "--db", str(second), str(file))
    assert result.returncode == 0, result.stderr
    assert fields_by_id(second, server) == fields_by_id(first, server)
    # Through `taskline import`, the times too: everything but the version.
    kept = ("createdAt", "updatedAt", "completedAt")
    copies = everything(second, server)
    for task_id, task in everything(first, server).items():
        assert {key: task[key] for key in kept} == {key: copies[task_id][key] for key in kept}


def test_import_names_and_skips_what_it_cannot_read(server: str, tmp_path: Path) -> None:
    file = tmp_path / "mixed.ics"
    good = vtodo("good", "SUMMARY:Fine")
    bad = vtodo("bad-due", "SUMMARY:Bad", "DUE:20261204T250000")
    body = good.replace("END:VCALENDAR\r\n", "") + bad.split("PRODID:-//test//EN\r\n", 1)[1]
    file.write_text(body, encoding="utf-8")
    result = tool(server, "import", "--db", str(tmp_path / "db.sqlite"), str(file))
    assert result.returncode == 0
    assert "bad-due" in result.stderr
    assert set(fields_by_id(tmp_path / "db.sqlite", server)) == {"good"}
