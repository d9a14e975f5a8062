from __future__ import annotations

from pathlib import Path

import pytest

from taskline_client import Client, ServerNotFound, find_server


def test_an_explicit_path_wins_over_the_environment(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKLINE_SERVER", "/nonexistent/taskline")
    assert find_server(server) == server


def test_the_environment_variable_comes_next(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKLINE_SERVER", server)
    monkeypatch.setenv("PATH", "")
    assert find_server() == server


def test_path_is_searched_last(server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "taskline").symlink_to(server)
    monkeypatch.delenv("TASKLINE_SERVER", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_server() == str(tmp_path / "taskline")


def test_nothing_found_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TASKLINE_SERVER", raising=False)
    monkeypatch.setenv("PATH", "")
    with pytest.raises(ServerNotFound, match="TASKLINE_SERVER"):
        find_server()


def test_a_missing_explicit_path_is_not_replaced_by_another_server(tmp_path: Path, server: str) -> None:
    with pytest.raises(ServerNotFound, match="not an executable"):
        Client(tmp_path / "tasks.sqlite", server=tmp_path / "no-such-taskline")
