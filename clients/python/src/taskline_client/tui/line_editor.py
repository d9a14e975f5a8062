"""A one-line text field: the text, the cursor, and the editing keys."""

from __future__ import annotations

import curses

_BACKSPACE_KEYS = {curses.KEY_BACKSPACE, "\x7f", "\b"}


class LineEditor:
    def __init__(self, text: str = "") -> None:
        self.text = text
        self.cursor = len(text)

    def handle(self, key: str | int) -> None:
        """Apply an editing key; keys it does not know are ignored."""
        if key in _BACKSPACE_KEYS:
            if self.cursor > 0:
                self.text = self.text[: self.cursor - 1] + self.text[self.cursor :]
                self.cursor -= 1
        elif key == curses.KEY_DC:
            self.text = self.text[: self.cursor] + self.text[self.cursor + 1 :]
        elif key == curses.KEY_LEFT:
            self.cursor = max(0, self.cursor - 1)
        elif key == curses.KEY_RIGHT:
            self.cursor = min(len(self.text), self.cursor + 1)
        elif key in (curses.KEY_HOME, "\x01"):
            self.cursor = 0
        elif key in (curses.KEY_END, "\x05"):
            self.cursor = len(self.text)
        elif key == "\x15":  # Ctrl-U, as in a shell
            self.text = self.text[self.cursor :]
            self.cursor = 0
        elif isinstance(key, str) and key.isprintable():
            self.insert(key)

    def insert(self, text: str) -> None:
        self.text = self.text[: self.cursor] + text + self.text[self.cursor :]
        self.cursor += len(text)
