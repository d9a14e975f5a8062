"""How the task list looks: row text, due dates in words, and the drawing of lines."""

from __future__ import annotations

import curses
import unicodedata
from collections.abc import Iterable, Mapping
from datetime import date, datetime, time, timedelta, tzinfo
from typing import Any

from ..errors import InvalidParams, MethodNotFound, TasklineError
from ..models import Priority, Task
from ..timestamps import parse_due

PRIORITY_LABELS = {Priority.NONE: "", Priority.LOW: "low", Priority.MEDIUM: "medium", Priority.HIGH: "high"}
_PRIORITY_WIDTH = 6
_DUE_WIDTH = 18
OVERDUE_MARK = "!"
SELECTED_MARK = ">"
WAITING_MARK = "[w]"
RECURRING_MARK = "↻"
#: Names for the rules the command line's `recur:` words make, to show a rule by its name.
RULE_NAMES = {
    "daily": "FREQ=DAILY",
    "weekdays": "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR",
    "weekly": "FREQ=WEEKLY",
    "monthly": "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD",
    "lastday": "FREQ=MONTHLY;BYMONTHDAY=-1",
    "yearly": "FREQ=YEARLY",
}
#: The form's names for fields whose wire name is not one capitalized.
_FIELD_LABELS = {"recurrence": "Repeat", "recurrence.rule": "Repeat", "remindAt": "Remind"}

#: Every key, as the `?` overlay lists them.
KEYS = [
    ("↑ k  ↓ j  PgUp PgDn  g G", "move the selection"),
    ("a", "add a task: the command line's words, previewed as typed"),
    ("e  Enter", f"edit the selected task: every field in a form ({RECURRING_MARK}: it repeats)"),
    ("r", "rename the selected task"),
    ("space  x", "mark done; on a done task, reopen it"),
    ("d", "delete (asks y/n)"),
    ("u  Ctrl-R", "undo / redo this window's changes (a server with tasks/undo)"),
    ("/", "filter by text in the title or notes"),
    ("t", "filter by tag"),
    ("p", "filter by project (Home: Home and Home.…)"),
    ("Esc  c", "clear the filters"),
    ("h", "show or hide done and waiting [w] tasks"),
    ("?", "this help (any key closes it)"),
    ("q", "quit"),
    ("In the edit form:", ""),
    ("Tab ↓  Shift-Tab ↑", "next / previous field"),
    ("Enter  Esc", "save (only if nobody changed the task meanwhile) / cancel"),
    ("Ctrl-O  Ctrl-U", "a new line in the notes / clear up to the cursor"),
]
STATUS_KEYS = "? help  a add  e edit  x done  u undo  / t p filter  h hidden  q quit"


def char_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def text_width(text: str) -> int:
    return sum(char_width(char) for char in text)


def fit(text: str, width: int) -> str:
    """`text` cut (with an ellipsis) or padded to exactly `width` terminal cells."""
    used = 0
    kept: list[str] = []
    for index, char in enumerate(text):
        cells = char_width(char)
        if used + cells > width or (used + cells == width and index < len(text) - 1):
            if width > 0:
                kept.append("…")
                used += 1
            break
        kept.append(char)
        used += cells
    return "".join(kept) + " " * (width - used)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def date_in_words(stored: str, now: datetime, open: bool, zone: tzinfo | None = None) -> str:
    """`stored` (a due or a wait) as protocol/dates.md has it read: `today`, `tomorrow 09:00`,
    `in 3 days`, `2 days overdue` (`open`: an open task's due), `yesterday`, `3 days ago`, or
    the date. `zone` is the reader's; None is the system's, with its summer time."""
    try:
        value = parse_due(stored)
    except ValueError:
        return stored
    today = now.astimezone(zone).date()
    if isinstance(value, datetime):
        local = value.astimezone(zone)
        day, clock = local.date(), f" {local:%H:%M}"
    else:
        day, clock = value, ""  # a date is the same day in every zone
    days = (day - today).days
    if days == 0:
        words = "today"
    elif days == 1:
        words = "tomorrow"
    elif days == -1 and not open:
        words = "yesterday"
    elif 2 <= days <= 13:
        words = f"in {days} days"
    elif days < 0 and open and is_past(stored, now, zone):
        return _plural(-days, "day") + " overdue"  # says enough without the time of day
    elif -13 <= days <= -2:
        words = f"{-days} days ago"
    else:
        words = day.isoformat()
    return words + clock


def is_past(stored: str, now: datetime, zone: tzinfo | None = None) -> bool:
    """Whether `stored` has passed: a date once the reader's day is after it, a
    date-time once its instant is before `now`."""
    try:
        value = parse_due(stored)
    except ValueError:
        return False
    if isinstance(value, datetime):
        return value < now
    return value < now.astimezone(zone).date()


def due_in_words(task: Task, now: datetime) -> str:
    """The task's due in words (`date_in_words`), empty without one."""
    return date_in_words(task.due, now, open=not task.done) if task.due is not None else ""


def is_overdue(task: Task, now: datetime) -> bool:
    return not task.done and task.due is not None and is_past(task.due, now)


def rule_in_words(rule: str) -> str:
    """A recurrence rule by its name in the Repeat field (`monthly`), else as it is."""
    return next((name for name, named in RULE_NAMES.items() if named == rule), rule)


def _when(stored: Any, now: datetime, open: bool) -> str:
    """`2026-12-11 (in 3 days)`: a time as stored, in local time, and in words."""
    if not isinstance(stored, str):
        return str(stored)
    try:
        value = parse_due(stored)
    except ValueError:
        return stored
    shown = value.astimezone().strftime("%Y-%m-%d %H:%M") if isinstance(value, datetime) else value.isoformat()
    words = date_in_words(stored, now, open)
    return shown if words == shown else f"{shown} ({words})"


_PARSED_ORDER = {
    name: index
    for index, name in enumerate(
        ("title", "due", "wait", "remindAt", "recurrence", "priority", "project", "tags", "dependsOn", "done")
    )
}


def parsed_in_words(fields: Mapping[str, Any], now: datetime) -> str:
    """What `tasks/parse` made of words, `tasks/create` params or `tasks/update` changes,
    in words: `“Call the bank”  due 2026-12-11 (in 3 days)  priority high  +money`."""
    parts: list[str] = []
    for name, value in sorted(fields.items(), key=lambda item: _PARSED_ORDER.get(item[0], len(_PARSED_ORDER))):
        label = {"remindAt": "remind", "dependsOn": "depends on"}.get(name, name)
        if name == "title":
            parts.append(f"“{value}”")
        elif value is None:
            parts.append(f"no {'repeat' if name == 'recurrence' else label}")
        elif name in ("due", "wait", "remindAt"):
            parts.append(f"{label} {_when(value, now, open=name == 'due' and fields.get('done') is not True)}")
        elif name == "priority" and isinstance(value, int) and 0 <= value <= 3:
            parts.append(f"priority {PRIORITY_LABELS[Priority(value)] or 'none'}")
        elif name == "tags":
            parts.append(" ".join(f"+{tag}" for tag in value) or "no tags")
        elif name == "recurrence" and isinstance(value, dict):
            parts.append(f"repeats {rule_in_words(str(value.get('rule')))}")
        elif name == "dependsOn" and isinstance(value, list):
            parts.append(f"depends on {_plural(len(value), 'task')}" if value else "depends on none")
        elif name == "done":
            parts.append("done" if value else "open")
        else:
            parts.append(f"{label} {value}")
    return "  ".join(parts)


def is_waiting(task: Task, now: datetime) -> bool:
    """Whether the task is not actionable yet: its `wait` is still to come."""
    try:
        wait = parse_due(task.wait) if task.wait is not None else None
    except ValueError:
        return False
    if isinstance(wait, datetime):
        return wait > now
    if isinstance(wait, date):
        return wait > now.date()
    return False


def next_change(tasks: Iterable[Task], now: datetime) -> datetime:
    """When a row may next read otherwise: an open task's due or wait date-time to
    come (it turns overdue, or stops waiting), or else the next local midnight
    (dates in words; due and wait dates)."""
    midnight = datetime.combine(now.date() + timedelta(days=1), time.min).astimezone(now.tzinfo)
    moments = [midnight]
    for task in tasks:
        for text in () if task.done else (task.due, task.wait):
            try:
                moment = parse_due(text) if text is not None else None
            except ValueError:
                continue
            if isinstance(moment, datetime) and moment >= now:
                moments.append(moment)
    return min(moments)


def format_row(task: Task, width: int, now: datetime, selected: bool) -> str:
    """One task as a line of exactly `width` cells: selection mark, done mark
    (`[w]` for a waiting task), title (after `↻` when it repeats), priority,
    due (with `!` when overdue), project and tags."""
    done_mark = "[x]" if task.done else WAITING_MARK if is_waiting(task, now) else "[ ]"
    mark = f"{SELECTED_MARK if selected else ' '} {done_mark}"
    tags = " ".join([*([f"+{task.project}"] if task.project else []), *(f"#{tag}" for tag in task.tags)])
    tags_width = min(len(tags), max(0, width // 4))
    fixed = len(mark) + 1 + 1 + _PRIORITY_WIDTH + 1 + _DUE_WIDTH + (1 + tags_width if tags_width else 0)
    repeats = f"{RECURRING_MARK} " if task.recurrence is not None else ""
    title_width = max(1, width - fixed - len(repeats))
    due = due_in_words(task, now)
    if is_overdue(task, now):
        due = OVERDUE_MARK + due
    row = f"{mark} {repeats}{fit(task.title, title_width)} {fit(PRIORITY_LABELS[task.priority], _PRIORITY_WIDTH)} "
    row += fit(due, _DUE_WIDTH)
    if tags_width:
        row += " " + fit(tags, tags_width)
    return fit(row, width)


def error_in_words(error: TasklineError) -> str:
    """What went wrong, for people: the server's message without its code; for a
    value the server refused, the field by its name in the form and the reason."""
    if isinstance(error, InvalidParams) and isinstance(error.data, dict):
        field, reason = error.data.get("field"), error.data.get("reason")
        if field == "text" and isinstance(reason, str):
            return reason  # words tasks/parse refused: the command line's message says what is taken
        if isinstance(field, str) and isinstance(reason, str):
            name = field.removeprefix("changes.")
            return f"{_FIELD_LABELS.get(name) or name.rpartition('.')[2].capitalize()}: {reason}"
    if isinstance(error, MethodNotFound) and isinstance(error.data, dict):
        return f"this taskline server does not know {error.data.get('method')} (it is older than this program)"
    message = getattr(error, "message", None)
    return message if isinstance(message, str) and message else str(error)


def draw_line(screen: curses.window, y: int, text: str, attributes: int = 0) -> None:
    """Write one full screen line; the bottom-right cell is left alone, since
    curses cannot write there without scrolling."""
    _, columns = screen.getmaxyx()
    single_line = " ".join(text.splitlines())
    screen.addstr(y, 0, fit(single_line, columns - 1), attributes)
