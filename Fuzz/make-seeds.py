#!/usr/bin/env python3
"""Writes the fuzzer's seed corpus from the conformance transcripts.

Usage: Fuzz/make-seeds.py OUTPUT_FOLDER

Each seed is what a transcript's client writes to the first server's stdin, prefixed
with the harness's configuration byte (see Fuzz/FuzzHarness): the whole conversation up
to its first restart, the same read in 7-byte chunks, and `initialize` followed by each
single step. Values the transcript would capture from the server's answers are replaced
by a fixed id, which is good enough for a starting point.
"""

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "protocol" / "conformance"))

from replay.framing import encode_json, frame  # noqa: E402
from replay.player import raw_bytes  # noqa: E402
from replay.values import resolve  # noqa: E402

PLACEHOLDER = "0b3c5d2e-8f4e-4a57-9d3c-2b1f0e6a7c11"
# Configuration byte: bits 0-1 framing, 2-4 read size, 5-6 size limit.
FRAMING_BITS = {None: 0, "lsp": 1, "ndjson": 2}
LIMIT_BITS = {64: 1, 256: 2, 300: 2, 4096: 3}
CHUNK_7_BITS = 4 << 2


class AnyCapture(dict):
    """Captures for a run with no server: every name is known and holds the placeholder."""

    def __contains__(self, name):
        return True

    def __missing__(self, name):
        return PLACEHOLDER


def configuration(args):
    byte = 0
    for flag, value in zip(args, args[1:]):
        if flag == "--framing":
            byte |= FRAMING_BITS.get(value, 0)
        if flag == "--max-message-bytes" and int(value) in LIMIT_BITS:
            byte |= LIMIT_BITS[int(value)] << 5
    return byte


def step_bytes(step, framing, captures):
    """What one step writes to the first server, or None when it writes nothing there."""
    if step.get("server", "first") != "first":
        return None
    if "send" in step:
        return frame(encode_json(resolve(step["send"], captures)), framing)
    if "sendAll" in step:
        return b"".join(frame(encode_json(message), framing) for message in resolve(step["sendAll"], captures))
    if "sendRaw" in step:
        return raw_bytes(step["sendRaw"], captures)
    return None


def seeds(transcript):
    framing = transcript.get("framing", "ndjson")
    config = configuration(transcript.get("args", []))
    writes = []
    for step in transcript["steps"]:
        if "restart" in step or "closeStdin" in step:
            break
        for index in range(1, step.get("repeat", 1) + 1):
            data = step_bytes(step, framing, AnyCapture(i=index))
            if data is not None:
                writes.append(data)
    if not writes:
        return
    yield bytes([config]) + b"".join(writes)
    yield bytes([config | CHUNK_7_BITS]) + b"".join(writes)
    for data in writes[1:]:
        yield bytes([config]) + writes[0] + data


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    output = Path(sys.argv[1])
    output.mkdir(parents=True, exist_ok=True)
    count = 0
    for path in sorted((ROOT / "protocol" / "conformance" / "transcripts").glob("*.json")):
        for seed in seeds(json.loads(path.read_text())):
            name = f"{path.stem}-{hashlib.sha1(seed).hexdigest()[:12]}"
            (output / name).write_bytes(seed)
            count += 1
    print(f"{count} seeds in {output}")


if __name__ == "__main__":
    main()
