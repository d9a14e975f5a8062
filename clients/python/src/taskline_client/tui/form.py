"""The edit form: every field of a task on one screen, saved in one update."""

from __future__ import annotations

import curses
from collections.abc import Mapping
from typing import Any, Callable

from ..errors import InvalidParams
from ..models import Priority, Task
from .line_editor import LineEditor
from .view import PRIORITY_LABELS, rule_in_words

_PRIORITY_NAMES = ["none", "low", "medium", "high"]
_DONE_NAMES = ["no", "yes"]
_CHOICES = {"Priority": _PRIORITY_NAMES, "Done": _DONE_NAMES}
#: The fields that take the command line's words, read by the server (`tasks/parse`):
#: their attribute, and the member of `tasks/update` changes it sets.
_WORD_FIELDS = {
    "Due": ("due", "due"),
    "Wait": ("wait", "wait"),
    "Remind": ("remind", "remindAt"),
    "Repeat": ("recur", "recurrence"),
}
#: Parses words into `tasks/update` changes for the task being edited.
Parse = Callable[[str], Mapping[str, Any]]
NEW_LINE = "\x0f"  # Ctrl-O, as in Emacs: open a line
_NEXT_KEYS = {"\t", curses.KEY_DOWN}
_PREVIOUS_KEYS = {curses.KEY_BTAB, curses.KEY_UP}


class FormError(ValueError):
    """A field holds something that is no value for it; the message says what to write."""


def describe(task: Task) -> str:
    """The task's fields in words, for a conflict message."""
    tags = " ".join(f"#{tag}" for tag in task.tags) or "none"
    notes = task.notes.replace("\n", " ↵ ")
    return (
        f"title “{task.title}”, notes “{notes}”, due {task.due or 'none'}, wait {task.wait or 'none'}, "
        f"project {task.project or 'none'}, tags {tags}, "
        f"priority {PRIORITY_LABELS[task.priority] or 'none'}, done {'yes' if task.done else 'no'}, "
        f"repeat {_rule_in_words(task)}, remind {task.remind_at or 'none'}"
    )


def _rule_in_words(task: Task) -> str:
    return "none" if task.recurrence is None else rule_in_words(task.recurrence.rule)


class EditForm:
    LABELS = ("Title", "Notes", "Due", "Wait", "Project", "Tags", "Priority", "Done", "Repeat", "Remind")

    def __init__(self, task: Task) -> None:
        self.original = task
        #: The version the save is made against: the task's, or the current one after a conflict.
        self.version = task.version
        self.focus = 0
        self.message = ""
        self.editors = {
            "Title": LineEditor(task.title),
            "Notes": LineEditor(task.notes),
            "Due": LineEditor(task.due or ""),
            "Wait": LineEditor(task.wait or ""),
            "Project": LineEditor(task.project or ""),
            "Tags": LineEditor(" ".join(task.tags)),
            "Priority": LineEditor(_PRIORITY_NAMES[task.priority]),
            "Done": LineEditor(_DONE_NAMES[task.done]),
            "Repeat": LineEditor("" if task.recurrence is None else _rule_in_words(task)),
            "Remind": LineEditor(task.remind_at or ""),
        }
        #: The text each field showed when the form opened.
        self.editors_shown = {label: editor.text for label, editor in self.editors.items()}

    @property
    def focused(self) -> str:
        return self.LABELS[self.focus]

    def handle(self, key: str | int) -> None:
        """An editing or moving key (Enter and Esc are the app's)."""
        if key in _NEXT_KEYS:
            self.focus = (self.focus + 1) % len(self.LABELS)
        elif key in _PREVIOUS_KEYS:
            self.focus = (self.focus - 1) % len(self.LABELS)
        elif self.focused in _CHOICES and key in (" ", curses.KEY_LEFT, curses.KEY_RIGHT):
            choices = _CHOICES[self.focused]
            editor = self.editors[self.focused]
            current = choices.index(editor.text) if editor.text in choices else 0
            step = -1 if key == curses.KEY_LEFT else 1
            self.editors[self.focused] = LineEditor(choices[(current + step) % len(choices)])
        elif key == NEW_LINE and self.focused == "Notes":
            self.editors["Notes"].insert("\n")
        else:
            self.editors[self.focused].handle(key)

    def words_to_preview(self) -> str | None:
        """The focused field's text as the words `tasks/parse` reads (`due:fri`), when the
        field takes words and its text is not the one shown when the form opened."""
        if self.focused not in _WORD_FIELDS:
            return None
        text = self.editors[self.focused].text.strip()
        return None if text == self.editors_shown[self.focused] else f"{_WORD_FIELDS[self.focused][0]}:{text}"

    def changes(self, parse: Parse) -> dict[str, Any]:
        """The fields the user changed, as `update` takes them; `FormError` for a field
        that holds no value for it. Due, Wait, Remind and Repeat take what the command
        line takes (`fri`, `+3d`, `9am`, `monthly`), read by `parse`."""
        values: dict[str, Any] = {
            "title": self.editors["Title"].text,
            "notes": self.editors["Notes"].text,
            "due": self._words("Due", self.original.due, parse),
            "wait": self._words("Wait", self.original.wait, parse),
            "project": self.editors["Project"].text.strip() or None,
            "tags": tuple(tag.lstrip("#") for tag in self.editors["Tags"].text.split() if tag.lstrip("#")),
            "priority": _choice(self.editors["Priority"].text, _PRIORITY_NAMES, "Priority"),
            "done": bool(_choice(self.editors["Done"].text, _DONE_NAMES, "Done")),
            "recurrence": self._words(
                "Repeat", None if self.original.recurrence is None else self.original.recurrence.rule, parse
            ),
            "remind_at": self._words("Remind", self.original.remind_at, parse),
        }
        original = self.original
        before = {
            "title": original.title,
            "notes": original.notes,
            "due": original.due,
            "wait": original.wait,
            "project": original.project,
            "tags": tuple(sorted(set(original.tags))),
            "priority": int(original.priority),
            "done": original.done,
            "recurrence": None if original.recurrence is None else original.recurrence.rule,
            "remind_at": original.remind_at,
        }
        changed = {name: value for name, value in values.items() if value != before[name]}
        if "tags" in changed and tuple(sorted(set(changed["tags"]))) == before["tags"]:
            del changed["tags"]
        if "priority" in changed:
            changed["priority"] = Priority(changed["priority"])
        return changed

    def _words(self, label: str, original: str | None, parse: Parse) -> str | None:
        """The field's value: the original while its text is as shown, else what the
        server reads the text as (`due:fri`)."""
        text = self.editors[label].text.strip()
        shown = self.editors_shown[label]
        if text == shown:
            return original
        attribute, member = _WORD_FIELDS[label]
        try:
            value = parse(f"{attribute}:{text}").get(member)
        except InvalidParams as error:
            reason = error.data.get("reason") if isinstance(error.data, dict) else None
            raise FormError(f"{label}: {reason or error}") from error
        return value["rule"] if isinstance(value, dict) else value


def _choice(text: str, names: list[str], label: str) -> int:
    lowered = text.strip().lower()
    for index, name in enumerate(names):
        if lowered and (name.startswith(lowered) or lowered == str(index)):
            return index
    raise FormError(f"{label}: write one of {', '.join(names)}")
