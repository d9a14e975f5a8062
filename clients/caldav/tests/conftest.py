"""A real Radicale server for the tests, and the `taskline` binary they sync with.

Radicale runs on 127.0.0.1 (a free port) with htpasswd authentication, its storage in the
test session's temporary folder; the fixture waits until it answers HTTP, and stops it
after the session. Each test gets a collection of its own.
"""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import caldav
import pytest

REPOSITORY = Path(__file__).resolve().parents[3]
USER = "alice"
PASSWORD = "correct horse battery staple"
_collections = itertools.count(1)


@dataclass
class Radicale:
    base: str
    process: subprocess.Popen[bytes]
    log: Path
    storage: Path

    def files(self, collection: str) -> list[Path]:
        """The objects Radicale keeps for a collection (its storage, read without asking it)."""
        folder = self.storage / "collection-root" / collection[len(self.base) :]
        return list(folder.glob("*.ics"))


@pytest.fixture(scope="session")
def server() -> str:
    path = os.environ.get("TASKLINE_SERVER") or str(REPOSITORY / ".build" / "debug" / "taskline")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no taskline binary at {path} (build it, or set TASKLINE_SERVER)")
    return path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answers(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=2)
    except urllib.error.HTTPError:
        return True  # 401: it is up, and asks who we are
    except OSError:
        return False
    return True


@pytest.fixture(scope="session")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Radicale]:
    folder = tmp_path_factory.mktemp("radicale")
    (folder / "users").write_text(f"{USER}:{PASSWORD}\n", encoding="utf-8")
    port = _free_port()
    config = folder / "config"
    config.write_text(
        f"""[server]
hosts = 127.0.0.1:{port}
[auth]
type = htpasswd
htpasswd_filename = {folder / "users"}
htpasswd_encryption = plain
[rights]
type = owner_only
[storage]
filesystem_folder = {folder / "collections"}
[logging]
level = warning
""",
        encoding="utf-8",
    )
    log = folder / "radicale.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "radicale", "--config", str(config)], stdout=output, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}/"
    try:
        # Wait for its socket to answer: polled, each try bounded, the whole bounded by the suite's limit.
        while not _answers(base):
            if process.poll() is not None:
                pytest.fail(f"radicale exited ({process.returncode}): {log.read_text(errors='replace')}")
            time.sleep(0.05)
        yield Radicale(base=base, process=process, log=log, storage=folder / "collections")
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def collection(radicale: Radicale) -> str:
    """The URL of a new, empty task collection."""
    url = f"{radicale.base}{USER}/tasks-{next(_collections)}-{os.getpid()}/"
    client = caldav.DAVClient(url=radicale.base, username=USER, password=PASSWORD)
    client.principal().make_calendar(
        name="Tasks", cal_id=url.rstrip("/").rsplit("/", 1)[1], supported_calendar_component_set=["VTODO", "VEVENT"]
    )
    return url


@pytest.fixture(autouse=True)
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's sync state in its own folder, never the user's."""
    folder = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    monkeypatch.setenv("TASKLINE_CALDAV_PASSWORD", PASSWORD)
    monkeypatch.setenv("HOME", str(tmp_path))
    return folder
