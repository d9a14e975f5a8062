"""Playing one transcript's steps against a fresh server (step semantics: ../README.md)."""

import json
import sqlite3
import tempfile
import time
from collections import defaultdict, deque
from dataclasses import dataclass
from pathlib import Path

from .framing import encode_json, frame
from .matching import Matcher, show
from .server import ServerFailure, ServerProcess
from .transcript import step_label
from .values import TranscriptError, resolve


def raw_bytes(spec, captures):
    """`sendRaw`: a string, or an array of strings, `{"hex": "..."}` and `{"$repeat": ..., "times": n}` parts."""
    parts = spec if isinstance(spec, list) else [spec]
    data = b""
    for part in parts:
        if isinstance(part, dict) and set(part) == {"hex"}:
            data += bytes.fromhex(part["hex"])
        elif isinstance(part, (str, dict)):
            text = resolve(part, captures)
            if not isinstance(text, str):
                raise TranscriptError(f"sendRaw part {part} does not make a string")
            data += text.encode("utf-8")
        else:
            raise TranscriptError(f"bad sendRaw part {part!r}")
    return data


@dataclass
class Outcome:
    """How playing a transcript went: its failure as one line (None when it passed), and the server's stderr."""

    failure: str | None
    server_stderr: str


class RequestLog:
    """Which method each still-unanswered request id was sent with, so a result can be checked against it."""

    def __init__(self):
        self._methods = defaultdict(deque)

    @staticmethod
    def _key(request_id):
        return json.dumps(request_id)

    def sent(self, message):
        for member in message if isinstance(message, list) else [message]:
            if isinstance(member, dict) and "id" in member and isinstance(member.get("method"), str):
                self._methods[self._key(member["id"])].append(member["method"])

    def answered(self, response):
        """The method of the request `response` answers, or None when unknown."""
        if not isinstance(response, dict) or response.get("id") is None:
            return None
        methods = self._methods.get(self._key(response["id"]))
        return methods.popleft() if methods else None


class Session:
    """A transcript being played: the server process, the database it uses, and what was captured so far."""

    def __init__(self, transcript, command, database, timeout, checker, allow_additions):
        self.transcript = transcript
        self.command = [*command, "--db", str(database), *transcript.args]
        self.database = database
        self.default_timeout = transcript.timeout or timeout
        self.checker = checker
        self.allow_additions = allow_additions
        self.captures = {}
        self.requests = RequestLog()
        self.lock = None
        self.server = ServerProcess(self.command, transcript.framing)

    # Steps.

    def run(self, step):
        timeout = step.get("timeout", self.default_timeout)
        self._act(step, timeout)
        if "expect" in step:
            self._expect_in_order(step["expect"], timeout)
        if "expectAnyOrder" in step:
            self._expect_any_order(step["expectAnyOrder"], timeout)
        if "expectSilence" in step:
            self._expect_silence(step["expectSilence"])
        if "expectExit" in step:
            self._expect_exit(step["expectExit"], timeout)

    def _act(self, step, timeout):
        framing = self.transcript.framing
        split_at = step.get("splitAt", ())
        if "send" in step:
            message = resolve(step["send"], self.captures)
            self.requests.sent(message)
            self.server.write(frame(encode_json(message), framing), split_at)
        elif "sendAll" in step:
            messages = [resolve(message, self.captures) for message in step["sendAll"]]
            for message in messages:
                self.requests.sent(message)
            self.server.write(b"".join(frame(encode_json(message), framing) for message in messages), split_at)
        elif "sendRaw" in step:
            self.server.write(raw_bytes(step["sendRaw"], self.captures), split_at)
        elif "closeStdin" in step:
            self.server.close_input()
        elif "sleep" in step:
            time.sleep(step["sleep"])
        elif "restart" in step:
            self._stop_server(timeout)
            self.server.kill()
            self.server = ServerProcess(self.command, framing)
        elif "lockDatabase" in step:
            self._lock_database(timeout)
        elif "unlockDatabase" in step:
            self._unlock_database()

    def _lock_database(self, timeout):
        if self.lock:
            raise TranscriptError("the database is locked already")
        try:
            # mode=rw: never create the file; the server must have made the database already.
            self.lock = sqlite3.connect(
                f"file:{self.database}?mode=rw", uri=True, timeout=timeout, isolation_level=None
            )
            self.lock.execute("BEGIN EXCLUSIVE")
        except sqlite3.Error as error:
            raise ServerFailure(f"cannot lock the database: {error}") from None

    def _unlock_database(self):
        if self.lock:
            self.lock.close()
            self.lock = None

    # Expectations.

    def _check_schema(self, message):
        if not self.checker:
            return
        problem = self.checker.message_problem(message)
        responses = (
            [(f"$[{index}]", member) for index, member in enumerate(message)]
            if isinstance(message, list)
            else [("$", message)]
        )
        for path, response in responses:
            method = self.requests.answered(response)
            if problem is None and method and "result" in response:
                problem = self.checker.result_problem(method, response["result"], f"{path}.result")
        if problem:
            raise ServerFailure(f"{problem} in {show(message)}")

    def _expect_in_order(self, pattern, timeout):
        message = self.server.next_message(timeout, f"a message like {show(pattern)}")
        mismatch = Matcher(self.captures, self.allow_additions).match(pattern, message)
        if mismatch:
            raise ServerFailure(str(mismatch))
        self._check_schema(message)

    def _expect_any_order(self, patterns, timeout):
        messages = [
            self.server.next_message(timeout, f"message {index + 1} of {len(patterns)} (any order)")
            for index in range(len(patterns))
        ]
        unused = list(messages)
        for number, pattern in enumerate(patterns, 1):
            first_mismatch = None
            for message in unused:
                trial = Matcher(dict(self.captures), self.allow_additions)
                mismatch = trial.match(pattern, message)
                if mismatch is None:
                    self.captures.update(trial.captures)
                    unused.remove(message)
                    break
                first_mismatch = first_mismatch or mismatch
            else:
                raise ServerFailure(
                    f"no message left matches pattern {number} of {len(patterns)}; first try: {first_mismatch}"
                )
        for message in messages:
            self._check_schema(message)

    def _expect_silence(self, seconds):
        message = self.server.peek_unread(seconds)
        if message is not None:
            raise ServerFailure(f"expected no message within {seconds:g}s, got {show(message)}")

    def _refuse_unread(self, when):
        message = self.server.peek_unread(0)
        if message is not None:
            raise ServerFailure(f"unexpected message {when}: {show(message)}")

    def _expect_exit(self, code, timeout):
        actual = self.server.wait_exit(timeout)
        self._refuse_unread("before the exit")
        if actual != code:
            raise ServerFailure(f"expected exit code {code}, got {actual}")

    # Ending.

    def _stop_server(self, timeout):
        self.server.close_input()
        self.server.wait_exit(timeout)
        self._refuse_unread("before the server stopped")

    def finish(self):
        self._stop_server(self.default_timeout)

    def close(self):
        self._unlock_database()
        self.server.kill()


def play(transcript, command, timeout, checker=None, allow_additions=False):
    """Plays `transcript` against a fresh server; the outcome's failure is one line, or None."""
    with tempfile.TemporaryDirectory(prefix="taskline-conformance-") as folder:
        session = Session(transcript, command, Path(folder) / "tasks.sqlite", timeout, checker, allow_additions)
        try:
            for index, step in enumerate(transcript.steps, 1):
                repeat = step.get("repeat", 1)
                for iteration in range(1, repeat + 1):
                    if "repeat" in step:
                        session.captures["i"] = iteration
                    try:
                        session.run(step)
                    except (ServerFailure, TranscriptError) as failure:
                        where = step_label(index, step) + (f" iteration {iteration}" if repeat > 1 else "")
                        return Outcome(f"{where}: {failure}", session.server.stderr_tail)
            try:
                session.finish()
            except ServerFailure as failure:
                return Outcome(f"after the last step: {failure}", session.server.stderr_tail)
            return Outcome(None, session.server.stderr_tail)
        finally:
            session.close()
