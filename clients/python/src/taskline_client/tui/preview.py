"""What `tasks/parse` makes of the words being typed, asked for off the screen's thread."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Callable, Union

from ..errors import TasklineError

#: Reads words into `tasks/create` params or `tasks/update` changes (a `tasks/parse` call).
Parse = Callable[[str], Mapping[str, Any]]
#: What `tasks/parse` answered: the params or changes, or the error it raised.
Answer = Union[Mapping[str, Any], TasklineError]


class Preview:
    """The answer of `tasks/parse` for the text typed now.

    The screen's thread calls `want` with each new text; a thread of its own sends it, so
    that no key waits on the server, and sends only the newest text waiting (those typed
    meanwhile are skipped). Each answer is announced through `notify`; `take` keeps it only
    if it is for the text typed now, so an answer to a text since changed is never shown.
    """

    def __init__(self, notify: Callable[[], None]) -> None:
        self._notify = notify
        self._condition = threading.Condition()
        self._waiting: tuple[str, Parse] | None = None
        self._answered: list[tuple[str, Answer]] = []
        self._closed = False
        self._text: str | None = None
        #: The answer for the text typed now; None until it came, or when nothing is typed.
        self.answer: Answer | None = None
        threading.Thread(target=self._run, name="taskline-preview", daemon=True).start()

    def want(self, text: str, parse: Parse) -> None:
        """Ask for `text`, unless it is the text asked for last."""
        if text == self._text:
            return
        self._text = text
        with self._condition:
            self._waiting = (text, parse)
            self._condition.notify()

    def forget(self) -> None:
        """Nothing is typed: no answer is shown, and none that comes is kept."""
        self._text = None
        self.answer = None

    def take(self) -> None:
        """Keep the newest answer that came for the text typed now."""
        with self._condition:
            answered, self._answered = self._answered, []
        for text, answer in answered:
            if text == self._text:
                self.answer = answer

    def close(self) -> None:
        with self._condition:
            self._closed = True
            self._condition.notify()

    def _run(self) -> None:
        while True:
            with self._condition:
                self._condition.wait_for(lambda: self._waiting is not None or self._closed)
                if self._closed or self._waiting is None:
                    return
                (text, parse), self._waiting = self._waiting, None
            answer: Answer
            try:
                answer = parse(text)
            except TasklineError as error:
                answer = error
            with self._condition:
                self._answered.append((text, answer))
            self._notify()
