"""Loading a transcript file and checking that it is well-formed (format: ../README.md)."""

import json
from dataclasses import dataclass
from pathlib import Path

from .framing import FRAMINGS
from .values import TranscriptError

ACTIONS = ("restart", "lockDatabase", "unlockDatabase", "send", "sendAll", "sendRaw", "closeStdin", "sleep")
EXPECTATIONS = ("expect", "expectAnyOrder", "expectSilence", "expectExit")
MODIFIERS = ("name", "splitAt", "timeout", "repeat")
_TOP_LEVEL = {"description", "framing", "args", "timeout", "steps"}


@dataclass
class Transcript:
    path: Path
    description: str
    framing: str
    args: list
    timeout: float | None
    steps: list


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
    if "sendAll" in step and not isinstance(step["sendAll"], list):
        raise TranscriptError(f"step {index}: sendAll takes an array of messages")
    if "repeat" in step and (not isinstance(step["repeat"], int) or step["repeat"] < 1):
        raise TranscriptError(f"step {index}: repeat takes a count >= 1")


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
    return Transcript(
        path=path,
        description=document.get("description", ""),
        framing=framing,
        args=args,
        timeout=document.get("timeout"),
        steps=document["steps"],
    )
