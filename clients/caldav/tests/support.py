"""Helpers for the tests: running the tool, reading and writing the server's objects."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import icalendar
from conftest import USER
from dav_servers import dav, is_local_https


def run_sync(
    server: str,
    db: Path | str,
    url: str,
    *extra: str,
    check: bool = True,
    insecure: bool | None = None,
    **env: str,
) -> subprocess.CompletedProcess[str]:
    """One `taskline-caldav sync`, as a user runs it (a process of its own); `--insecure`
    unless told otherwise for the test's Xandikos, whose certificate is self-signed."""
    environment = {**os.environ, "TASKLINE_SERVER": server, **env}
    command = [sys.executable, "-m", "taskline_caldav", "sync", "--db", str(db), "--url", url, "--user", USER, *extra]
    if is_local_https(url) if insecure is None else insecure:
        command.append("--insecure")
    result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=120)
    sys.stderr.write(result.stderr)
    if check and result.returncode != 0:
        raise AssertionError(f"sync failed ({result.returncode}):\n{result.stderr}")
    return result


def calendar(url: str) -> Any:
    return dav(url).calendar(url=url)


def objects(url: str) -> dict[str, Any]:
    """The collection's objects by UID, as icalendar VTODOs (the master one)."""
    found = {}
    for obj in calendar(url).get_objects_by_sync_token(load_objects=True):
        if not obj.data:
            continue  # deleted since it was listed
        component = icalendar.Calendar.from_ical(obj.data)
        for todo in component.walk("VTODO"):
            if todo.get("RECURRENCE-ID") is None:
                found[str(todo["UID"])] = todo
    return found


def text_of(url: str, uid: str) -> str:
    """The object's text as the server serves it."""
    client = dav(url)
    response = client.request(f"{url}{uid}.ics")
    assert response.status == 200, response.status
    return "\r\n".join(str(response.raw).splitlines()) + "\r\n"


def put(url: str, uid: str, text: str) -> None:
    """Writes an object the way another client would."""
    client = dav(url)
    href = f"{url}{uid}.ics"
    headers = {"Content-Type": "text/calendar; charset=utf-8"}
    response = client.put(href, text, headers)
    assert response.status in (201, 204), response.status


def delete(url: str, uid: str) -> None:
    client = dav(url)
    response = client.delete(f"{url}{uid}.ics")
    assert response.status in (200, 204), response.status


def vtodo(uid: str, *lines: str) -> str:
    body = "\r\n".join(
        [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "PRODID:-//test//EN",
            "BEGIN:VTODO",
            f"UID:{uid}",
            "DTSTAMP:20261201T000000Z",
            *lines,
            "END:VTODO",
            "END:VCALENDAR",
            "",
        ]
    )
    return body
