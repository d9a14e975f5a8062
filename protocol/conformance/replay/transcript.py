"""Loading a transcript file and checking that it is well-formed (format: ../transcript-format.md)."""

import json
from dataclasses import dataclass
from pathlib import Path

from .framing import FRAMINGS
from .values import TranscriptError

ACTIONS = (
    "restart",
    "spawnSecond",
    "lockDatabase",
    "unlockDatabase",
    "sqlite3Exec",
    "send",
    "sendAll",
    "sendRaw",
    "closeStdin",
    "sleep",
)
EXPECTATIONS = ("expect", "expectAnyOrder", "expectChanges", "expectSilence", "expectExit")
MODIFIERS = ("name", "server", "splitAt", "timeout", "repeat", "schemaCannotTell")
FIRST, SECOND = "first", "second"
# What `server` directs to one of the two servers; the other actions concern the database or the runner.
_SERVER_ACTIONS = {"restart", "send", "sendAll", "sendRaw", "closeStdin"}
_TOP_LEVEL = {"description", "framing", "args", "timeout", "tasklineSpecific", "steps"}


@dataclass
class Transcript:
    path: Path
    description: str
    framing: str
    args: list
    timeout: float | None
    steps: list
    #: What the transcript holds a server to beyond protocol/README.md (`--portable` skips it), or None.
    taskline_specific: str | None = None


def step_label(index, step):
    name = step.get("name") or next(key for key in (*ACTIONS, *EXPECTATIONS) if key in step)
    return f"step {index} ({name})"


def _check_step(index, step):
    if not isinstance(step, dict):
        raise TranscriptError(f"step {index} is not an object")
    unknown = set(step) - {*ACTIONS, *EXPECTATIONS, *MODIFIERS}
    if unknown:
        raise TranscriptError(f"step {index} has unknown members {sorted(unknown)}")
    actions = [key for key in ACTIONS if key in step]
    if len(actions) > 1:
        raise TranscriptError(f"step {index} has more than one action: {actions}")
    if not actions and not any(key in step for key in EXPECTATIONS):
        raise TranscriptError(f"step {index} neither acts nor expects anything")
    if "splitAt" in step and not set(actions) & {"send", "sendAll", "sendRaw"}:
        raise TranscriptError(f"step {index}: splitAt needs send, sendAll or sendRaw")
    if "expectAnyOrder" in step and not isinstance(step["expectAnyOrder"], list):
        raise TranscriptError(f"step {index}: expectAnyOrder takes an array of patterns")
    if "sendAll" in step and not (isinstance(step["sendAll"], list) or _is_array_constructor(step["sendAll"])):
        raise TranscriptError(f'step {index}: sendAll takes an array of messages, or {{"$array": ..., "times": n}}')
    if "repeat" in step and (not isinstance(step["repeat"], int) or step["repeat"] < 1):
        raise TranscriptError(f"step {index}: repeat takes a count >= 1")
    if "server" in step:
        if step["server"] not in (FIRST, SECOND):
            raise TranscriptError(f'step {index}: server is "{FIRST}" or "{SECOND}"')
        if not set(actions) & _SERVER_ACTIONS and not any(key in step for key in EXPECTATIONS):
            raise TranscriptError(f"step {index}: server needs one of {sorted(_SERVER_ACTIONS)} or an expectation")
    for key in ("restart", "spawnSecond"):
        if key in step and not _is_start_spec(step[key]):
            raise TranscriptError(f'step {index}: {key} takes true or {{"args": [strings]}}')
    if "sqlite3Exec" in step and not _is_sql(step["sqlite3Exec"]):
        raise TranscriptError(f"step {index}: sqlite3Exec takes SQL text, or an array of lines")


def _is_array_constructor(value):
    return isinstance(value, dict) and "$array" in value


def _is_start_spec(value):
    if value is True:
        return True
    return (
        isinstance(value, dict)
        and set(value) == {"args"}
        and isinstance(value["args"], list)
        and all(isinstance(arg, str) for arg in value["args"])
    )


def _is_sql(value):
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(line, str) for line in value))


def load(path):
    path = Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise TranscriptError(f"cannot read: {error}") from None
    if not isinstance(document, dict) or set(document) - _TOP_LEVEL or "steps" not in document:
        raise TranscriptError(f"a transcript is an object with members {sorted(_TOP_LEVEL)}, 'steps' required")
    framing = document.get("framing", "ndjson")
    if framing not in FRAMINGS:
        raise TranscriptError(f"framing must be one of {FRAMINGS}")
    args = document.get("args", [])
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        raise TranscriptError("args must be an array of strings")
    for index, step in enumerate(document["steps"], 1):
        _check_step(index, step)
    specific = document.get("tasklineSpecific")
    if specific is not None and (not isinstance(specific, str) or not specific):
        raise TranscriptError("tasklineSpecific says, as a non-empty string, what the transcript needs beyond the spec")
    if specific is None and any("sqlite3Exec" in step for step in document["steps"]):
        raise TranscriptError("sqlite3Exec writes Taskline's own tables, which the spec does not define: say so in tasklineSpecific")
    return Transcript(
        path=path,
        description=document.get("description", ""),
        framing=framing,
        args=args,
        timeout=document.get("timeout"),
        steps=document["steps"],
        taskline_specific=specific,
    )
