"""run.py against the real server (every transcript passes) and against broken ones (it fails, and says where)."""

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]
RUNNER = HERE / "run.py"
TRANSCRIPTS = HERE / "transcripts"
BROKEN_SERVER = HERE / "selftest" / "broken_server.py"
SERVER = Path(os.environ.get("TASKLINE_SERVER", REPOSITORY / ".build" / "debug" / "taskline"))


@pytest.fixture(scope="module")
def server():
    if not SERVER.is_file():
        pytest.fail(f"no server binary at {SERVER}: build it or set TASKLINE_SERVER")
    return str(SERVER)


def run(*arguments, env=None):
    return subprocess.run(
        [sys.executable, str(RUNNER), *map(str, arguments)],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


def summary(result):
    return result.stdout.strip().splitlines()[-1]


def test_every_transcript_passes_against_the_real_server(server):
    result = run("--require-schema", "--", server)
    count = len(list(TRANSCRIPTS.glob("*.json")))
    assert summary(result) == f"{count} passed, 0 failed", result.stdout + result.stderr
    assert result.returncode == 0


def test_a_broken_answer_fails_naming_transcript_step_and_difference(server):
    result = run("--require-schema", TRANSCRIPTS / "tasks-get.json", "--", sys.executable, BROKEN_SERVER, server)
    assert result.returncode == 1
    failure, last = result.stdout.strip().splitlines()
    assert failure.startswith('FAIL tasks-get.json step 4 (a missing task is 1001): $: missing member "error"')
    assert '"result": null' in failure
    assert last == "0 passed, 1 failed"


def test_the_schema_catches_what_a_lenient_pattern_lets_through(server, tmp_path):
    transcript = tmp_path / "lenient.json"
    transcript.write_text(
        """{"description": "accepts any answer to tasks/get", "steps": [
             {"send": {"jsonrpc": "2.0", "id": 1, "method": "initialize"}, "expect": {"$match": "any"}},
             {"send": {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": "missing"}}, "expect": {"$match": "any"}}]}"""
    )
    result = run("--require-schema", transcript, "--", sys.executable, BROKEN_SERVER, server)
    assert result.returncode == 1
    assert re.search(
        r"FAIL lenient\.json step 2 \(send\): schema tasksGetResult: \$\.result: None is not of type 'object'",
        result.stdout,
    )


def test_a_missing_message_times_out_instead_of_hanging(server, tmp_path):
    transcript = tmp_path / "waits.json"
    transcript.write_text(
        """{"description": "a notification never gets a response", "steps": [
             {"send": {"jsonrpc": "2.0", "id": 1, "method": "initialize"}, "expect": {"$match": "object"}},
             {"name": "wait in vain", "send": {"jsonrpc": "2.0", "method": "initialized"}, "expect": {"$match": "any"}}]}"""
    )
    started = time.monotonic()
    result = run("--timeout", "1", transcript, "--", server)
    assert time.monotonic() - started < 30
    assert result.returncode == 1
    assert "FAIL waits.json step 2 (wait in vain): timed out after 1s waiting for" in result.stdout


def test_expect_any_order_takes_messages_in_any_order_and_says_which_pattern_found_none(server, tmp_path):
    def transcript(code):
        return f"""{{"description": "two answers, expected in the opposite order", "steps": [
             {{"send": {{"jsonrpc": "2.0", "id": 1, "method": "initialize"}}, "expect": {{"$match": "object"}}}},
             {{"sendAll": [{{"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {{"id": "x"}}}},
                          {{"jsonrpc": "2.0", "id": 3, "method": "tasks/fetch"}}],
              "expectAnyOrder": [{{"$includes": {{"id": 3}}}}, {{"$includes": {{"id": 2, "error": {{"$includes": {{"code": {code}}}}}}}}}]}}]}}"""

    (tmp_path / "either.json").write_text(transcript(1001))
    (tmp_path / "neither.json").write_text(transcript(1003))
    result = run(tmp_path, "--", server)
    assert result.stdout.splitlines() == [
        "FAIL neither.json step 2 (sendAll): no message left matches pattern 2 of 2; first try: $.error.code: expected 1003, got 1001",
        "1 passed, 1 failed",
    ]


def test_require_schema_without_jsonschema_is_a_usage_error(server, tmp_path):
    (tmp_path / "jsonschema.py").write_text("raise ImportError('hidden for this test')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    result = run("--require-schema", "--", server, env=env)
    assert result.returncode == 2
    assert "jsonschema" in result.stderr


def test_a_repeated_notification_fails_the_seq_order_check(server, tmp_path):
    transcript = tmp_path / "twice.json"
    transcript.write_text(
        """{"description": "a notification the proxy writes twice", "steps": [
             {"send": {"jsonrpc": "2.0", "id": 1, "method": "initialize"}, "expect": {"$match": "object"}},
             {"send": {"jsonrpc": "2.0", "id": 2, "method": "tasks/create", "params": {"title": "t"}}, "expect": {"$includes": {"id": 2}}},
             {"name": "once", "expect": {"$includes": {"method": "tasks/didChange"}}},
             {"name": "twice", "expect": {"$includes": {"method": "tasks/didChange"}}}]}"""
    )
    result = run(transcript, "--", sys.executable, BROKEN_SERVER, "--repeat-notifications", server)
    assert result.returncode == 1
    assert re.search(
        r"FAIL twice\.json step 4 \(twice\): tasks/didChange change seq \d+ comes after seq \d+", result.stdout
    )


def test_expect_changes_counts_changes_across_notifications_and_refuses_other_messages(server, tmp_path):
    def transcript(expectation):
        return f"""{{"description": "two creations, notified separately", "steps": [
             {{"send": {{"jsonrpc": "2.0", "id": 1, "method": "initialize"}}, "expect": {{"$match": "object"}}}},
             {{"send": {{"jsonrpc": "2.0", "method": "tasks/create", "params": {{"id": "a", "title": "a"}}}}}},
             {{"send": {{"jsonrpc": "2.0", "method": "tasks/create", "params": {{"id": "b", "title": "b"}}}}}},
             {{"name": "changes", "expectChanges": {expectation}}}]}}"""

    (tmp_path / "two.json").write_text(transcript('[{"$includes": {"id": "a"}}, {"$includes": {"id": "b"}}]'))
    (tmp_path / "wrong.json").write_text(transcript('[{"$includes": {"id": "b"}}, {"$includes": {"id": "a"}}]'))
    (tmp_path / "counted.json").write_text(transcript('{"$length": 2, "$each": {"$includes": {"kind": "created"}}}'))
    (tmp_path / "uncounted.json").write_text(transcript('{"$each": {"$includes": {"kind": "created"}}}'))
    (tmp_path / "response.json").write_text(
        transcript('[{"$includes": {"id": "a"}}, {"$includes": {"id": "b"}}]').replace(
            '"method": "tasks/create", "params": {"id": "b"', '"id": 2, "method": "tasks/create", "params": {"id": "b"'
        )
    )
    result = run(tmp_path, "--", server)
    lines = result.stdout.splitlines()
    assert lines[-1] == "2 passed, 3 failed", result.stdout
    assert any(line.startswith("FAIL response.json step 4 (changes): expected only tasks/didChange") for line in lines)
    assert any(line.startswith("FAIL uncounted.json step 4 (changes): expectChanges takes an array") for line in lines)
    assert any(
        line.startswith('FAIL wrong.json step 4 (changes): $changes[0].id: expected "b", got "a"') for line in lines
    )


def test_a_second_server_and_the_sqlite3_shell_write_the_same_database(server, tmp_path):
    if not shutil.which("sqlite3"):
        pytest.skip("no sqlite3 command-line shell")
    transcript = tmp_path / "elsewhere.json"
    transcript.write_text(
        """{"description": "changes made elsewhere", "tasklineSpecific": "the sqlite3 shell writes Taskline's table", "steps": [
             {"send": {"jsonrpc": "2.0", "id": 1, "method": "initialize"}, "expect": {"$match": "object"}},
             {"spawnSecond": {"args": ["--log-level", "error"]}},
             {"server": "second", "send": {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"initializationOptions": {"notifications": false}}}, "expect": {"$match": "object"}},
             {"server": "second", "send": {"jsonrpc": "2.0", "id": 2, "method": "tasks/create", "params": {"id": "b", "title": "b"}}, "expect": {"$includes": {"id": 2}}},
             {"expectChanges": [{"$includes": {"kind": "created", "id": "b"}}]},
             {"sqlite3Exec": "DELETE FROM task WHERE id = 'b';"},
             {"expectChanges": [{"$includes": {"kind": "deleted", "id": "b"}}]},
             {"name": "bad SQL", "sqlite3Exec": "DELETE FROM nowhere;"}]}"""
    )
    result = run(transcript, "--", server)
    assert result.stdout.splitlines()[0].startswith("FAIL elsewhere.json step 8 (bad SQL): sqlite3 exited with 1"), (
        result.stdout
    )


@pytest.mark.parametrize(
    "step, complaint",
    [
        ('{"server": "third", "expectSilence": 0}', 'server is "first" or "second"'),
        ('{"server": "second", "sleep": 0}', "server needs one of"),
        ('{"spawnSecond": {"args": "--x"}}', 'spawnSecond takes true or {"args": [strings]}'),
        ('{"restart": false}', 'restart takes true or {"args": [strings]}'),
        ('{"sqlite3Exec": 42}', "sqlite3Exec takes SQL text"),
        ('{"sendAll": {"jsonrpc": "2.0"}}', "sendAll takes an array of messages"),
    ],
)
def test_malformed_steps_are_reported(tmp_path, step, complaint):
    transcript = tmp_path / "bad.json"
    transcript.write_text(f'{{"steps": [{step}]}}')
    result = run(transcript, "--", sys.executable, "-c", "pass")
    assert result.returncode == 1
    assert "FAIL bad.json malformed transcript: step 1" in result.stdout and complaint in result.stdout, result.stdout


def test_a_step_for_a_second_server_that_was_never_started_is_an_error(server, tmp_path):
    transcript = tmp_path / "alone.json"
    transcript.write_text(
        '{"steps": [{"name": "where", "server": "second", "send": {"jsonrpc": "2.0", "method": "exit"}}]}'
    )
    result = run(transcript, "--", server)
    assert (
        'FAIL alone.json step 1 (where): the second server is not running: start it with "spawnSecond"' in result.stdout
    )


def test_skip_leaves_out_matching_transcripts_and_counts_them(server):
    result = run("--require-schema", "--skip", "tasks-get*", "--skip", "framing-*", "--", server)
    names = [path.name for path in TRANSCRIPTS.glob("*.json")]
    left_out = [name for name in names if name.startswith(("tasks-get", "framing-"))]
    assert left_out, "the patterns match no transcript"
    assert summary(result) == f"{len(names) - len(left_out)} passed, 0 failed, {len(left_out)} skipped"
    assert result.returncode == 0


def test_portable_leaves_out_the_transcripts_marked_taskline_specific(server, tmp_path):
    initialize = '{"send": {"jsonrpc": "2.0", "id": 1, "method": "initialize"}, "expect": {"$match": "object"}}'
    (tmp_path / "anyone.json").write_text(f'{{"steps": [{initialize}]}}')
    (tmp_path / "ours.json").write_text(f'{{"tasklineSpecific": "our own way", "steps": [{initialize}]}}')
    result = run("--portable", "-v", tmp_path, "--", server)
    assert result.stdout.splitlines() == ["ok   anyone.json", "skip ours.json: --portable: our own way", "1 passed, 0 failed, 1 skipped"]
    assert summary(run(tmp_path, "--", server)) == "2 passed, 0 failed"


def test_a_transcript_that_writes_with_sqlite3_must_say_it_is_taskline_specific(tmp_path):
    transcript = tmp_path / "unmarked.json"
    transcript.write_text('{"steps": [{"sqlite3Exec": "DELETE FROM task;"}]}')
    result = run(transcript, "--", sys.executable, "-c", "pass")
    assert "FAIL unmarked.json malformed transcript: sqlite3Exec writes Taskline's own tables" in result.stdout


def test_the_portable_set_leaves_out_every_transcript_that_writes_with_sqlite3():
    from replay.transcript import load

    transcripts = [load(path) for path in TRANSCRIPTS.glob("*.json")]
    marked = {t.path.name for t in transcripts if t.taskline_specific}
    assert {"cross-process-sqlite3.json", "tasks-remind-sqlite3.json", "notifications-group-commit.json"} <= marked
    assert all(t.path.name in marked for t in transcripts if any("sqlite3Exec" in step for step in t.steps))


def test_on_postgresql_transcripts_that_need_the_sqlite_file_are_skipped(tmp_path):
    from replay.databases import sqlite_only
    from replay.transcript import load

    reasons = {path.name: sqlite_only(load(path)) for path in TRANSCRIPTS.glob("*.json")}
    assert reasons["cross-process-sqlite3.json"] == "its sqlite3Exec step works on the SQLite file"
    assert reasons["storage-busy.json"] is not None
    assert reasons["tasks-get.json"] is None
    spawned = tmp_path / "spawned.json"
    spawned.write_text(
        '{"description": "d", "steps": [{"spawnSecond": {"args": ["--durability", "full"]}}]}', encoding="utf-8"
    )
    assert sqlite_only(load(spawned)) == "its server takes --durability, a SQLite option"
