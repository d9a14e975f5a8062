"""A real Radicale server on 127.0.0.1, for the tests and the benchmark: htpasswd
authentication, its storage in a given folder; started, waited for until it answers HTTP,
and stopped after."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from caldav.davclient import DAVClient

USER = "alice"
PASSWORD = "correct horse battery staple"


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

    def make_collection(self, name: str) -> str:
        """The URL of a new, empty collection for tasks (and events)."""
        dav(self.base).principal().make_calendar(
            name=name, cal_id=name, supported_calendar_component_set=["VTODO", "VEVENT"]
        )
        return f"{self.base}{USER}/{name}/"


def dav(url: str) -> Any:
    """A CalDAV client as the test user, sending the password with the first request."""
    return DAVClient(url=url, username=USER, password=PASSWORD, auth_type="basic")


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


@contextmanager
def running_radicale(folder: Path) -> Iterator[Radicale]:
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
        # Until its socket answers: polled, each try bounded; the whole by the suite's limit.
        while not _answers(base):
            if process.poll() is not None:
                raise RuntimeError(f"radicale exited ({process.returncode}): {log.read_text(errors='replace')}")
            time.sleep(0.05)
        yield Radicale(base=base, process=process, log=log, storage=folder / "collections")
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
