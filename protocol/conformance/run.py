#!/usr/bin/env python3
"""Replays Taskline conformance transcripts against a server.

    python3 protocol/conformance/run.py [options] [TRANSCRIPT...] -- COMMAND...

Each transcript gets a fresh server: COMMAND plus `--db <fresh temporary file>`
(with --postgres, `--db postgresql:///<fresh database>`) plus the transcript's own
`args`. Prints one line per failing transcript, then `N passed, N failed` (and
`, N skipped` when transcripts were left out: --skip, --portable, or on PostgreSQL those that need
a SQLite file).
The transcript format is described in transcript-format.md.
"""

import argparse
import sys
from fnmatch import fnmatch
from pathlib import Path

from replay.databases import PostgresDatabases, sqlite_file, sqlite_only
from replay.player import Outcome, play
from replay.schema import SchemaChecker, jsonschema_available
from replay.transcript import load
from replay.values import TranscriptError

TRANSCRIPTS = Path(__file__).resolve().parent / "transcripts"


USAGE_ERROR = 2


def usage_error(message):
    print(f"run.py: {message}", file=sys.stderr)
    sys.exit(USAGE_ERROR)


def parse_arguments(argv):
    if "--" not in argv:
        usage_error("usage: run.py [options] [TRANSCRIPT...] -- COMMAND... (the server command follows --)")
    split = argv.index("--")
    command = argv[split + 1 :]
    if not command:
        usage_error("no server command after --")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "transcripts", nargs="*", type=Path, help="transcript files or folders (default: all in transcripts/)"
    )
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds a step may wait for the server (default 5)")
    parser.add_argument("--require-schema", action="store_true", help="fail if jsonschema cannot be imported")
    parser.add_argument(
        "--allow-additions",
        action="store_true",
        help="let objects the server writes have members a pattern does not list (Versioning allows them)",
    )
    parser.add_argument(
        "--sqlite3",
        default="sqlite3",
        metavar="PROGRAM",
        help="the sqlite3 command-line shell that sqlite3Exec steps run (default: sqlite3 on PATH)",
    )
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="PATTERN",
        help="leave out transcripts whose file names match PATTERN (shell wildcards; may be repeated)",
    )
    parser.add_argument(
        "--portable",
        action="store_true",
        help="run only the transcripts any implementation of the spec can pass: leave out those marked tasklineSpecific",
    )
    parser.add_argument(
        "--postgres",
        metavar="CONNINFO",
        help="serve each transcript from a new PostgreSQL database, made through this libpq key=value connection "
        "string (a role that may create databases); transcripts that need the SQLite file are skipped",
    )
    parser.add_argument(
        "--postgres-role",
        default="taskline",
        metavar="ROLE",
        help="the role that owns each new database and that the server connects as (default taskline)",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="print passing transcripts and the server's stderr on failure"
    )
    options = parser.parse_args(argv[:split])
    options.command = command
    return options


def transcript_paths(arguments):
    paths = []
    for argument in arguments or [TRANSCRIPTS]:
        paths.extend(sorted(argument.glob("*.json")) if argument.is_dir() else [argument])
    return paths


def skip_reason(transcript, options):
    """Why the options leave `transcript` out, or None."""
    skipped_by = next((pattern for pattern in options.skip if fnmatch(transcript.path.name, pattern)), None)
    if skipped_by:
        return f"--skip {skipped_by}"
    if options.portable and transcript.taskline_specific:
        return f"--portable: {transcript.taskline_specific}"
    return sqlite_only(transcript) if options.postgres else None


def main(argv):
    options = parse_arguments(argv)
    if jsonschema_available():
        checker = SchemaChecker()
    elif options.require_schema:
        usage_error("--require-schema given but the jsonschema package cannot be imported")
    else:
        checker = None
        print("note: jsonschema is not installed; server messages are not checked against the schema", file=sys.stderr)
    fresh_database = sqlite_file
    if options.postgres:
        try:
            fresh_database = PostgresDatabases(options.postgres, options.postgres_role).fresh
        except RuntimeError as error:
            usage_error(str(error))
    passed = failed = skipped = 0
    for path in transcript_paths(options.transcripts):
        try:
            transcript = load(path)
            reason = skip_reason(transcript, options)
            if reason:
                skipped += 1
                if options.verbose:
                    print(f"skip {path.name}: {reason}", flush=True)
                continue
            outcome = play(
                transcript,
                options.command,
                options.timeout,
                checker,
                options.allow_additions,
                options.sqlite3,
                fresh_database,
            )
        except TranscriptError as error:
            outcome = Outcome(f"malformed transcript: {error}", "")
        if outcome.failure:
            failed += 1
            print(f"FAIL {path.name} {outcome.failure}", flush=True)
            if options.verbose and outcome.server_stderr:
                print(
                    "     server stderr (tail): " + outcome.server_stderr.strip().replace("\n", "\n     "), flush=True
                )
        else:
            passed += 1
            if options.verbose:
                print(f"ok   {path.name}", flush=True)
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
