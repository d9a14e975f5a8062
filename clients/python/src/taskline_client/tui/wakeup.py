"""A self-pipe that wakes the curses loop from other threads and from SIGWINCH."""

from __future__ import annotations

import os
import signal
from types import FrameType, TracebackType

CHANGED = b"c"
RESIZED = b"r"
PREVIEWED = b"p"


class Wakeup:
    """Readable (for `select`) whenever `notify` was called since the last `drain`.

    Use it as a context manager: it owns the pipe and, while open, turns SIGWINCH
    into RESIZED.
    """

    def __init__(self) -> None:
        self._read_end, self._write_end = os.pipe()
        os.set_blocking(self._read_end, False)
        os.set_blocking(self._write_end, False)
        self._previous_sigwinch = signal.signal(signal.SIGWINCH, self._on_sigwinch)

    def __enter__(self) -> Wakeup:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        signal.signal(signal.SIGWINCH, self._previous_sigwinch)
        os.close(self._read_end)
        os.close(self._write_end)

    def fileno(self) -> int:
        return self._read_end

    def notify(self, reason: bytes) -> None:
        """Safe from any thread and from signal handlers."""
        try:
            os.write(self._write_end, reason)
        except BlockingIOError:
            pass  # the pipe is full of wake-ups already; the reader will come

    def drain(self) -> set[bytes]:
        """The reasons notified since the last drain."""
        reasons: set[bytes] = set()
        while True:
            try:
                data = os.read(self._read_end, 4096)
            except BlockingIOError:
                return reasons
            reasons.update(data[i : i + 1] for i in range(len(data)))

    def _on_sigwinch(self, signum: int, frame: FrameType | None) -> None:
        self.notify(RESIZED)
