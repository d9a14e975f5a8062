"""A real Radicale server for the tests, and the `taskline` binary they sync with.

Radicale runs on 127.0.0.1 (a free port) with htpasswd authentication, its storage in the
test session's temporary folder; the fixture waits until it answers HTTP, and stops it
after the session. Each test gets a collection of its own.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from dav_servers import PASSWORD, USER, DavServer, running_radicale, running_xandikos
from taskline_client import ServerNotFound, find_server

REPOSITORY = Path(__file__).resolve().parents[3]
__all__ = ["PASSWORD", "USER", "DavServer", "fresh_collection"]
_collections = itertools.count(1)


@pytest.fixture(scope="session")
def server() -> str:
    """$TASKLINE_SERVER (scripts/test sets it), else the checkout's debug build."""
    built = REPOSITORY / ".build" / "debug" / "taskline"
    try:
        return find_server(os.environ.get("TASKLINE_SERVER") or built)
    except ServerNotFound as missing:
        pytest.fail(f"{missing} (build it, or set TASKLINE_SERVER)")


@pytest.fixture(scope="session")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DavServer]:
    with running_radicale(tmp_path_factory.mktemp("radicale")) as running:
        yield running


@pytest.fixture(scope="session")
def xandikos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DavServer]:
    with running_xandikos(tmp_path_factory.mktemp("xandikos")) as running:
        yield running


def fresh_collection(server: DavServer) -> str:
    """The URL of a new, empty task collection on the server."""
    return server.make_collection(f"tasks-{next(_collections)}")


@pytest.fixture
def collection(radicale: DavServer) -> str:
    return fresh_collection(radicale)


@pytest.fixture(autouse=True)
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's sync state in its own folder, never the user's."""
    folder = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    monkeypatch.setenv("TASKLINE_CALDAV_PASSWORD", PASSWORD)
    monkeypatch.setenv("HOME", str(tmp_path))
    return folder
