"""How the task list looks: row text and the drawing of the screen."""

from __future__ import annotations

import curses
import unicodedata

from ..models import Priority, Task

_PRIORITY_LABELS = {Priority.NONE: "", Priority.LOW: "low", Priority.MEDIUM: "medium", Priority.HIGH: "high"}
_PRIORITY_WIDTH = 6
_DUE_WIDTH = 16
HELP = "a add  r rename  space/x done  d delete  / filter  Esc clear filter  q quit"


def char_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


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


def format_due(due: str | None) -> str:
    """A full date as it is; a date-time as its date, hours and minutes (in its own offset)."""
    if due is None:
        return ""
    return due if len(due) == len("2026-12-01") else f"{due[:10]} {due[11:16]}"


def format_row(task: Task, width: int) -> str:
    """One task as a line of exactly `width` cells: done mark, title, priority, due, tags."""
    mark = "[x]" if task.done else "[ ]"
    tags = " ".join(f"#{tag}" for tag in task.tags)
    tags_width = min(len(tags), max(0, width // 4))
    fixed = len(mark) + 1 + 1 + _PRIORITY_WIDTH + 1 + _DUE_WIDTH + (1 + tags_width if tags_width else 0)
    title_width = max(1, width - fixed)
    row = f"{mark} {fit(task.title, title_width)} {fit(_PRIORITY_LABELS[task.priority], _PRIORITY_WIDTH)} "
    row += fit(format_due(task.due), _DUE_WIDTH)
    if tags_width:
        row += " " + fit(tags, tags_width)
    return fit(row, width)


def draw_line(screen: curses.window, y: int, text: str, attributes: int = 0) -> None:
    """Write one full screen line; the bottom-right cell is left alone, since
    curses cannot write there without scrolling."""
    _, columns = screen.getmaxyx()
    single_line = " ".join(text.splitlines())
    screen.addstr(y, 0, fit(single_line, columns - 1), attributes)
