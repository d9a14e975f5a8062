"""`taskline-tui` driven through tmux: keys in, screen contents out."""

from __future__ import annotations

import itertools
import json
import os
import queue
import shlex
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
from importlib.metadata import distribution
from pathlib import Path
from typing import Callable

import pytest
from support import initialization_options, stdin_logging_server, store_a_task_from_the_year_0, wait_until, write_script
from tmux_screen import TmuxScreen

from taskline_client import Client, Create, Filter, InvalidParams, MethodNotFound, Task, Update
from taskline_client.tui import view
from taskline_client.tui.preview import Preview

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
        tui = [
            "env",
            *settings,
            sys.executable,
            "-m",
            "taskline_client.tui",
            "--db",
            str(db),
            "--server",
            str(server_path),
        ]
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
    tui.screen.wait_for(lambda screen: "Buy milk" not in screen and "1 hidden" in screen)
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


def _next_friday() -> date:
    """`fri` as the command line reads it: the next Friday after today."""
    today = date.today()
    return today + timedelta(days=(4 - today.weekday() + 6) % 7 + 1)


def test_quick_add_takes_the_command_lines_words(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client], server: str, tmp_path: Path
) -> None:
    tui = start_tui()
    tui.screen.press("a")
    tui.screen.wait_for_text("New task:")
    tui.screen.type("Call the bank +money due:fri pri:H")
    tui.screen.press("Enter")
    tui.screen.wait_for_text("[ ] Call the bank")
    [task] = open_client().fetch().tasks
    assert (task.title, task.tags, task.priority, task.due) == (
        "Call the bank",
        ("money",),
        3,
        _next_friday().isoformat(),
    )
    # The same task as `taskline add` makes of the same words.
    cli = tmp_path / "cli.sqlite"
    subprocess.run(
        [server, "add", "--db", str(cli), *"Call the bank +money due:fri pri:H".split()],
        check=True,
        capture_output=True,
    )
    listed = json.loads(
        subprocess.run([server, "list", "--db", str(cli), "--json"], check=True, capture_output=True).stdout
    )
    assert [(t["title"], tuple(t["tags"]), t["priority"], t["due"]) for t in listed] == [
        (task.title, task.tags, int(task.priority), task.due)
    ]

    tui.screen.press("a")
    tui.screen.wait_for_text("New task:")
    tui.screen.type("Call re:bank")
    tui.screen.press("Enter")
    screen = tui.screen.wait_for_text("re:bank: re is not one of")
    assert "put it after --" in screen or "re:bank" in screen
    assert len(open_client().fetch().tasks) == 1


def test_quick_add_previews_what_the_words_make_as_they_are_typed(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    tui = start_tui()
    tui.screen.press("a")
    tui.screen.wait_for_text("New task:")
    tui.screen.type("Call the bank +money due:+3d pri:H")
    in_three_days = (date.today() + timedelta(days=3)).isoformat()
    tui.screen.wait_for_text(f"→ “Call the bank”  due {in_three_days} (in 3 days)  priority high  +money")
    tui.screen.type(" re:x")
    tui.screen.wait_for_text("✗ re:x: re is not one of")
    for _ in " re:x":
        tui.screen.press("BSpace")
    tui.screen.wait_for_text("→ “Call the bank”  due")
    tui.screen.press("C-u")
    tui.screen.wait_for(lambda screen: _previews(screen) == [])
    tui.screen.type("Water the plants recur:weekly wait:tomorrow")
    tomorrow = (date.today() + timedelta(days=1)).isoformat()
    tui.screen.wait_for_text(f"→ “Water the plants”  wait {tomorrow} 00:00 (tomorrow 00:00)  repeats weekly\n")
    assert len(open_client().fetch().tasks) == 0, "a preview writes nothing"
    tui.screen.press("Escape")
    tui.screen.wait_for(lambda screen: _previews(screen) == [] and "New task:" not in screen)
    tui.screen.press("a")
    tui.screen.wait_for_text("New task:")
    assert _previews(tui.screen.text()) == [], "nothing typed, nothing previewed"


def test_the_preview_shows_only_the_answer_for_the_text_typed_now() -> None:
    # Each text's answer waits until the test lets it go.
    releases = {text: threading.Event() for text in ("a", "abc")}
    asked: list[str] = []
    answered: queue.SimpleQueue[None] = queue.SimpleQueue()

    def parse(text: str) -> dict[str, str]:
        asked.append(text)
        if text in releases:
            releases[text].wait(5)
        if text == "bad":
            raise InvalidParams(-32602, "refused", {"field": "text", "reason": "bad: no"})
        return {"title": text}

    preview = Preview(lambda: answered.put(None))
    try:
        preview.want("a", parse)
        assert wait_until(lambda: asked == ["a"])
        preview.want("ab", parse)  # typed while "a" is with the server
        preview.want("abc", parse)
        releases["a"].set()
        answered.get(timeout=5)
        assert wait_until(lambda: asked == ["a", "abc"]), "only the newest text waiting is sent"
        preview.take()
        assert preview.answer is None, "the answer for a text since changed is dropped"
        releases["abc"].set()
        answered.get(timeout=5)
        preview.take()
        assert preview.answer == {"title": "abc"}
        preview.want("bad", parse)
        answered.get(timeout=5)
        preview.take()
        assert isinstance(preview.answer, InvalidParams)
        preview.forget()
        assert preview.answer is None
    finally:
        preview.close()


def test_the_form_takes_the_command_lines_date_words(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    client = open_client()
    tui, task = _edit_a_new_task(start_tui, client, "Pay rent")
    _fill_due_repeat_remind(tui, "fri", "monthly", "fri 9am")
    saved = client.get(task.id)
    assert saved.due == _next_friday().isoformat()
    assert saved.recurrence is not None and saved.recurrence.rule == "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD"
    assert saved.remind_at is not None and saved.remind_at.startswith(_next_friday().isoformat() + "T09:00:00")

    tui.screen.press("e")
    tui.screen.wait_for_text("> Title    Pay rent")
    tui.screen.press("Tab", "Tab", "C-u")
    tui.screen.type("whenever")
    tui.screen.press("Enter")
    tui.screen.wait_for_text("Due: due: takes today")
    assert client.get(task.id).version == 2


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
    assert screen.splitlines()[-1].startswith("0 hidden")


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
    tui.screen.wait_for(lambda screen: "Old news" not in screen and "1 hidden" in screen)


def _edit_a_new_task(start_tui: Callable[..., Tui], client: Client, title: str) -> tuple[Tui, Task]:
    """A task made by `client`, open in the TUI's edit form."""
    task = client.create(title)
    tui = start_tui()
    tui.screen.wait_for_text(f"[ ] {title}")
    tui.screen.press("e")
    tui.screen.wait_for_text("Edit task")
    return tui, task


def test_what_tasks_parse_made_reads_in_words() -> None:
    now = datetime.now().astimezone()
    tomorrow = (now.date() + timedelta(days=1)).isoformat()
    made = {"tags": ["money"], "priority": 3, "due": tomorrow, "title": "Call the bank", "project": "Home"}
    assert view.parsed_in_words(made, now) == (
        f"“Call the bank”  due {tomorrow} (tomorrow)  priority high  project Home  +money"
    )
    changes = {"due": None, "recurrence": None, "tags": [], "done": True, "dependsOn": ["a", "b"], "priority": 0}
    assert view.parsed_in_words(changes, now) == "no due  no repeat  priority none  no tags  depends on 2 tasks  done"


def _previews(screen: str) -> list[str]:
    """The preview lines on the screen: what the server makes of the words typed."""
    return [line for line in screen.splitlines() if line.startswith(("→ ", "✗ "))]


def test_the_forms_word_fields_preview_what_the_server_reads(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    client = open_client()
    tui, task = _edit_a_new_task(start_tui, client, "Pay rent")
    tui.screen.press("Tab", "Tab")
    tui.screen.wait_for_text("> Due")
    assert _previews(tui.screen.text()) == [], "a field as it was shown is not previewed"
    tui.screen.type("+3d")
    in_three_days = (date.today() + timedelta(days=3)).isoformat()
    tui.screen.wait_for_text(f"\n→ due {in_three_days} (in 3 days)\n")
    tui.screen.type("x")
    tui.screen.wait_for_text("\n✗ due: takes today, tomorrow")
    for _ in range(6):
        tui.screen.press("Tab")
    tui.screen.wait_for_text("> Repeat")
    tui.screen.wait_for(lambda screen: _previews(screen) == [])
    tui.screen.type("weekdays")
    tui.screen.wait_for_text("\n→ repeats weekdays\n")
    tui.screen.press("Tab")
    tui.screen.wait_for(lambda screen: "> Remind" in screen and _previews(screen) == [])
    tui.screen.type("x")
    tui.screen.wait_for_text("\n✗ remind: takes today, tomorrow")
    tui.screen.press("BSpace")  # back to the text shown
    tui.screen.wait_for(lambda screen: _previews(screen) == [])
    tui.screen.press("Escape")
    tui.screen.wait_for(lambda screen: "Edit task" not in screen)
    assert client.get(task.id).version == task.version, "a preview writes nothing"


def _fill_due_repeat_remind(tui: Tui, due: str, repeat: str, remind: str) -> None:
    """Types into the edit form's Due, Repeat and Remind fields, then saves it."""
    tui.screen.press("Tab", "Tab")
    tui.screen.wait_for_text("> Due")
    tui.screen.type(due)
    for _ in range(6):
        tui.screen.press("Tab")
    tui.screen.wait_for_text("> Repeat")
    tui.screen.type(repeat)
    tui.screen.press("Tab")
    tui.screen.type(remind)
    tui.screen.press("Enter")
    tui.screen.wait_for(lambda screen: "Edit task" not in screen)


def test_done_tasks_are_hidden_until_h_and_the_status_line_counts_them(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    with open_client() as client:
        client.apply([Create(f"Finished {number:03}", done=True) for number in range(300)])
        client.create("The one open task")
    tui = start_tui()
    screen = tui.screen.wait_for_text("1 task")
    assert tui.list_rows() == ["> [ ] The one open task"]
    assert screen.splitlines()[-1].startswith("300 hidden (h shows)")
    tui.screen.press("h")
    screen = tui.screen.wait_for_text("301 tasks")
    rows = tui.list_rows()
    assert rows[-1] == "> [ ] The one open task"  # still selected, so still on screen
    assert all(row.startswith("  [x] Finished") for row in rows[:-1])
    assert screen.splitlines()[-1].startswith("all shown (h hides)")
    tui.screen.press("h")
    tui.screen.wait_for(lambda screen: tui.list_rows() == ["> [ ] The one open task"])


def test_waiting_tasks_are_hidden_with_the_done_ones_and_h_shows_them_marked(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    today = date.today()
    with open_client() as client:
        # Ids in creation order: tasks made in the same millisecond are listed by id.
        client.create("Waits", wait=(today + timedelta(days=2)).isoformat(), project="Home", id="task-1")
        client.create("Waited", wait=(today - timedelta(days=1)).isoformat(), id="task-2")
        client.create("Finished", done=True, id="task-3")
    tui = start_tui()
    screen = tui.screen.wait_for_text("1 task")
    assert tui.list_rows() == ["> [ ] Waited"]
    assert screen.splitlines()[-1].startswith("2 hidden (h shows)")
    tui.screen.press("h")
    tui.screen.wait_for_text("3 tasks")
    assert tui.row("Waits").startswith("[w] Waits") and tui.row("Waits").endswith("+Home")
    assert tui.row("Finished").startswith("[x] Finished")


def test_filtering_by_project_takes_its_subprojects_and_not_a_longer_name(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    with open_client() as client:
        client.create("Sweep", project="Home")
        client.create("Fix the door", project="Home.Garage")
        client.create("Essay", project="Homework")
        client.create("No project")
    tui = start_tui()
    tui.screen.wait_for_text("4 tasks")
    tui.screen.press("p")
    tui.screen.wait_for_text("Project:")
    tui.screen.type("Home")
    tui.screen.press("Enter")
    screen = tui.screen.wait_for_text("(project: Home)")
    assert "2 tasks" in screen and "Sweep" in screen and "Fix the door" in screen
    assert "Essay" not in screen and "No project" not in screen
    tui.screen.press("c")
    screen = tui.screen.wait_for_text("4 tasks")
    assert "(project:" not in screen


def test_u_and_ctrl_r_undo_and_redo_this_windows_changes(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    tui = start_tui()
    try:
        open_client().request("tasks/undo", {"scope": "connection"})
    except MethodNotFound:
        # A server without undo: the keys say so in words.
        tui.screen.press("u")
        status = tui.screen.wait_for_text("Cannot undo").splitlines()[-1]
        assert status.startswith("Cannot undo: this taskline server does not know tasks/undo")
        tui.screen.press("C-r")
        tui.screen.wait_for_text("Cannot redo: this taskline server does not know tasks/redo")
        return
    _add(tui, "Undo me")
    tui.screen.press("u")
    tui.screen.wait_for(lambda screen: "Undo me" not in screen)
    tui.screen.press("C-r")
    tui.screen.wait_for_text("[ ] Undo me")
    tui.screen.press("u")
    tui.screen.wait_for(lambda screen: "Undo me" not in screen)
    tui.screen.press("u")
    tui.screen.wait_for_text("Nothing to undo.")
    # A task changed elsewhere since: undo asks first, and reverts nothing unless told to.
    _add(tui, "Mine")
    other = open_client()
    (mine,) = other.iter_tasks()
    other.update(mine.id, title="Theirs")
    tui.screen.wait_for_text("[ ] Theirs")
    tui.screen.press("u")
    tui.screen.wait_for_text("Changed by another program since: “Theirs”. Undo anyway? (y/n)")
    tui.screen.press("n")
    assert other.get(mine.id).title == "Theirs"
    tui.screen.press("u")
    tui.screen.wait_for_text("Undo anyway?")
    tui.screen.press("y")
    tui.screen.wait_for(lambda screen: "Theirs" not in screen)


def test_the_tui_asks_for_reminders_and_shows_them_on_the_status_line(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client], server: str, tmp_path: Path
) -> None:
    tomorrow = (date.today() + timedelta(days=1)).isoformat()
    with open_client() as client:
        try:
            client.request(
                "tasks/create", {"title": "Call the plumber", "due": tomorrow, "remindAt": "2020-01-01T09:00:00Z"}
            )
            reminds = True
        except InvalidParams:
            reminds = False  # a server without reminders
    wrapper, stdin_log = stdin_logging_server(server, tmp_path)
    tui = start_tui(server_path=wrapper)
    assert initialization_options(stdin_log) == {"notifications": True, "reminders": True}
    if reminds:
        status = tui.screen.wait_for_text("Reminder:").splitlines()[-1]
        assert status.startswith("Reminder: Call the plumber (due tomorrow)")


def test_a_reminder_shows_on_the_status_line_with_its_due_in_words(
    start_tui: Callable[..., Tui], server: str, tmp_path: Path
) -> None:
    tomorrow = (date.today() + timedelta(days=1)).isoformat()
    task = {
        "id": "r-1", "title": "Call the plumber", "notes": "", "done": False, "priority": 0, "tags": [],
        "due": tomorrow, "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z",
        "completedAt": None, "version": 1,
    }  # fmt: skip
    body = json.dumps({"jsonrpc": "2.0", "method": "tasks/remind", "params": {"tasks": [task, {"title": 1}]}})
    # A stand-in that sends a reminder first, then is the server.
    wrapper = write_script(
        tmp_path / "taskline-reminding",
        f"printf 'Content-Length: {len(body)}\\r\\n\\r\\n%s' {shlex.quote(body)}\nexec {shlex.quote(server)} \"$@\"",
    )
    tui = start_tui(server_path=wrapper)
    status = tui.screen.wait_for_text("Reminder:").splitlines()[-1]
    assert status.rstrip() == "Reminder: Call the plumber (due tomorrow)"  # the unreadable task left out


def test_the_form_edits_every_field_in_one_update(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    tui, task = _edit_a_new_task(start_tui, open_client(), "Draft")
    tui.screen.press("C-u")
    tui.screen.type("Final")
    tui.screen.press("Tab")
    tui.screen.type("first line")
    tui.screen.press("C-o")
    tui.screen.type("second line")
    tui.screen.press("Tab")
    tui.screen.type("tomorrow")
    tui.screen.press("Tab")
    tui.screen.type("+3d")
    tui.screen.press("Tab")
    tui.screen.type("Home.Garage")
    tui.screen.press("Tab")
    tui.screen.type("#home work")
    tui.screen.press("Tab", "Space", "Space")  # none → low → medium
    tui.screen.press("Tab", "Space")  # no → yes
    tui.screen.wait_for_text("> Done     yes")
    tui.screen.press("Enter")
    tui.screen.wait_for(lambda screen: "Edit task" not in screen and "1 hidden" in screen)
    saved = open_client().get(task.id)
    assert (saved.title, saved.notes, saved.tags, saved.priority, saved.done, saved.project) == (
        "Final",
        "first line\nsecond line",
        ("home", "work"),
        2,
        True,
        "Home.Garage",
    )
    assert saved.due == (date.today() + timedelta(days=1)).isoformat()
    # As the command line reads wait:+3d: the start of that day, in local time.
    assert saved.wait is not None and saved.wait.startswith(
        (date.today() + timedelta(days=3)).isoformat() + "T00:00:00"
    )
    assert saved.version == 2  # one update, made against version 1


def test_the_form_clears_wait_and_project_and_names_a_refused_field_in_words(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    client = open_client()
    task = client.create("Plan", project="Home", wait="2020-01-01")
    tui = start_tui()
    tui.screen.wait_for_text("[ ] Plan")
    tui.screen.press("e")
    tui.screen.wait_for_text("> Title    Plan")
    tui.screen.press("Tab", "Tab", "Tab", "Tab")
    tui.screen.wait_for_text("> Project  Home")
    tui.screen.type(".")
    tui.screen.press("Enter")
    screen = tui.screen.wait_for_text("Not saved: Project: ")
    assert "-32602" not in screen and "changes.project" not in screen and "Invalid params" not in screen
    tui.screen.press("C-u", "BTab")
    tui.screen.wait_for_text("> Wait     2020-01-01")
    tui.screen.press("C-u", "Enter")
    tui.screen.wait_for(lambda screen: "Edit task" not in screen)
    saved = client.get(task.id)
    assert (saved.project, saved.wait, saved.version) == (None, None, 2)


def test_the_form_sets_a_repeat_by_name_and_a_reminder_and_the_list_marks_the_task(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    client = open_client()
    tui, task = _edit_a_new_task(start_tui, client, "Water plants")
    _fill_due_repeat_remind(tui, "tomorrow", "Weekdays", "2030-01-02T09:00:00Z")
    saved = client.get(task.id)
    assert saved.recurrence is not None and saved.recurrence.rule == "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR"
    assert (saved.remind_at, saved.version) == ("2030-01-02T09:00:00Z", 2)
    tui.screen.wait_for(lambda screen: tui.row("Water plants").startswith("[ ] ↻ Water plants"))
    client.create("Once")
    tui.screen.wait_for_text("Once")
    assert tui.row("Once").startswith("[ ] Once")

    tui.screen.press("k", "e")
    tui.screen.wait_for_text("> Title    Water plants")
    screen = tui.screen.text()
    assert "  Repeat   weekdays" in screen and "  Remind   2030-01-02T09:00:00Z" in screen


def test_the_form_ends_a_repeat_clears_a_reminder_and_names_a_refused_rule_in_words(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    client = open_client()
    tomorrow = (date.today() + timedelta(days=1)).isoformat()
    task = client.create("Pay rent", due=tomorrow, recurrence="FREQ=MONTHLY;BYMONTHDAY=1", remind_at=tomorrow)
    tui = start_tui()
    tui.screen.wait_for_text("↻ Pay rent")
    tui.screen.press("e")
    tui.screen.wait_for_text("> Title    Pay rent")
    tui.screen.press("BTab", "BTab")
    tui.screen.wait_for_text("> Repeat   FREQ=MONTHLY;BYMONTHDAY=1")
    tui.screen.press("C-u")
    tui.screen.type("FREQ=HOURLY")
    tui.screen.press("Enter")
    screen = tui.screen.wait_for_text("Not saved: Repeat: ")
    assert "-32602" not in screen and "recurrence.rule" not in screen and "Invalid params" not in screen
    assert client.get(task.id).version == 1
    tui.screen.press("C-u", "Tab", "C-u", "Enter")
    tui.screen.wait_for(lambda screen: "Edit task" not in screen)
    saved = client.get(task.id)
    assert (saved.recurrence, saved.remind_at, saved.due, saved.version) == (None, None, tomorrow, 2)
    tui.screen.wait_for(lambda screen: tui.row("Pay rent").startswith("[ ] Pay rent"))


def test_escape_leaves_the_form_without_saving(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    tui, task = _edit_a_new_task(start_tui, open_client(), "Keep")
    tui.screen.type(" changed")
    tui.screen.wait_for_text("Keep changed")
    tui.screen.press("Escape")
    tui.screen.wait_for(lambda screen: "Edit task" not in screen)
    assert open_client().get(task.id).version == 1
    assert tui.row("Keep") == "[ ] Keep"


def test_a_conflict_in_the_form_names_the_current_values_and_enter_then_saves_over_them(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    other = open_client()
    tui, task = _edit_a_new_task(start_tui, other, "Mine")
    other.update(task.id, title="Theirs", tags=["office"])
    tui.screen.press("Tab", "Tab", "Tab", "Tab", "Tab", "Tab", "Space")  # priority none → low
    tui.screen.press("Enter")
    screen = tui.screen.wait_for_text("another program changed this task first")
    assert "title “Theirs”" in " ".join(screen.split()) and "#office" in screen
    assert "1002" not in screen and "Edit task" in screen
    tui.screen.press("Enter")
    tui.screen.wait_for(lambda screen: "Edit task" not in screen)
    saved = other.get(task.id)
    assert (saved.title, saved.tags, saved.priority, saved.version) == ("Theirs", ("office",), 1, 3)


def test_errors_are_told_in_words_not_codes(start_tui: Callable[..., Tui], open_client: Callable[..., Client]) -> None:
    other = open_client()
    tui, task = _edit_a_new_task(start_tui, other, "Doomed")
    tui.screen.type("!")
    other.delete(task.id)
    tui.screen.press("Enter")
    screen = tui.screen.wait_for_text("Not saved: task not found")
    assert "1001" not in screen and "code" not in screen


def test_filtering_by_tag_and_clearing_both_filters(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    with open_client() as client:
        client.create("Mow the lawn", tags=["home"])
        client.create("Home office tax form", tags=["work"])
        client.create("Fix the home sink", tags=["home", "urgent"])
    tui = start_tui()
    tui.screen.wait_for_text("3 tasks")
    tui.screen.press("t")
    tui.screen.wait_for_text("Tag:")
    tui.screen.type("#home")
    tui.screen.press("Enter")
    screen = tui.screen.wait_for_text("(tag: #home)")
    assert "2 tasks" in screen and "Home office" not in screen  # a tag, not text
    tui.screen.press("/")
    tui.screen.type("sink")
    tui.screen.press("Enter")
    tui.screen.wait_for(lambda screen: "Mow" not in screen and "1 task" in screen)
    tui.screen.press("c")
    screen = tui.screen.wait_for_text("3 tasks")
    assert "(tag:" not in screen and "(filter:" not in screen


def test_question_mark_shows_every_key(start_tui: Callable[..., Tui]) -> None:
    tui = start_tui()
    _add(tui, "Anything")
    tui.screen.press("?")
    screen = tui.screen.wait_for_text("this help")
    for does in (
        "add a task",
        "edit the selected task",
        "mark done",
        "delete",
        "undo / redo",
        "filter by text",
        "filter by tag",
        "filter by project",
        "clear the filters",
        "show or hide done and waiting",
        "quit",
        "save (only if",
    ):
        assert does in screen, does
    assert "a taller terminal shows the rest" not in screen
    assert "Anything" not in screen
    tui.screen.press("j")  # any key closes it, and does nothing else
    tui.screen.wait_for_text("> [ ] Anything")


@pytest.mark.parametrize("colour", [True, False], ids=["colour", "NO_COLOR"])
def test_overdue_tasks_are_marked_and_due_dates_read_in_words(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client], colour: bool
) -> None:
    today = date.today()
    with open_client() as client:
        client.create("Late", due=(today - timedelta(days=2)).isoformat())
        client.create("Soon", due=(today + timedelta(days=1)).isoformat())
        client.create("Later", due=(today + timedelta(days=3)).isoformat())
        client.create("Late but done", due=(today - timedelta(days=2)).isoformat(), done=True)
    tui = start_tui(environment={} if colour else {"NO_COLOR": "1"})
    tui.screen.wait_for_text("3 tasks")
    assert "!2 days overdue" in tui.row("Late ")
    assert "tomorrow" in tui.row("Soon") and "!" not in tui.row("Soon")
    assert "in 3 days" in tui.row("Later")
    tui.screen.press("h")
    tui.screen.wait_for_text("4 tasks")
    assert "2 days ago" in tui.row("Late but done") and "!" not in tui.row("Late but done")
    red = "\x1b[31m"
    styled = {
        line.split("] ", 1)[1].split("  ")[0]: line for line in tui.screen.styled_text().splitlines() if "] " in line
    }
    assert (red in styled["Late"]) == colour
    assert all(red not in styled[title] for title in ("Soon", "Later", "Late but done"))


def test_when_a_due_or_a_wait_passes_the_list_changes_without_a_key_press(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    soon = (datetime.now(timezone.utc) + timedelta(seconds=3)).replace(microsecond=0)
    with open_client() as client:
        client.create("Due soon", due=soon.isoformat().replace("+00:00", "Z"))
        client.create("Actionable soon", wait=soon.isoformat().replace("+00:00", "Z"))
    tui = start_tui()
    tui.screen.wait_for_text("1 hidden")
    assert "!" not in tui.row("Due soon") and "Actionable soon" not in tui.screen.text()
    tui.screen.wait_for(lambda screen: "Actionable soon" in screen, timeout=10)
    assert "!today" in tui.row("Due soon")
    assert tui.row("Actionable soon").startswith("[ ] Actionable soon")


def test_the_notes_of_the_selected_task_are_shown_below_the_list(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    with open_client() as client:
        client.create("With notes", notes="Call before noon\nAsk for Ana")
        client.create("Without notes")
    tui = start_tui()
    tui.screen.wait_for_text("2 tasks")
    lines = tui.screen.lines()
    notes_at = next(index for index, line in enumerate(lines) if line.startswith("── Notes"))
    assert lines[notes_at + 1 : notes_at + 3] == ["Call before noon", "Ask for Ana"]
    tui.screen.press("j")
    screen = tui.screen.wait_for_text("── No notes")
    assert "Call before noon" not in screen


def test_the_selection_stays_on_screen_after_a_resize_and_keys_act_on_it(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client]
) -> None:
    client = open_client()
    client.apply([Create(f"Task {number:02}") for number in range(1, 31)])
    tui = start_tui()
    tui.screen.wait_for_text("30 tasks")
    tui.screen.press("G")
    tui.screen.wait_for_text("> [ ] Task 30")
    tui.screen.press("k", "k", "k", "k", "k")  # Task 25, near the bottom of the 20-line screen
    tui.screen.wait_for_text("> [ ] Task 25")
    tui.screen.resize(100, 8)
    screen = tui.screen.wait_for(lambda screen: len(screen.splitlines()) <= 8 and "> [ ] Task 25" in screen, 10)
    selected = next(line for line in screen.splitlines() if line.startswith("> "))
    tui.screen.press("x")
    tui.screen.wait_for_text("1 hidden")
    (done,) = client.iter_tasks(filter=Filter(done=True))
    assert done.title in selected


def _pids_of(server: str, db: Path) -> list[int]:
    """The server processes running on `db`."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError):
            continue
        if entry.name.isdigit() and arguments[:1] == [server.encode()] and str(db).encode() in arguments:
            pids.append(int(entry.name))
    return pids


def test_after_the_server_dies_the_list_stays_the_tui_reconnects_and_catches_up(
    start_tui: Callable[..., Tui], open_client: Callable[..., Client], server: str, db: Path, tmp_path: Path
) -> None:
    blocked = tmp_path / "blocked"
    wrapper = write_script(
        tmp_path / "taskline-wrapper",
        f'if [ -e {shlex.quote(str(blocked))} ]; then echo "kept down by the test" >&2; exit 3; fi\n'
        f'exec {shlex.quote(server)} "$@"',
    )
    tui = start_tui(server_path=wrapper)
    _add(tui, "Made before")
    (pid,) = _pids_of(server, db)
    blocked.touch()
    os.kill(pid, signal.SIGKILL)
    status = tui.screen.wait_for_text("cannot restart it").splitlines()[-1]
    assert status.startswith("The server stopped (killed by signal 9); cannot restart it (")
    assert tui.row("Made before") == "[ ] Made before"
    tui.screen.press("x")
    tui.screen.wait_for_text("Not done: no server (reconnecting…)")

    with open_client() as other:
        other.create("Made while it was down")
    blocked.unlink()
    screen = tui.screen.wait_for_text("[ ] Made while it was down")
    assert "reconnected, and caught up" in screen and "2 tasks" in screen
    _add(tui, "Made after")
