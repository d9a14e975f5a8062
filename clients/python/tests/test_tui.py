"""`taskline-tui` driven through tmux: keys in, screen contents out."""

from __future__ import annotations

import itertools
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import date, timedelta
from importlib.metadata import distribution
from pathlib import Path
from typing import Callable

import pytest
from support import store_a_task_from_the_year_0, wait_until
from tmux_screen import TmuxScreen

from taskline_client import Client, Create, Update

if shutil.which("tmux") is None:
    pytest.fail("the TUI tests need tmux", pytrace=False)


class Tui:
    """The TUI running in tmux, and the file it writes its exit status to."""

    def __init__(self, screen: TmuxScreen, exit_status_file: Path) -> None:
        self.screen = screen
        self._exit_status_file = exit_status_file

    def exit_status(self) -> int | None:
        assert wait_until(self._exit_status_file.exists), "the TUI did not exit"
        return int(self._exit_status_file.read_text())

    def row(self, title: str) -> str:
        """The screen line that shows `title`."""
        matches = [line for line in self.screen.lines() if title in line]
        assert len(matches) == 1, f"{title!r} shown {len(matches)} times"
        return matches[0][2:]  # without the selection mark

    def list_rows(self) -> list[str]:
        """The task rows, from below the header down to the notes pane."""
        lines = self.screen.lines()[1:]
        return [line for line in itertools.takewhile(lambda line: not line.startswith("──"), lines) if line]


@pytest.fixture
def start_tui(server: str, db: Path, tmp_path: Path) -> Iterator[Callable[..., Tui]]:
    screens: list[TmuxScreen] = []

    def start(server_path: str | Path = server, environment: dict[str, str] | None = None) -> Tui:
        exit_status_file = tmp_path / f"tui-exit-status-{len(screens)}"
        settings = [f"{name}={value}" for name, value in (environment or {}).items()]
        tui = ["env", *settings, sys.executable, "-m", "taskline_client.tui", "--db", str(db), "--server", str(server_path)]
        command = ["sh", "-c", '"$@"; echo $? > "$0"', str(exit_status_file), *tui]
        screen = TmuxScreen(command, columns=100, lines=20)
        screens.append(screen)
        screen.wait_for_text("Taskline —")
        return Tui(screen, exit_status_file)

    yield start
    for screen in screens:
        screen.close()


def _add(tui: Tui, title: str) -> None:
    tui.screen.press("a")
    tui.screen.wait_for_text("New task:")
    tui.screen.type(title)
    tui.screen.press("Enter")
    tui.screen.wait_for_text(f"[ ] {title}")


def test_the_console_script_is_declared() -> None:
    scripts = [entry for entry in distribution("taskline-client").entry_points if entry.group == "console_scripts"]
    assert [(script.name, script.value) for script in scripts] == [("taskline-tui", "taskline_client.tui:main")]


def test_a_missing_server_is_reported_without_a_traceback(tmp_path: Path) -> None:
    tui = [sys.executable, "-m", "taskline_client.tui", "--db", str(tmp_path / "tasks.sqlite")]
    finished = subprocess.run([*tui, "--server", str(tmp_path / "missing")], capture_output=True, text=True, timeout=30)
    assert finished.returncode == 1
    assert finished.stderr.startswith("taskline-tui: ") and "Traceback" not in finished.stderr


def test_a_task_python_cannot_hold_is_reported_in_the_status_line(
    start_tui: Callable[..., Tui], server: str, db: Path, tmp_path: Path
) -> None:
    store_a_task_from_the_year_0(server, db, tmp_path)
    tui = start_tui()
    tui.screen.wait_for_text("cannot read the time '0000-01-01T00:00:00.000Z'")
    tui.screen.press("q")
    assert tui.exit_status() == 0


def test_existing_tasks_are_listed_oldest_first_with_their_details(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    with open_client() as client:
        # Ids in creation order: tasks made in the same millisecond are listed by id.
        far_off = (date.today() + timedelta(days=30)).isoformat()
        client.create("Older", priority=3, due=far_off, tags=["home", "urgent"], id="task-1")
        client.create("Newer", done=True, id="task-2")
    tui = start_tui()
    tui.screen.wait_for_text("1 task")
    tui.screen.press("h")
    screen = tui.screen.wait_for_text("2 tasks")
    assert screen.index("Older") < screen.index("Newer")
    older = tui.row("Older")
    assert older.startswith("[ ] Older")
    assert "high" in older and far_off in older and "#home #urgent" in older
    assert tui.row("Newer").startswith("[x] Newer")


def test_adding_toggling_and_deleting_show_on_screen(start_tui: Callable[..., Tui]) -> None:
    tui = start_tui()
    _add(tui, "Buy milk")
    _add(tui, "Água e café ☕")
    assert tui.screen.wait_for_text("2 tasks")

    tui.screen.press("Space")  # done, so hidden
    tui.screen.wait_for(lambda screen: "Buy milk" not in screen and "1 done hidden" in screen)
    tui.screen.press("h")
    tui.screen.wait_for_text("[x] Buy milk")
    tui.screen.press("g", "x")
    tui.screen.wait_for_text("[ ] Buy milk")

    tui.screen.press("d")
    tui.screen.wait_for_text("Delete “Buy milk”? (y/n)")
    tui.screen.press("n")
    tui.screen.wait_for(lambda screen: "(y/n)" not in screen)
    assert "Buy milk" in tui.screen.text()
    tui.screen.press("d")
    tui.screen.wait_for_text("(y/n)")
    tui.screen.press("y")
    tui.screen.wait_for(lambda screen: "Buy milk" not in screen and "1 task" in screen)
    assert tui.row("Água").startswith("[ ] Água e café ☕")


def test_renaming(start_tui: Callable[..., Tui]) -> None:
    tui = start_tui()
    _add(tui, "Draft title")
    tui.screen.press("r")
    tui.screen.wait_for_text("Rename: Draft title")
    tui.screen.press("C-u")
    tui.screen.type("Final title")
    tui.screen.press("Enter")
    tui.screen.wait_for_text("[ ] Final title")
    assert "Draft" not in tui.screen.text()


def test_filtering_by_text_and_clearing_with_escape(start_tui: Callable[..., Tui]) -> None:
    tui = start_tui()
    _add(tui, "Buy milk")
    _add(tui, "Call mum")
    tui.screen.press("/")
    tui.screen.wait_for_text("Filter:")
    tui.screen.type("MILK")
    tui.screen.press("Enter")
    screen = tui.screen.wait_for(lambda screen: "Call mum" not in screen)
    assert "Buy milk" in screen and "filter: MILK" in screen
    tui.screen.press("Escape")
    screen = tui.screen.wait_for(lambda screen: "Call mum" in screen)
    assert "filter:" not in screen


def test_errors_show_in_the_status_line(start_tui: Callable[..., Tui]) -> None:
    tui = start_tui()
    _add(tui, "Keep me")
    tui.screen.press("r")
    tui.screen.wait_for_text("Rename:")
    tui.screen.press("C-u")
    tui.screen.type("   ")  # a blank title is invalid params
    tui.screen.press("Enter")
    status = tui.screen.wait_for_text("Error:").splitlines()[-1]
    assert status.startswith("Error: ")  # the server's message text may change
    assert "code" not in status and "32602" not in status
    assert tui.row("Keep me").startswith("[ ] Keep me")


def test_the_screen_follows_a_resize(start_tui: Callable[..., Tui]) -> None:
    tui = start_tui()
    _add(tui, "A title that gets cut when narrow")
    tui.screen.resize(40, 8)
    screen = tui.screen.wait_for(lambda screen: "[ ] A titl…" in screen)
    assert max(len(line) for line in screen.splitlines()) <= 40
    assert screen.splitlines()[-1].startswith("0 done hidden")


def test_quitting_shuts_down_cleanly(start_tui: Callable[..., Tui], open_client: Callable[..., Client]) -> None:
    tui = start_tui()
    _add(tui, "Saved")
    tui.screen.press("q")
    assert tui.exit_status() == 0
    assert [task.title for task in open_client().iter_tasks()] == ["Saved"]


def test_a_task_created_by_a_second_client_appears_without_a_key_press(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    tui = start_tui()
    open_client().create("From another process")
    tui.screen.wait_for_text("[ ] From another process")


def test_several_changes_in_one_notification_from_a_second_client_all_show(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    tui = start_tui()
    _add(tui, "Old news")
    other = open_client()
    (old,) = other.iter_tasks()
    other.apply([Create("Batch one"), Create("Batch two"), Update(old.id, done=True)])
    tui.screen.wait_for(lambda screen: "[ ] Batch one" in screen and "[ ] Batch two" in screen)
    tui.screen.wait_for(lambda screen: "Old news" not in screen and "1 done hidden" in screen)
