"""One server process: writing its stdin, and reading its stdout as messages in the background."""

import itertools
import queue
import subprocess
import threading
import time

from .framing import OutputViolation, decoder_for

_PAUSE_BETWEEN_WRITES = 0.05
_STDERR_TAIL_BYTES = 2000
_READER_GRACE_SECONDS = 2


class ServerFailure(Exception):
    """The server did not do what the transcript expects."""


class ServerProcess:
    def __init__(self, command, framing):
        self._framing = framing
        self._events = queue.Queue()
        self._pending = []
        self._stderr_tail = b""
        try:
            self._process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0
            )
        except OSError as error:
            raise ServerFailure(f"cannot start the server {command[0]}: {error}") from None
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    # Background readers.

    def _read_stdout(self):
        decoder = decoder_for(self._framing)
        stream = self._process.stdout
        try:
            while chunk := stream.read(65536):
                for message in decoder.feed(chunk):
                    self._events.put(("message", message))
            decoder.finish()
        except OutputViolation as violation:
            self._events.put(("violation", str(violation)))
            while stream.read(65536):
                pass
        self._events.put(("eof", None))

    def _read_stderr(self):
        while chunk := self._process.stderr.read(4096):
            self._stderr_tail = (self._stderr_tail + chunk)[-_STDERR_TAIL_BYTES:]

    @property
    def stderr_tail(self):
        return self._stderr_tail.decode("utf-8", "replace")

    # Writing.

    def write(self, data, split_at=()):
        """Writes `data`, as separate writes cut at the byte offsets in `split_at`."""
        cuts = [0, *sorted(split_at), len(data)]
        try:
            for index, (start, end) in enumerate(itertools.pairwise(cuts)):
                if index:
                    time.sleep(_PAUSE_BETWEEN_WRITES)
                self._process.stdin.write(data[start:end])
        except (BrokenPipeError, ValueError):
            raise ServerFailure(f"cannot write: the server closed its stdin ({self._exit_status()})") from None

    def close_input(self):
        try:
            self._process.stdin.close()
        except BrokenPipeError:
            pass

    # Reading.

    def _next_event(self, timeout):
        if self._pending:
            return self._pending.pop(0)
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            return None

    def next_message(self, timeout, waiting_for):
        event = self._next_event(timeout)
        if event is None:
            raise ServerFailure(f"timed out after {timeout:g}s waiting for {waiting_for}")
        kind, value = event
        if kind == "violation":
            raise ServerFailure(f"bad output while waiting for {waiting_for}: {value}")
        if kind == "eof":
            self._pending.insert(0, event)
            raise ServerFailure(f"the server closed stdout ({self._exit_status()}) while waiting for {waiting_for}")
        return value

    def peek_unread(self, timeout):
        """The next message if one arrives within `timeout`, without consuming it; None otherwise."""
        event = self._next_event(timeout)
        if event is None:
            return None
        self._pending.insert(0, event)
        kind, value = event
        if kind == "violation":
            raise ServerFailure(f"bad output: {value}")
        return value if kind == "message" else None

    # Ending.

    def _exit_status(self):
        code = self._process.poll()
        return "still running" if code is None else f"exit code {code}"

    def wait_exit(self, timeout):
        """Waits for the process to end and for its output to be read; returns the exit code."""
        try:
            code = self._process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ServerFailure(f"the server did not exit within {timeout:g}s") from None
        for thread in self._threads:
            thread.join(timeout)
        return code

    def kill(self):
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        self.close_input()
        # Closing a pipe while its reader thread is inside read() fails that read with EBADF;
        # a reader still blocked here means a grandchild holds the pipe, so leave it to exit.
        for thread, stream in zip(self._threads, (self._process.stdout, self._process.stderr)):
            thread.join(_READER_GRACE_SECONDS)
            if not thread.is_alive():
                stream.close()
