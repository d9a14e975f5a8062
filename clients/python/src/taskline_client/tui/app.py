"""The task list screen: its state, its keys, and its event loop."""

from __future__ import annotations

import curses
import os
import select
import sys
from dataclasses import dataclass
from typing import Callable

from ..calls import PageOptions
from ..client import Client
from ..errors import TasklineError
from ..models import Task
from ..query import Filter, SortKey
from . import view
from .line_editor import LineEditor
from .wakeup import CHANGED, RESIZED, Wakeup

_ESCAPE = "\x1b"
_ENTER_KEYS = {"\n", "\r", curses.KEY_ENTER}


@dataclass
class _Prompt:
    """A question on the status line that takes a line of text."""

    label: str
    editor: LineEditor
    on_submit: Callable[[str], None]
    on_escape: Callable[[], None]


@dataclass
class _Confirmation:
    """A yes/no question on the status line."""

    question: str
    on_yes: Callable[[], None]


class TaskListApp:
    def __init__(self, screen: curses.window, client: Client, wakeup: Wakeup) -> None:
        self._screen = screen
        self._client = client
        self._wakeup = wakeup
        self._tasks: list[Task] = []
        self._selected = 0
        self._top = 0
        self._filter_text = ""
        self._status = ""
        self._question: _Prompt | _Confirmation | None = None
        self._running = True

    def run(self) -> None:
        self._screen.keypad(True)
        self._screen.nodelay(True)
        self._reload()
        while self._running:
            self._draw()
            ready, _, _ = select.select([sys.stdin, self._wakeup], [], [])
            if self._wakeup in ready:
                self._on_wakeup(self._wakeup.drain())
            self._handle_typed_keys()

    # Events

    def _on_wakeup(self, reasons: set[bytes]) -> None:
        if RESIZED in reasons:
            lines, columns = _terminal_size()
            curses.resizeterm(lines, columns)
            self._screen.clear()
        if CHANGED in reasons:
            self._reload()

    def _handle_typed_keys(self) -> None:
        # Read until curses has nothing buffered, so select() never sleeps on a typed key.
        while self._running:
            try:
                key = self._screen.get_wch()
            except curses.error:
                return
            if key == curses.KEY_RESIZE:
                continue
            self._status = ""
            if isinstance(self._question, _Prompt):
                self._answer_prompt(self._question, key)
            elif isinstance(self._question, _Confirmation):
                self._answer_confirmation(self._question, key)
            else:
                self._on_key(key)

    def _on_key(self, key: str | int) -> None:
        selected = self._selected_task()
        if key == "q":
            self._running = False
        elif key == "a":
            self._ask("New task: ", "", self._add)
        elif key == "/":
            self._ask("Filter: ", self._filter_text, self._set_filter, on_escape=lambda: self._set_filter(""))
        elif key == _ESCAPE:
            self._set_filter("")
        elif key in ("k", curses.KEY_UP):
            self._select(self._selected - 1)
        elif key in ("j", curses.KEY_DOWN):
            self._select(self._selected + 1)
        elif key in ("g", curses.KEY_HOME):
            self._select(0)
        elif key in ("G", curses.KEY_END):
            self._select(len(self._tasks) - 1)
        elif key == curses.KEY_PPAGE:
            self._select(self._selected - self._list_height())
        elif key == curses.KEY_NPAGE:
            self._select(self._selected + self._list_height())
        elif selected is None:
            return
        elif key == "r":
            self._ask("Rename: ", selected.title, lambda title: self._rename(selected, title))
        elif key in (" ", "x"):
            self._act(lambda: self._client.update(selected.id, done=not selected.done, if_version=selected.version))
        elif key == "d":
            self._question = _Confirmation(
                f"Delete “{selected.title}”? (y/n)",
                lambda: self._client.delete(selected.id, if_version=selected.version),
            )

    def _answer_prompt(self, prompt: _Prompt, key: str | int) -> None:
        if key in _ENTER_KEYS:
            self._question = None
            prompt.on_submit(prompt.editor.text)
        elif key == _ESCAPE:
            self._question = None
            prompt.on_escape()
        else:
            prompt.editor.handle(key)

    def _answer_confirmation(self, confirmation: _Confirmation, key: str | int) -> None:
        self._question = None
        if key in ("y", "Y"):
            self._act(confirmation.on_yes)

    # Actions. Changes made here come back as tasks/didChange, which reloads the list.

    def _ask(
        self, label: str, text: str, on_submit: Callable[[str], None], on_escape: Callable[[], None] = lambda: None
    ) -> None:
        self._question = _Prompt(label, LineEditor(text), on_submit, on_escape)

    def _add(self, title: str) -> None:
        if title.strip():
            self._act(lambda: self._client.create(title))

    def _rename(self, task: Task, title: str) -> None:
        if title != task.title:
            self._act(lambda: self._client.update(task.id, title=title, if_version=task.version))

    def _set_filter(self, text: str) -> None:
        if text != self._filter_text:
            self._filter_text = text
            self._reload()

    def _act(self, action: Callable[[], object]) -> None:
        try:
            action()
        except TasklineError as error:
            self._status = f"Error: {error}"

    def _reload(self) -> None:
        selected = self._selected_task()
        options: PageOptions = {"sort": [SortKey("created_at")]}
        if self._filter_text:
            options["filter"] = Filter(text=self._filter_text)
        try:
            self._tasks = list(self._client.iter_tasks(**options))
        except TasklineError as error:
            self._status = f"Error: {error}"
            return
        ids = [task.id for task in self._tasks]
        self._select(ids.index(selected.id) if selected is not None and selected.id in ids else self._selected)

    # Selection and drawing

    def _selected_task(self) -> Task | None:
        return self._tasks[self._selected] if 0 <= self._selected < len(self._tasks) else None

    def _select(self, index: int) -> None:
        self._selected = max(0, min(index, len(self._tasks) - 1))
        height = self._list_height()
        if self._selected < self._top:
            self._top = self._selected
        elif self._selected >= self._top + height:
            self._top = self._selected - height + 1

    def _list_height(self) -> int:
        lines, _ = self._screen.getmaxyx()
        return max(1, lines - 2)  # a header line above, the status line below

    def _draw(self) -> None:
        lines, columns = self._screen.getmaxyx()
        self._screen.erase()
        if lines < 3:  # no room for a header, a task and the status line
            self._screen.refresh()
            return
        header = f"Taskline — {len(self._tasks)} task{'' if len(self._tasks) == 1 else 's'}"
        if self._filter_text:
            header += f"  (filter: {self._filter_text})"
        view.draw_line(self._screen, 0, header, curses.A_BOLD)
        visible = self._tasks[self._top : self._top + self._list_height()]
        for row, task in enumerate(visible, start=1):
            attributes = curses.A_REVERSE if self._top + row - 1 == self._selected else curses.A_NORMAL
            view.draw_line(self._screen, row, view.format_row(task, columns - 1), attributes)
        self._draw_status_line(lines - 1)
        self._screen.refresh()

    def _draw_status_line(self, y: int) -> None:
        if isinstance(self._question, _Prompt):
            editor = self._question.editor
            view.draw_line(self._screen, y, self._question.label + editor.text)
            cursor_x = sum(view.char_width(char) for char in self._question.label + editor.text[: editor.cursor])
            _set_cursor_visible(True)
            self._screen.move(y, min(cursor_x, self._screen.getmaxyx()[1] - 2))
            return
        _set_cursor_visible(False)
        if isinstance(self._question, _Confirmation):
            view.draw_line(self._screen, y, self._question.question, curses.A_BOLD)
        elif self._status:
            view.draw_line(self._screen, y, self._status, curses.A_BOLD)
        else:
            view.draw_line(self._screen, y, view.HELP, curses.A_DIM)


def _terminal_size() -> tuple[int, int]:
    size = os.get_terminal_size(sys.stdout.fileno())
    return size.lines, size.columns


def _set_cursor_visible(visible: bool) -> None:
    try:
        curses.curs_set(1 if visible else 0)
    except curses.error:
        pass  # the terminal cannot hide its cursor
