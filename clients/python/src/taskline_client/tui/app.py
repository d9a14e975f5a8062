"""The task list screen: its state, its keys, and its event loop."""

from __future__ import annotations

import curses
import os
import queue
import select
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Union

from ..client import Client
from ..errors import ServerError, ServerExited, TasklineError, TaskNotFound, Timeout, VersionConflict
from ..models import DidChange, DidMissChanges, Task
from . import view
from .form import EditForm, FormError, describe
from .line_editor import LineEditor
from .preview import Preview
from .tasks import TaskCopy
from .wakeup import CHANGED, PREVIEWED, RESIZED, Wakeup

_ESCAPE = "\x1b"
_CTRL_R = "\x12"
_UNDO_CONFLICT = 1007
_ENTER_KEYS = {"\n", "\r", curses.KEY_ENTER}
_RECONNECT_INTERVAL = 1.0
_NOTES_LINES = 2  # below a separator line, when the terminal has room
_OVERDUE_PAIR = 1
_FORM_HINTS = (
    "Priority, Done: Space or ←/→ changes them.",
    "Due, Wait, Remind: YYYY-MM-DD, today, tomorrow, +3d, or a date-time; empty for none.",
    "Repeat: daily, weekdays, weekly, monthly, yearly, or a rule (FREQ=WEEKLY;BYDAY=TU); empty ends it.",
    "Project: a dot-separated path (Home.Garage); empty for none.",
    "Notes: Ctrl-O starts a new line (shown as ↵).",
)

_Event = Union[DidChange, DidMissChanges, ServerExited]
#: The tasks of each `tasks/remind`, as the server sent them (JSON objects).
Reminders = queue.SimpleQueue[list[Any]]


@dataclass
class _Prompt:
    """A question on the status line that takes a line of text."""

    label: str
    editor: LineEditor
    on_submit: Callable[[str], None]
    on_escape: Callable[[], None]
    #: Whether the line shows, as it is typed, what `tasks/parse` makes of it.
    previews: bool = False


@dataclass
class _Confirmation:
    """A yes/no question on the status line."""

    question: str
    on_yes: Callable[[], None]


class _Help:
    """The `?` overlay; any key closes it."""


class TaskListApp:
    def __init__(
        self,
        screen: curses.window,
        client: Client,
        connect: Callable[[], Client],
        wakeup: Wakeup,
        reminders: Reminders,
    ) -> None:
        self._screen = screen
        self._reminders = reminders
        self._connect = connect
        self._wakeup = wakeup
        self._events: queue.SimpleQueue[_Event] = queue.SimpleQueue()
        self._client: Client | None = None
        self._copy = TaskCopy()
        self._tasks: list[Task] = []
        self._hidden = 0
        self._selected = 0
        self._selected_id: str | None = None
        self._top = 0
        self._filter_text = ""
        self._filter_tag = ""
        self._filter_project = ""
        self._show_hidden = False
        self._status = ""
        self._outage = ""  # why there is no server, while there is none
        self._outage_detail = ""
        self._next_connect = 0.0
        self._question: _Prompt | _Confirmation | EditForm | _Help | None = None
        self._overdue_attribute = curses.A_NORMAL
        self._preview = Preview(lambda: wakeup.notify(PREVIEWED))
        self._running = True
        self._attach(client)

    def run(self) -> None:
        self._screen.keypad(True)
        self._screen.nodelay(True)
        self._start_colours()
        self._fit_terminal()  # curses believes LINES and COLUMNS in the environment over the terminal
        self._sync()
        while self._running:
            self._draw()
            now = datetime.now().astimezone()
            timeout = (view.next_change(self._copy.tasks.values(), now) - now).total_seconds()
            if self._client is None:
                timeout = min(timeout, self._next_connect - time.monotonic())
            ready, _, _ = select.select([sys.stdin, self._wakeup], [], [], max(0.0, timeout))
            if self._wakeup in ready:
                self._on_wakeup(self._wakeup.drain())
            if not ready:
                self._refresh_view()  # the time passed a due or a wait: what is shown and hidden changes
            if self._client is None and time.monotonic() >= self._next_connect:
                self._reconnect()
            self._handle_typed_keys()

    def close(self) -> None:
        self._preview.close()
        if self._client is not None:
            self._client.close()

    # The server

    def _attach(self, client: Client) -> None:
        self._client = client

        def on_change(notification: DidChange | DidMissChanges) -> None:
            self._events.put(notification)
            self._wakeup.notify(CHANGED)

        def on_exit(error: ServerExited) -> None:
            self._events.put(error)
            self._wakeup.notify(CHANGED)

        # Before the catch-up, so that no change slips between the two.
        client.on_change(on_change)
        client.on_exit(on_exit)

    def _sync(self) -> None:
        if self._client is None:
            return
        try:
            self._copy.sync(self._client)
        except TasklineError as error:
            self._status = f"Error: {_in_words(error)}"
        self._refresh_view()

    def _on_server_exit(self, error: ServerExited) -> None:
        if self._client is not None:
            self._client.close()
        self._client = None
        self._outage = f"The server stopped ({_exit_in_words(error)})"
        self._outage_detail = "reconnecting…"
        self._next_connect = time.monotonic()

    def _reconnect(self) -> None:
        try:
            client = self._connect()
        except TasklineError as error:
            self._outage_detail = f"cannot restart it ({_in_words(error)}), retrying…"
            self._next_connect = time.monotonic() + _RECONNECT_INTERVAL
            return
        self._status = f"{self._outage}; reconnected, and caught up."
        self._outage = ""
        self._attach(client)
        self._sync()

    # Events

    def _on_wakeup(self, reasons: set[bytes]) -> None:
        if RESIZED in reasons:
            self._fit_terminal()
        if CHANGED in reasons:
            self._take_events()
        if PREVIEWED in reasons:
            self._preview.take()

    def _fit_terminal(self) -> None:
        curses.resizeterm(*_terminal_size())
        self._screen.clear()
        self._select(self._selected)  # the new height may leave it off screen

    def _take_events(self) -> None:
        self._take_reminders()
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                break
            if isinstance(event, ServerExited):
                self._on_server_exit(event)
            elif isinstance(event, DidMissChanges):
                self._sync()
            else:
                for change in event.changes:
                    self._copy.apply(change)
        self._refresh_view()

    def _take_reminders(self) -> None:
        now = datetime.now().astimezone()
        shown = []
        while True:
            try:
                tasks = self._reminders.get_nowait()
            except queue.Empty:
                break
            for data in tasks:
                try:
                    task = Task.from_wire(data)
                except (KeyError, TypeError, ValueError):
                    continue  # nothing to remind of that can be read
                due = view.due_in_words(task, now)
                when = due if due.endswith("overdue") else f"due {due}"
                shown.append(f"{task.title} ({when})" if due else task.title)
        if shown:
            self._status = "Reminder: " + "; ".join(shown)

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
            elif isinstance(self._question, EditForm):
                self._answer_form(self._question, key)
            elif isinstance(self._question, _Help):
                self._question = None
            else:
                self._on_key(key)

    def _on_key(self, key: str | int) -> None:
        selected = self._selected_task()
        if key == "q":
            self._running = False
        elif key == "?":
            self._question = _Help()
        elif key == "a":
            self._ask("New task: ", "", self._add, previews=True)
        elif key == "/":
            self._ask("Filter: ", self._filter_text, self._set_filter_text, on_escape=self._clear_filters)
        elif key == "t":
            self._ask("Tag: ", self._filter_tag, self._set_filter_tag, on_escape=self._clear_filters)
        elif key == "p":
            self._ask("Project: ", self._filter_project, self._set_filter_project, on_escape=self._clear_filters)
        elif key == "u":
            self._undo_or_redo("tasks/undo", "undo")
        elif key == _CTRL_R:
            self._undo_or_redo("tasks/redo", "redo")
        elif key in (_ESCAPE, "c"):
            self._clear_filters()
        elif key == "h":
            self._show_hidden = not self._show_hidden
            self._refresh_view()
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
        elif key in ("e", *_ENTER_KEYS):
            self._question = EditForm(selected)
        elif key == "r":
            self._ask("Rename: ", selected.title, lambda title: self._rename(selected, title))
        elif key in (" ", "x"):
            self._act(lambda client: client.update(selected.id, done=not selected.done, if_version=selected.version))
        elif key == "d":
            self._question = _Confirmation(
                f"Delete “{selected.title}”? (y/n)",
                lambda: self._act(lambda client: client.delete(selected.id, if_version=selected.version)),
            )

    def _answer_prompt(self, prompt: _Prompt, key: str | int) -> None:
        if key in _ENTER_KEYS:
            self._question = None
            self._preview.forget()
            prompt.on_submit(prompt.editor.text)
        elif key == _ESCAPE:
            self._question = None
            self._preview.forget()
            prompt.on_escape()
        else:
            prompt.editor.handle(key)
            self._ask_for_preview(prompt)

    def _ask_for_preview(self, prompt: _Prompt) -> None:
        """Has the server read the prompt's words as they are now (`tasks/parse` writes nothing)."""
        client = self._client
        if not prompt.previews or client is None or not prompt.editor.text.strip():
            self._preview.forget()
        else:
            self._preview.want(prompt.editor.text, client.parse)

    def _answer_confirmation(self, confirmation: _Confirmation, key: str | int) -> None:
        self._question = None
        if key in ("y", "Y"):
            confirmation.on_yes()

    def _answer_form(self, form: EditForm, key: str | int) -> None:
        if key == _ESCAPE:
            self._question = None
            self._preview.forget()
        elif key in _ENTER_KEYS:
            self._preview.forget()
            self._save(form)
        else:
            form.handle(key)
            self._ask_for_form_preview(form)

    def _ask_for_form_preview(self, form: EditForm) -> None:
        """Has the server read the focused field's words, when it takes words and they changed."""
        client, words = self._client, form.words_to_preview()
        if client is None or words is None:
            self._preview.forget()
        else:
            self._preview.want(words, lambda text: client.parse(text, form.original.id))

    # Actions. Changes made here come back as tasks/didChange, which updates the list.

    def _ask(
        self,
        label: str,
        text: str,
        on_submit: Callable[[str], None],
        on_escape: Callable[[], None] = lambda: None,
        previews: bool = False,
    ) -> None:
        self._question = _Prompt(label, LineEditor(text), on_submit, on_escape, previews)

    def _add(self, text: str) -> None:
        # The command line's words (`Call the bank +money due:fri pri:H`), read by the server.
        if text.strip():
            self._act(lambda client: client.request("tasks/create", client.parse(text)))

    def _rename(self, task: Task, title: str) -> None:
        if title != task.title:
            self._act(lambda client: client.update(task.id, title=title, if_version=task.version))

    def _save(self, form: EditForm) -> None:
        client = self._client
        if client is None:
            form.message = "Not saved: no server (reconnecting…). Enter tries again."
            return
        try:
            changes = form.changes(lambda words: client.parse(words, form.original.id))
        except FormError as error:
            form.message = str(error)
            return
        except TasklineError as error:
            form.message = f"Not saved: {_in_words(error)}"
            return
        if not changes:
            self._question = None
            return
        try:
            client.update(form.original.id, if_version=form.version, **changes)
        except VersionConflict as error:
            current = error.current
            if current is None:
                form.message = f"Not saved: {_in_words(error)}"
                return
            form.version = current.version
            form.message = (
                f"Not saved: another program changed this task first. It now has {describe(current)}. "
                "Enter saves your values over it; Esc keeps theirs."
            )
            return
        except TasklineError as error:
            form.message = f"Not saved: {_in_words(error)}"
            return
        self._question = None

    def _set_filter_text(self, text: str) -> None:
        self._filter_text = text
        self._refresh_view()

    def _set_filter_tag(self, tag: str) -> None:
        self._filter_tag = tag.strip().lstrip("#")
        self._refresh_view()

    def _set_filter_project(self, project: str) -> None:
        self._filter_project = project.strip().lstrip("+")
        self._refresh_view()

    def _clear_filters(self) -> None:
        self._filter_text = self._filter_tag = self._filter_project = ""
        self._refresh_view()

    def _undo_or_redo(self, method: str, word: str, force: bool = False) -> None:
        """Reverts this window's newest change (or undone change); after a conflict
        (another program changed a task since) asks whether to go ahead anyway."""
        if self._client is None:
            self._status = "Not done: no server (reconnecting…)"
            return
        params = {"scope": "connection", **({"force": True} if force else {})}
        try:
            result = self._client.request(method, params)
        except ServerError as error:
            if error.code != _UNDO_CONFLICT:
                self._status = f"Cannot {word}: {_in_words(error)}"
                return
            changed = error.data.get("tasks", []) if isinstance(error.data, dict) else []
            titles = ", ".join(f"“{task.get('title')}”" for task in changed if isinstance(task, dict))
            self._question = _Confirmation(
                f"Changed by another program since: {titles}. {word.capitalize()} anyway? (y/n)",
                lambda: self._undo_or_redo(method, word, force=True),
            )
            return
        except TasklineError as error:
            self._status = f"Cannot {word}: {_in_words(error)}"
            return
        # {undone|redone: group, tasks, deleted}, or {} when there was nothing to revert.
        if not result:
            self._status = f"Nothing to {word}."

    def _act(self, action: Callable[[Client], object]) -> None:
        if self._client is None:
            self._status = "Not done: no server (reconnecting…)"
            return
        try:
            action(self._client)
        except TasklineError as error:
            self._status = f"Error: {_in_words(error)}"

    def _refresh_view(self) -> None:
        now = datetime.now().astimezone()
        shown = self._copy.view(self._filter_text, self._filter_tag, self._filter_project, self._show_hidden, now)
        self._tasks, self._hidden = shown.tasks, shown.hidden
        ids = [task.id for task in self._tasks]
        self._select(ids.index(self._selected_id) if self._selected_id in ids else self._selected)

    # Selection and drawing

    def _selected_task(self) -> Task | None:
        return self._tasks[self._selected] if 0 <= self._selected < len(self._tasks) else None

    def _select(self, index: int) -> None:
        self._selected = max(0, min(index, len(self._tasks) - 1))
        selected = self._selected_task()
        self._selected_id = selected.id if selected is not None else None
        height = self._list_height()
        self._top = max(0, min(self._top, len(self._tasks) - height))
        if self._selected < self._top:
            self._top = self._selected
        elif self._selected >= self._top + height:
            self._top = self._selected - height + 1

    def _notes_height(self) -> int:
        lines, _ = self._screen.getmaxyx()
        return 1 + _NOTES_LINES if lines >= 10 else 0

    def _list_height(self) -> int:
        lines, _ = self._screen.getmaxyx()
        return max(1, lines - 2 - self._notes_height())  # a header line above, the status line below

    def _start_colours(self) -> None:
        if os.environ.get("NO_COLOR") or not curses.has_colors():
            return
        try:
            curses.start_color()
            curses.use_default_colors()
            curses.init_pair(_OVERDUE_PAIR, curses.COLOR_RED, -1)
        except curses.error:
            return
        self._overdue_attribute = curses.color_pair(_OVERDUE_PAIR)

    def _draw(self) -> None:
        lines, columns = self._screen.getmaxyx()
        self._screen.erase()
        if lines < 3:  # no room for a header, a task and the status line
            self._screen.refresh()
            return
        header = f"Taskline — {len(self._tasks)} task{'' if len(self._tasks) == 1 else 's'}"
        if self._filter_text:
            header += f"  (filter: {self._filter_text})"
        if self._filter_tag:
            header += f"  (tag: #{self._filter_tag})"
        if self._filter_project:
            header += f"  (project: {self._filter_project})"
        view.draw_line(self._screen, 0, header, curses.A_BOLD)
        form_cursor = None
        if isinstance(self._question, EditForm):
            form_cursor = self._draw_form(self._question, lines - 2)
        elif isinstance(self._question, _Help):
            self._draw_help(lines - 2)
        else:
            self._draw_list(columns)
        if isinstance(self._question, _Prompt) and self._question.previews and lines >= 4:
            self._draw_preview(lines - 2)
        self._draw_status_line(lines - 1)
        if form_cursor is not None:
            _set_cursor_visible(True)
            self._screen.move(*form_cursor)
        self._screen.refresh()

    def _draw_list(self, columns: int) -> None:
        now = datetime.now().astimezone()
        visible = self._tasks[self._top : self._top + self._list_height()]
        for row, task in enumerate(visible, start=1):
            selected = self._top + row - 1 == self._selected
            attributes = curses.A_REVERSE if selected else curses.A_NORMAL
            if view.is_overdue(task, now):
                attributes |= self._overdue_attribute
            view.draw_line(self._screen, row, view.format_row(task, columns - 1, now, selected), attributes)
        if self._notes_height():
            self._draw_notes(1 + self._list_height(), columns)

    def _draw_notes(self, y: int, columns: int) -> None:
        task = self._selected_task()
        notes = task.notes.splitlines() if task is not None else []
        title = "Notes" if notes else "No notes" if task is not None else ""
        view.draw_line(self._screen, y, f"── {title} ".ljust(columns - 1, "─") if title else "", curses.A_DIM)
        for offset in range(_NOTES_LINES):
            line = notes[offset] if offset < len(notes) else ""
            if offset == _NOTES_LINES - 1 and len(notes) > _NOTES_LINES:
                line += " …"
            view.draw_line(self._screen, y + 1 + offset, line)

    def _draw_help(self, last_line: int) -> None:
        for y, (keys, does) in enumerate(view.KEYS, start=1):
            if y == last_line and y < len(view.KEYS):
                view.draw_line(self._screen, y, "  … (a taller terminal shows the rest)", curses.A_DIM)
                break
            view.draw_line(self._screen, y, f"  {keys:<26} {does}", curses.A_BOLD if not does else curses.A_NORMAL)

    def _draw_form(self, form: EditForm, last_line: int) -> tuple[int, int]:
        """Draws the form; returns where its cursor goes."""
        _, columns = self._screen.getmaxyx()
        view.draw_line(self._screen, 1, "Edit task — Enter saves, Esc cancels, Tab moves", curses.A_BOLD)
        cursor = (1, 0)
        for y, label in enumerate(EditForm.LABELS, start=2):
            if y > last_line:
                break
            editor = form.editors[label]
            prefix = f"{'>' if label == form.focused else ' '} {label:<9}"
            shown, cursor_x = _scrolled(editor, columns - 2 - len(prefix))
            view.draw_line(self._screen, y, prefix + shown, curses.A_BOLD if label == form.focused else 0)
            if label == form.focused:
                cursor = (y, len(prefix) + cursor_x)
        y = 2 + len(EditForm.LABELS)
        preview = self._preview_text()
        for text in [*([preview] if preview else []), *_wrap(form.message, columns - 1), *_FORM_HINTS]:
            if y > last_line:
                break
            emphasized = text == preview or text in form.message
            view.draw_line(self._screen, y, text, curses.A_BOLD if emphasized else curses.A_DIM)
            y += 1
        return cursor

    def _draw_preview(self, y: int) -> None:
        """What the server makes of the words typed so far, on line `y`."""
        view.draw_line(self._screen, y, self._preview_text(), curses.A_BOLD)

    def _preview_text(self) -> str:
        answer = self._preview.answer
        if answer is None:
            return ""
        if isinstance(answer, TasklineError):
            return f"✗ {_in_words(answer)}"
        return f"→ {view.parsed_in_words(answer, datetime.now().astimezone())}"

    def _draw_status_line(self, y: int) -> None:
        if isinstance(self._question, _Prompt):
            editor = self._question.editor
            view.draw_line(self._screen, y, self._question.label + editor.text)
            cursor_x = view.text_width(self._question.label + editor.text[: editor.cursor])
            _set_cursor_visible(True)
            self._screen.move(y, min(cursor_x, self._screen.getmaxyx()[1] - 2))
            return
        _set_cursor_visible(False)
        if isinstance(self._question, _Confirmation):
            view.draw_line(self._screen, y, self._question.question, curses.A_BOLD)
        elif self._status or self._outage:
            view.draw_line(self._screen, y, self._status or f"{self._outage}; {self._outage_detail}", curses.A_BOLD)
        else:
            shown = "all shown (h hides)" if self._show_hidden else f"{self._hidden} hidden (h shows)"
            view.draw_line(self._screen, y, f"{shown}  {view.STATUS_KEYS}", curses.A_DIM)


def _scrolled(editor: LineEditor, width: int) -> tuple[str, int]:
    """The editor's text as one line (new lines as ↵) that fits `width` cells and shows
    the cursor, and the cursor's cell in it."""
    text = editor.text.replace("\n", "↵")
    start = 0
    while view.text_width(text[start : editor.cursor]) > width - 1:
        start += 1
    return text[start:], view.text_width(text[start : editor.cursor])


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and view.text_width(line) + 1 + view.text_width(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


def _in_words(error: TasklineError) -> str:
    if isinstance(error, TaskNotFound):
        return "task not found (another program deleted it)"
    if isinstance(error, ServerExited):
        return f"the server stopped ({_exit_in_words(error)})"
    if isinstance(error, Timeout):
        return f"the server did not answer within {error.seconds:g} s"
    return view.error_in_words(error)


def _exit_in_words(error: ServerExited) -> str:
    if error.returncode is None:
        return "it closed its output"
    if error.returncode < 0:
        return f"killed by signal {-error.returncode}"
    return f"exit code {error.returncode}"


def _terminal_size() -> tuple[int, int]:
    size = os.get_terminal_size(sys.stdout.fileno())
    return size.lines, size.columns


def _set_cursor_visible(visible: bool) -> None:
    try:
        curses.curs_set(1 if visible else 0)
    except curses.error:
        pass  # the terminal cannot hide its cursor
