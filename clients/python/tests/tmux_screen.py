"""Drive a terminal program in a detached tmux session of a fixed size."""

from __future__ import annotations

import itertools
import os
import shlex
import subprocess
import time
from collections.abc import Sequence
from typing import Callable

_sessions = itertools.count()


class TmuxScreen:
    """One program in its own tmux server (a private socket, so nothing else is touched)."""

    def __init__(self, command: Sequence[str], columns: int = 100, lines: int = 24) -> None:
        self._socket = f"taskline-pytest-{os.getpid()}-{next(_sessions)}"
        self._tmux("new-session", "-d", "-s", "main", "-x", str(columns), "-y", str(lines), shlex.join(command))

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "main", "-l", text)

    def press(self, *keys: str) -> None:
        """tmux key names: Enter, Escape, Space, Up, C-u, …"""
        self._tmux("send-keys", "-t", "main", *keys)

    def resize(self, columns: int, lines: int) -> None:
        self._tmux("resize-window", "-t", "main", "-x", str(columns), "-y", str(lines))

    def text(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "main")

    def styled_text(self) -> str:
        """The screen with its colours and attributes as escape sequences."""
        return self._tmux("capture-pane", "-p", "-e", "-t", "main")

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.text().splitlines()]

    def wait_for(self, condition: Callable[[str], bool], timeout: float = 5.0) -> str:
        """The screen once `condition` holds for it and it has settled (two captures in a
        row alike: a capture can catch curses half-way through redrawing, with a new count
        in the header and the old rows below); fails showing the last screen."""
        deadline = time.monotonic() + timeout
        previous = None
        while True:
            screen = self.text()
            if condition(screen) and (screen == previous or time.monotonic() > deadline):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen never got there; it shows:\n{screen}")
            previous = screen
            time.sleep(0.05)

    def wait_for_text(self, text: str, timeout: float = 5.0) -> str:
        return self.wait_for(lambda screen: text in screen, timeout)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self._socket, "kill-server"], capture_output=True, check=False)

    def _tmux(self, *arguments: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self._socket, *arguments], capture_output=True, text=True, check=True
        ).stdout
