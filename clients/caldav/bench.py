"""Measures taskline-caldav against a local Radicale (started here, in a temporary folder).

    python3 clients/caldav/bench.py [--tasks 5000] [--changes 10]

1. A week of the command-line tour's tasks (docs/command-line.md), written with the tour's
   own words (`tasks/parse`) plus a recurring one, a reminder, annotations, an active and a
   done one, synced into Radicale and from there into a second database; then the two
   databases' exports compared field by field (the command is printed, with its result).
2. N tasks synced once; then C changes, half in Taskline and half on the server, and the
   time of the one `taskline-caldav sync` that exchanges them (the whole command: Python's
   start, the imports, spawning taskline), best and median of 5 rounds.

Needs TASKLINE_SERVER (or `taskline` on PATH); run it with .venv's Python.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))

from dav_servers import PASSWORD, USER, dav, running_radicale  # noqa: E402
from taskline_client import Client  # noqa: E402

TOUR = [
    "Pay the electricity bill +home pri:H due:-2d",
    "Book the train to Porto +travel due:tomorrow",
    "Write the release notes project:Work.Release pri:M due:fri",
    "Buy a new chain +home project:Home.Garage",
    "-- Call re:meeting",
    "Water the plants +home due:sat recur:weekly",
    "Renew the passport +admin due:+5d remind:+4d pri:L",
    "Review the pull request project:Work.Release +review due:tomorrow",
]
# The fields the server sets itself, which a sync cannot carry into another database.
SERVER_SET = ".version, .createdAt, .updatedAt, .completedAt, .seriesId"


def sync(db: Path, url: str) -> float:
    start = time.perf_counter()
    command = [sys.executable, "-m", "taskline_caldav", "sync", "--db", str(db), "--url", url, "--user", USER]
    result = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"sync failed: {result.stderr}")
    return elapsed


def week(folder: Path, url: str) -> None:
    laptop, desktop = folder / "laptop.sqlite", folder / "desktop.sqlite"
    with Client(laptop) as client:
        ids = []
        for words in TOUR:
            params = client.request("tasks/parse", {"text": words})["task"]
            ids.append(client.request("tasks/create", params)["id"])
        fix = client.request("tasks/parse", {"text": f"Fix bike +home project:Home.Garage wait:+3d depends:{ids[3]}"})
        client.request("tasks/create", fix["task"])
        client.request(
            "tasks/update",
            {"id": ids[1], "changes": {"due": "2026-12-04T08:30:00+00:00", "tags": ["train", "travel"]}},
        )
        client.request("tasks/update", {"id": ids[0], "changes": {"done": True}})
        client.request(
            "tasks/update",
            {
                "id": ids[2],
                "changes": {
                    "notes": "Sections: features, fixes; thanks.\nAsk Ana about the date.",
                    "startedAt": "2026-12-02T09:00:00Z",
                    "addAnnotations": [{"at": "2026-12-02T10:15:00Z", "text": "draft in the wiki"}],
                    "meta": {"estimate": "2h", "links": ["https://example.org/release"]},
                },
            },
        )
        client.request("tasks/update", {"id": ids[5], "changes": {"done": True}})  # makes next week's
    sync(laptop, url)
    sync(desktop, url)
    norm = f"sort_by(.id) | map(del({SERVER_SET}))"
    taskline = taskline_binary()
    command = (
        f"set -o pipefail; diff <({taskline} export --db {laptop} --format json | jq -S '{norm}') "
        f"<({taskline} export --db {desktop} --format json | jq -S '{norm}') && echo identical"
    )
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    count = len(
        subprocess.run(
            [taskline, "export", "--db", str(desktop)], capture_output=True, text=True, check=True
        ).stdout.splitlines()
    )
    print(f"week: {count} tasks through Radicale into a second database")
    print(f"$ {command}")
    print(result.stdout + result.stderr, end="", flush=True)
    # A comparison of two empty exports would say identical too.
    if result.returncode != 0 or count < len(TOUR):
        raise SystemExit("week: the second database differs, or holds fewer tasks than the first")


def taskline_binary() -> str:
    """The taskline the client spawns: TASKLINE_SERVER, else the one on PATH."""
    found = os.environ.get("TASKLINE_SERVER") or shutil.which("taskline")
    if not found:
        raise SystemExit("bench: set TASKLINE_SERVER or put taskline on PATH")
    return found


def incremental(folder: Path, url: str, tasks: int, changes: int) -> None:
    from taskline_caldav.cli import export_file

    # The collection is filled in one request (a collection PUT, as Radicale's web page
    # uploads a file): one PUT per task costs Radicale time that grows with the collection.
    # The database under test then takes them all in its first sync.
    source, db = folder / "source.sqlite", folder / "many.sqlite"
    with Client(source) as client:
        for start in range(0, tasks, 1000):
            operations = []
            for n in range(start, min(tasks, start + 1000)):
                fields: dict[str, Any] = {"title": f"Task {n} of the benchmark", "tags": [f"tag{n % 7}"]}
                if n % 3 == 0:
                    fields["due"] = f"2027-{1 + n % 12:02d}-{1 + n % 28:02d}"
                if n % 5 == 0:
                    fields["project"] = f"Area{n % 4}.Part{n % 3}"
                fields["priority"] = n % 4
                fields["done"] = n % 10 == 0
                operations.append({"create": fields})
            client.request("tasks/apply", {"operations": operations})
        ids = [task["id"] for task in client.request("tasks/fetch", {"limit": 1000})["tasks"]]
        export_file(client, folder / "many.ics")
    server_side = dav(url)
    response = server_side.put(
        url, (folder / "many.ics").read_text(encoding="utf-8"), {"Content-Type": "text/calendar"}
    )
    assert response.status in (201, 204), response.status
    first = sync(db, url)
    print(f"first sync, {tasks} tasks from the server into an empty database: {first:.1f} s", flush=True)
    sync(db, url)
    times = []
    for round_number in range(5):
        local = changes // 2
        with Client(db) as client:
            for n in range(local):
                task_id = ids[round_number * changes + n]
                client.request("tasks/update", {"id": task_id, "changes": {"title": f"Changed here {round_number}"}})
        hrefs = {
            str(obj.url).rsplit("/", 1)[1]: obj.url for obj in server_side.calendar(url=url).get_objects_by_sync_token()
        }
        for n in range(local, changes):
            task_id = ids[round_number * changes + n]
            href = next(str(address) for name, address in hrefs.items() if name.startswith(task_id))
            text = str(server_side.request(href).raw)
            text = text.replace("SUMMARY:Task", f"SUMMARY:Changed there {round_number}:")
            assert server_side.put(href, text, {"Content-Type": "text/calendar"}).status == 204
        times.append(sync(db, url))
        print(f"  round {round_number + 1}: {times[-1]:.2f} s", flush=True)
    print(
        f"incremental sync, {tasks} tasks, {changes} changes ({changes // 2} each side): "
        f"best {min(times):.2f} s, median {statistics.median(times):.2f} s (of {len(times)})",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=5000)
    parser.add_argument("--changes", type=int, default=10)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        os.environ["XDG_STATE_HOME"] = str(folder / "state")
        os.environ["TASKLINE_CALDAV_PASSWORD"] = PASSWORD
        radicale_folder = folder / "radicale"
        radicale_folder.mkdir()
        with running_radicale(radicale_folder) as radicale:
            week(folder, radicale.make_collection("week"))
            incremental(folder, radicale.make_collection("many"), options.tasks, options.changes)


if __name__ == "__main__":
    main()
