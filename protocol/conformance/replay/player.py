"""Playing one transcript's steps against a fresh server (step semantics: ../transcript-format.md)."""

import json
import shutil
import sqlite3
import subprocess
import time
from collections import defaultdict, deque
from dataclasses import dataclass

from .databases import sqlite_file
from .framing import encode_json, frame
from .matching import Matcher, show
from .server import ServerFailure, ServerProcess
from .transcript import FIRST, SECOND, step_label
from .values import TranscriptError, construct, is_constructor, resolve

DID_CHANGE = "tasks/didChange"
INVALID_PARAMS = -32602


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
    """Each still-unanswered request by its id, so that its answer can be checked against it."""

    def __init__(self):
        self._requests = defaultdict(deque)

    @staticmethod
    def _key(request_id):
        return json.dumps(request_id)

    def sent(self, message):
        for member in message if isinstance(message, list) else [message]:
            if isinstance(member, dict) and "id" in member and isinstance(member.get("method"), str):
                self._requests[self._key(member["id"])].append(member)

    def answered(self, response):
        """The request `response` answers, or None when unknown."""
        if not isinstance(response, dict) or response.get("id") is None:
            return None
        requests = self._requests.get(self._key(response["id"]))
        return requests.popleft() if requests else None


def is_did_change(message):
    return isinstance(message, dict) and message.get("method") == DID_CHANGE and "id" not in message


class Peer:
    """One server process of a transcript (the first, or a second one on the same database), with what it was sent."""

    def __init__(self, name, base_command, args, framing):
        self.name = name
        self.base_command = base_command
        self.args = args
        self.framing = framing
        self.start()

    def start(self):
        self.requests = RequestLog()
        self.last_seq = None
        self.process = ServerProcess([*self.base_command, *self.args], self.framing)

    def check_notification_order(self, message):
        """protocol/notifications.md §6: a notification's `seq` is its last change's; changes reach a client once each, in seq order."""
        if not is_did_change(message):
            return
        params = message.get("params")
        changes = params.get("changes") if isinstance(params, dict) else None
        if not isinstance(changes, list) or not changes:
            return  # the schema check reports the shape
        seqs = [change.get("seq") if isinstance(change, dict) else None for change in changes]
        if not all(isinstance(seq, int) and not isinstance(seq, bool) for seq in seqs):
            return
        if params.get("seq") != seqs[-1]:
            raise ServerFailure(
                f"{DID_CHANGE} seq {show(params.get('seq'))} is not the seq of its last change ({seqs[-1]})"
            )
        previous = self.last_seq
        for seq in seqs:
            if previous is not None and seq <= previous:
                raise ServerFailure(
                    f"{DID_CHANGE} change seq {seq} comes after seq {previous}: changes must arrive once each, "
                    "in seq order"
                )
            previous = seq
        self.last_seq = previous


class Session:
    """A transcript being played: its server processes, the database they use, and what was captured so far."""

    def __init__(self, transcript, command, database, timeout, checker, allow_additions, sqlite3_command="sqlite3"):
        self.transcript = transcript
        self.command = [*command, "--db", database.argument]
        self.database = database.path
        self.default_timeout = transcript.timeout or timeout
        self.checker = checker
        self.allow_additions = allow_additions
        self.sqlite3_command = sqlite3_command
        self.captures = {}
        self.lock = None
        self.step = {}
        self.peers = {FIRST: Peer(FIRST, self.command, transcript.args, transcript.framing)}

    @property
    def server(self):
        """The first server's process."""
        return self.peers[FIRST].process

    def peer(self, step):
        name = step.get("server", FIRST)
        if name not in self.peers:
            raise TranscriptError(f'the {name} server is not running: start it with "spawnSecond"')
        return self.peers[name]

    # Steps.

    def run(self, step):
        self.step = step
        timeout = step.get("timeout", self.default_timeout)
        self._act(step, timeout)
        peer = self.peer(step) if any(key in step for key in _PEER_EXPECTATIONS) else None
        if "expect" in step:
            self._expect_in_order(peer, step["expect"], timeout)
        if "expectAnyOrder" in step:
            self._expect_any_order(peer, step["expectAnyOrder"], timeout)
        if "expectChanges" in step:
            self._expect_changes(peer, step["expectChanges"], timeout)
        if "expectSilence" in step:
            self._expect_silence(peer, step["expectSilence"])
        if "expectExit" in step:
            self._expect_exit(peer, step["expectExit"], timeout)

    def _act(self, step, timeout):
        if "spawnSecond" in step:
            self._spawn_second(step["spawnSecond"])
            return
        if "lockDatabase" in step:
            self._lock_database(timeout)
            return
        if "unlockDatabase" in step:
            self._unlock_database()
            return
        if "sqlite3Exec" in step:
            self._sqlite3_exec(step["sqlite3Exec"], timeout)
            return
        if "sleep" in step:
            time.sleep(step["sleep"])
            return
        if not any(key in step for key in ("send", "sendAll", "sendRaw", "closeStdin", "restart")):
            return
        peer = self.peer(step)
        split_at = step.get("splitAt", ())
        if "send" in step:
            message = resolve(step["send"], self.captures)
            peer.requests.sent(message)
            peer.process.write(frame(encode_json(message), peer.framing), split_at)
        elif "sendAll" in step:
            messages = resolve(step["sendAll"], self.captures)
            for message in messages:
                peer.requests.sent(message)
            peer.process.write(b"".join(frame(encode_json(message), peer.framing) for message in messages), split_at)
        elif "sendRaw" in step:
            peer.process.write(raw_bytes(step["sendRaw"], self.captures), split_at)
        elif "closeStdin" in step:
            peer.process.close_input()
        elif "restart" in step:
            self._stop(peer, timeout)
            peer.process.kill()
            if isinstance(step["restart"], dict) and "args" in step["restart"]:
                peer.args = step["restart"]["args"]
            peer.start()

    def _spawn_second(self, spec):
        if SECOND in self.peers:
            raise TranscriptError("the second server is running already")
        args = spec["args"] if isinstance(spec, dict) and "args" in spec else self.transcript.args
        self.peers[SECOND] = Peer(SECOND, self.command, args, self.transcript.framing)

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

    def _sqlite3_exec(self, sql, timeout):
        """Runs the `sqlite3` command-line shell on the database: a writer that is not Taskline."""
        if isinstance(sql, list):
            sql = "\n".join(sql)
        sql = resolve(sql, self.captures)
        program = shutil.which(self.sqlite3_command)
        if program is None:
            raise ServerFailure(f"sqlite3Exec needs the sqlite3 command-line shell; {self.sqlite3_command!r} not found")
        if not self.database.exists():
            raise ServerFailure("sqlite3Exec: the server has not created the database yet")
        busy_ms = int(timeout * 1000)
        try:
            result = subprocess.run(
                [program, "-bail", "-cmd", f".timeout {busy_ms}", str(self.database)],
                input=sql,
                capture_output=True,
                text=True,
                timeout=timeout + 5,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise ServerFailure(f"sqlite3 did not finish within {timeout + 5:g}s") from None
        if result.returncode != 0:
            raise ServerFailure(f"sqlite3 exited with {result.returncode}: {result.stderr.strip()[:300]}")

    # Expectations.

    def _check_schema(self, peer, message):
        if not self.checker:
            return
        problem = self.checker.message_problem(message)
        responses = (
            [(f"$[{index}]", member) for index, member in enumerate(message)]
            if isinstance(message, list)
            else [("$", message)]
        )
        for path, response in responses:
            request = peer.requests.answered(response)
            if problem is None and request:
                problem = self._request_problem(request, response, path)
        if problem:
            raise ServerFailure(f"{problem} in {show(message)}")

    def _request_problem(self, request, response, path):
        """The schema and the server must agree on a request: what the server carries out, the schema accepts; what
        it refuses as invalid params, the schema refuses too, unless the step says no schema can tell (a cursor of
        another sort, a `since` past the newest change)."""
        if "result" in response:
            refused = self.checker.request_problem(request)
            if refused:
                return f"the server carried out a request the schema refuses ({refused})"
            return self.checker.result_problem(request["method"], response["result"], f"{path}.result")
        error = response.get("error")
        if (
            isinstance(error, dict)
            and error.get("code") == INVALID_PARAMS
            and not self.step.get("schemaCannotTell")
            and self.checker.request_problem(request) is None
        ):
            return f"the server refused with {INVALID_PARAMS} a request the schema accepts: {show(request)}"
        return None

    def _accept(self, peer, message):
        """Checks that hold for every message read: the schema, and the order of notified changes."""
        self._check_schema(peer, message)
        peer.check_notification_order(message)

    def _expect_in_order(self, peer, pattern, timeout):
        message = peer.process.next_message(timeout, f"a message like {show(pattern)}")
        mismatch = Matcher(self.captures, self.allow_additions).match(pattern, message)
        if mismatch:
            raise ServerFailure(str(mismatch))
        self._accept(peer, message)

    def _expect_any_order(self, peer, patterns, timeout):
        messages = [
            peer.process.next_message(timeout, f"message {index + 1} of {len(patterns)} (any order)")
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
            self._accept(peer, message)

    def _expect_changes(self, peer, pattern, timeout):
        """Reads tasks/didChange notifications until they carried N changes; matches the N changes as one array."""
        if is_constructor(pattern) and "$ref" not in pattern:
            pattern = construct(pattern, self.captures)
        if isinstance(pattern, list):
            count = len(pattern)
        elif isinstance(pattern, dict) and isinstance(pattern.get("$length"), int):
            count = pattern["$length"]
        else:
            raise TranscriptError('expectChanges takes an array of change patterns, or a matcher with "$length"')
        changes = []
        while len(changes) < count:
            message = peer.process.next_message(timeout, f"{DID_CHANGE} carrying change {len(changes) + 1} of {count}")
            if not is_did_change(message):
                raise ServerFailure(f"expected only {DID_CHANGE} notifications, got {show(message)}")
            self._accept(peer, message)
            carried = message.get("params", {}).get("changes", [])
            changes.extend(carried)
            if len(changes) > count:
                raise ServerFailure(
                    f"expected {count} changes, but the notifications carried {len(changes)}: {show(message)}"
                )
        mismatch = Matcher(self.captures, self.allow_additions).match(pattern, changes, "$changes")
        if mismatch:
            raise ServerFailure(str(mismatch))

    def _expect_silence(self, peer, seconds):
        message = peer.process.peek_unread(seconds)
        if message is not None:
            raise ServerFailure(f"expected no message within {seconds:g}s, got {show(message)}")

    @staticmethod
    def _refuse_unread(peer, when):
        message = peer.process.peek_unread(0)
        if message is not None:
            raise ServerFailure(f"unexpected message {when}: {show(message)}")

    def _expect_exit(self, peer, code, timeout):
        actual = peer.process.wait_exit(timeout)
        self._refuse_unread(peer, "before the exit")
        if actual != code:
            raise ServerFailure(f"expected exit code {code}, got {actual}")

    # Ending.

    def _stop(self, peer, timeout):
        peer.process.close_input()
        peer.process.wait_exit(timeout)
        self._refuse_unread(peer, "before the server stopped")

    def finish(self):
        for name, peer in self.peers.items():
            try:
                self._stop(peer, self.default_timeout)
            except ServerFailure as failure:
                raise ServerFailure(f"{name} server: {failure}" if name != FIRST else str(failure)) from None

    def stderr_tail(self, step=None):
        name = (step or {}).get("server", FIRST)
        peer = self.peers.get(name) or self.peers[FIRST]
        return peer.process.stderr_tail

    def close(self):
        self._unlock_database()
        for peer in self.peers.values():
            peer.process.kill()


_PEER_EXPECTATIONS = ("expect", "expectAnyOrder", "expectChanges", "expectSilence", "expectExit")


def play(
    transcript,
    command,
    timeout,
    checker=None,
    allow_additions=False,
    sqlite3_command="sqlite3",
    fresh_database=sqlite_file,
):
    """Plays `transcript` against a fresh server on a fresh database (`fresh_database()`, a
    context manager); the outcome's failure is one line, or None."""
    with fresh_database() as database:
        try:
            session = Session(transcript, command, database, timeout, checker, allow_additions, sqlite3_command)
        except ServerFailure as failure:
            return Outcome(str(failure), "")
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
                        return Outcome(f"{where}: {failure}", session.stderr_tail(step))
            try:
                session.finish()
            except ServerFailure as failure:
                return Outcome(f"after the last step: {failure}", session.stderr_tail())
            return Outcome(None, session.stderr_tail())
        finally:
            session.close()
