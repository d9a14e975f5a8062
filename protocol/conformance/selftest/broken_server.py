#!/usr/bin/env python3
"""A deliberately broken Taskline server for the runner's self-test.

    broken_server.py [--repeat-notifications] SERVER [ARGS...]

Runs SERVER with ARGS and relays NDJSON both ways, except that it answers
`tasks/get` for a missing task with `{"result": null}` instead of error 1001.
With --repeat-notifications it also writes every `tasks/didChange` twice, so a
client would get each change two times.
"""

import json
import subprocess
import sys
import threading


def relay_requests(child, get_ids):
    """Copies stdin to the server, noting the ids of tasks/get requests."""
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        for member in message if isinstance(message, list) else [message]:
            if isinstance(member, dict) and member.get("method") == "tasks/get" and "id" in member:
                get_ids.add(json.dumps(member["id"]))
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()


def break_response(response, get_ids):
    error = response.get("error") if isinstance(response, dict) else None
    if error and error.get("code") == 1001 and json.dumps(response.get("id")) in get_ids:
        return {"jsonrpc": "2.0", "id": response["id"], "result": None}
    return response


def main():
    arguments = sys.argv[1:]
    repeat_notifications = arguments[:1] == ["--repeat-notifications"]
    if repeat_notifications:
        arguments = arguments[1:]
    child = subprocess.Popen(arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    get_ids = set()
    threading.Thread(target=relay_requests, args=(child, get_ids), daemon=True).start()
    for line in child.stdout:
        message = json.loads(line)
        if isinstance(message, list):
            message = [break_response(member, get_ids) for member in message]
        else:
            message = break_response(message, get_ids)
        line = json.dumps(message, separators=(",", ":")) + "\n"
        repeat = repeat_notifications and isinstance(message, dict) and message.get("method") == "tasks/didChange"
        sys.stdout.write(line * (2 if repeat else 1))
        sys.stdout.flush()
    sys.exit(child.wait())


if __name__ == "__main__":
    main()
