"""Real CalDAV servers on 127.0.0.1 for the tests and the benchmark, each with a password,
its storage in a given folder, started, waited for until it answers, and stopped after:
Radicale (htpasswd, plain HTTP) and Xandikos (htpasswd over HTTPS with a self-signed
certificate, so that the tests see certificate checking and --insecure)."""

from __future__ import annotations

import base64
import hashlib
import socket
import ssl
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
class DavServer:
    base: str
    process: subprocess.Popen[bytes]
    log: Path
    storage: Path
    #: Where the user's collections go, under the base URL.
    collections: str = f"{USER}/"

    def files(self, collection: str) -> list[Path]:
        """The objects Radicale keeps for a collection (its storage, read without asking it)."""
        assert self.collections == f"{USER}/", "Radicale's storage only"
        folder = self.storage / "collection-root" / collection[len(self.base) :]
        return list(folder.glob("*.ics"))

    def make_collection(self, name: str) -> str:
        """The URL of a new, empty calendar collection (for tasks and events)."""
        url = f"{self.base}{self.collections}{name}/"
        response = dav(self.base).mkcalendar(url)
        assert response.status == 201, f"MKCALENDAR {url}: {response.status}"
        return url


def dav(url: str) -> Any:
    """A CalDAV client as the test user, sending the password with the first request (and
    trusting the test's own Xandikos certificate)."""
    return DAVClient(
        url=url, username=USER, password=PASSWORD, auth_type="basic", ssl_verify_cert=not is_local_https(url)
    )


def is_local_https(url: str) -> bool:
    return url.startswith("https://127.0.0.1:")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answers(url: str) -> bool:
    unchecked = ssl.create_default_context()
    unchecked.check_hostname = False
    unchecked.verify_mode = ssl.CERT_NONE
    try:
        urllib.request.urlopen(url, timeout=2, context=unchecked)
    except urllib.error.HTTPError:
        return True  # 401: it is up, and asks who we are
    except OSError:
        return False
    return True


def _wait(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    """Until the server's socket answers: polled, each try bounded; the whole by the suite's limit."""
    while not _answers(url):
        if process.poll() is not None:
            raise RuntimeError(f"{url}: the server exited ({process.returncode}): {log.read_text(errors='replace')}")
        time.sleep(0.05)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def running_xandikos(folder: Path) -> Iterator[DavServer]:
    digest = base64.b64encode(hashlib.sha1(PASSWORD.encode()).digest()).decode()
    (folder / "users").write_text(f"{USER}:{{SHA}}{digest}\n", encoding="utf-8")
    port = _free_port()
    log = folder / "xandikos.log"
    command = [sys.executable, "-m", "xandikos", "serve", "-d", str(folder / "data"), "--autocreate"]
    command += ["--autocert", "--htpasswd", str(folder / "users"), "--state-dir", str(folder / "state")]
    command += ["-l", "127.0.0.1", "-p", str(port), "--current-user-principal", f"/{USER}/"]
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    base = f"https://127.0.0.1:{port}/"
    try:
        _wait(process, base, log)
        yield DavServer(base=base, process=process, log=log, storage=folder / "data", collections=f"{USER}/calendars/")
    finally:
        _stop(process)


@contextmanager
def running_radicale(folder: Path) -> Iterator[DavServer]:
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
        _wait(process, base, log)
        yield DavServer(base=base, process=process, log=log, storage=folder / "collections")
    finally:
        _stop(process)
