"""taskline-caldav: sync a Taskline database with a CalDAV collection, or copy it to and
from an .ics file.

    taskline-caldav sync --db PATH --url COLLECTION_URL --user NAME [--watch [--interval S]] [--insecure]
    taskline-caldav export --db PATH FILE.ics
    taskline-caldav import --db PATH FILE.ics

The password comes from $TASKLINE_CALDAV_PASSWORD, else from ~/.netrc (the machine of the
URL, with --user's login): never from the command line, and it is never printed.
Exit status: 0 done, 1 the sync failed (message on stderr), 2 a usage error.
"""

from __future__ import annotations

import argparse
import json
import netrc
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from caldav.lib.error import DAVError
from taskline_client import Client, TasklineError, find_server

from . import __version__
from .mapping import BadItem, create_params, from_ics, task_fields, to_ics
from .sync import Sync, SyncError, all_tasks, open_collection, warn

PASSWORD_VARIABLE = "TASKLINE_CALDAV_PASSWORD"


def password_for(url: str, user: str) -> str:
    password = os.environ.get(PASSWORD_VARIABLE)
    if password:
        return password
    host = urllib.parse.urlsplit(url).hostname or ""
    try:
        entry = netrc.netrc().authenticators(host)
    except (FileNotFoundError, netrc.NetrcParseError):
        entry = None
    if entry is not None and entry[2] and entry[0] in ("", user):
        return entry[2]
    raise SystemExit(
        f"taskline-caldav: no password for {user} at {host}: set ${PASSWORD_VARIABLE} or add it to ~/.netrc"
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="taskline-caldav", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"taskline-caldav {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    sync = commands.add_parser("sync", help="exchange every change with a CalDAV collection, both ways")
    sync.add_argument("--db", required=True, help="the database: a SQLite file or postgresql://…")
    sync.add_argument("--url", required=True, help="the collection's URL (a calendar that holds tasks)")
    sync.add_argument(
        "--user", required=True, help="the user name (the password: $TASKLINE_CALDAV_PASSWORD or ~/.netrc)"
    )
    sync.add_argument(
        "--watch", action="store_true", help="keep running: push changes as they happen, pull every --interval"
    )
    sync.add_argument("--interval", type=float, default=60.0, help="seconds between pulls with --watch (default 60)")
    sync.add_argument("--insecure", action="store_true", help="do not verify the server's HTTPS certificate (unsafe)")
    sync.add_argument(
        "--auth",
        choices=("basic", "digest", "auto"),
        default="basic",
        help="how to send the credentials (default basic; auto: as the server asks)",
    )
    sync.add_argument("--server", help="the taskline binary (default $TASKLINE_SERVER, else taskline on PATH)")
    for name, what in (("export", "write every task to an .ics file"), ("import", "add the tasks of an .ics file")):
        command = commands.add_parser(name, help=what)
        command.add_argument("--db", required=True, help="the database: a SQLite file or postgresql://…")
        command.add_argument("--server", help="the taskline binary (default $TASKLINE_SERVER, else taskline on PATH)")
        command.add_argument("file", type=Path, help="the .ics file")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    try:
        if options.command == "import":
            return import_file(options.db, options.file, options.server)
        with Client(options.db, server=options.server) as client:
            if options.command == "export":
                return export_file(client, options.file)
            return _sync(client, options)
    except SyncError as failure:
        warn(str(failure))
        return 1
    except TasklineError as failure:
        warn(f"taskline: {failure}")
        return 1
    except (DAVError, OSError) as failure:
        # A network drop or a server error halfway through a sync: its state was not saved,
        # and the next run takes it up again (docs/caldav.md, "An interrupted sync").
        warn(f"{options.command} stopped: {failure}")
        return 1


def _sync(client: Client, options: Any) -> int:
    if urllib.parse.urlsplit(options.url).password is not None:
        # A password in the URL would show in `ps`, and in messages that name the URL.
        warn(f"--url holds a password: give it in ${PASSWORD_VARIABLE} or ~/.netrc instead")
        return 2
    if options.insecure:
        warn(
            "WARNING: --insecure: the server's certificate is NOT checked;"
            " anyone on the way to it can read and change your tasks, and your password"
        )
        import urllib3

        urllib3.disable_warnings()
    password = password_for(options.url, options.user)
    calendar = open_collection(options.url, options.user, password, options.insecure, options.auth)
    if not options.watch:
        report = Sync(client, calendar, options.url, options.user).run()
        warn(report.summary())
        return 0
    changed = threading.Event()
    client.on_change(lambda _notification: changed.set())
    while True:
        try:
            report = Sync(client, calendar, options.url, options.user).run()
            warn(report.summary())
        except SyncError as failure:
            warn(f"{failure}; trying again in {options.interval:g} s")
        changed.clear()
        changed.wait(options.interval)
        time.sleep(0.2)  # a burst of changes (an apply, a few commands) goes in one sync


def export_file(client: Client, path: Path) -> int:
    blocks = []
    for task in all_tasks(client):
        text = to_ics(
            task_fields(task),
            uid=task["id"],
            task_id=task["id"],
            created_at=task["createdAt"],
            updated_at=task["updatedAt"],
            completed_at=task.get("completedAt"),
        )
        start = text.index("BEGIN:VTODO")
        blocks.append(text[start : text.rindex("END:VTODO") + len("END:VTODO\r\n")])
    head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Taskline//taskline-caldav//EN\r\n"
    path.write_text(head + "".join(blocks) + "END:VCALENDAR\r\n", encoding="utf-8", newline="")
    warn(f"wrote {len(blocks)} tasks to {path}")
    return 0


def import_file(db: str, path: Path, server: str | None = None) -> int:
    """Adds the file's tasks with `taskline import` (one transaction, and the times the file
    has kept: CREATED, LAST-MODIFIED, COMPLETED), each VTODO it cannot read named and skipped."""
    records: list[tuple[str, dict[str, Any]]] = []
    for uid, text in split_objects(path.read_text(encoding="utf-8", errors="replace")):
        try:
            parsed = from_ics(text)
        except BadItem as bad:
            warn(f"skipped {uid or '(no UID)'}: {bad}")
            continue
        record = create_params(parsed.task_id, parsed.fields)
        if parsed.fields["dependsOn"]:
            record["dependsOn"] = parsed.fields["dependsOn"]
        record.update(parsed.times)
        records.append((uid, record))
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8") as lines:
        for _, record in records:
            lines.write(json.dumps(record, ensure_ascii=False) + "\n")
        lines.flush()
        command = [find_server(server), "import", lines.name, "--db", db, "--skip-invalid"]
        result = subprocess.run(command, capture_output=True, text=True)
    # taskline names a refused record by its line: the UID says which VTODO it was.
    for line in result.stderr.splitlines():
        line = line.replace(lines.name, str(path))
        found = re.search(r"line (\d+)", line)
        if found and 0 < int(found.group(1)) <= len(records):
            line += f" (UID {records[int(found.group(1)) - 1][0]})"
        warn(line.removeprefix("taskline: "))
    return 0 if result.returncode == 0 else 1


def split_objects(text: str) -> list[tuple[str, str]]:
    """The calendar's components grouped by UID, each as a VCALENDAR of its own (with the
    file's time zones), found line by line so that one unreadable component spoils no other."""
    lines = text.replace("\r\n", "\n").split("\n")
    timezones: list[str] = []
    groups: dict[str, list[str]] = {}
    block: list[str] = []
    depth = 0
    for line in lines:
        if depth == 0 and line.upper().startswith("BEGIN:") and line.upper() != "BEGIN:VCALENDAR":
            block = []
        if line.upper().startswith("BEGIN:") and line.upper() != "BEGIN:VCALENDAR":
            depth += 1
        if depth > 0:
            block.append(line)
        if line.upper().startswith("END:") and line.upper() != "END:VCALENDAR" and depth > 0:
            depth -= 1
            if depth == 0:
                if block[0].upper() == "BEGIN:VTIMEZONE":
                    timezones += block
                else:
                    uid = next((b[4:].strip() for b in block if b.upper().startswith("UID:")), "")
                    groups.setdefault(uid, []).extend(block)
    head = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Taskline//taskline-caldav//EN"]
    return [(uid, "\r\n".join([*head, *timezones, *block, "END:VCALENDAR", ""])) for uid, block in groups.items()]


if __name__ == "__main__":
    sys.exit(main())
