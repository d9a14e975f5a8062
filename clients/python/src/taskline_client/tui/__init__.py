"""`taskline-tui`: a curses front-end for a Taskline database."""

from __future__ import annotations

import argparse
import curses
import queue
import sys
from collections.abc import Sequence
from typing import Any, Callable

from ..client import Client
from ..errors import TasklineError
from .app import Reminders, TaskListApp
from .wakeup import CHANGED, Wakeup


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="taskline-tui", description="List and edit Taskline tasks.")
    parser.add_argument("--db", help="the database file (default: the server's default)")
    parser.add_argument("--server", help="the taskline executable (default: $TASKLINE_SERVER, then PATH)")
    arguments = parser.parse_args(argv)

    reminders: Reminders = queue.SimpleQueue()

    try:
        with Wakeup() as wakeup:

            def take_reminders(message: Any) -> None:
                # On the client's reader thread: hand the tasks to the screen's loop.
                if isinstance(message, dict) and message.get("method") == "tasks/remind":
                    params = message.get("params")
                    reminders.put(params.get("tasks", []) if isinstance(params, dict) else [])
                    wakeup.notify(CHANGED)

            def connect() -> Client:
                return Client(arguments.db, server=arguments.server, reminders=True, message_observer=take_reminders)

            client = connect()
            try:
                curses.wrapper(_run, client, connect, wakeup, reminders)
            finally:
                client.close()  # the app closes the one it has when it ends; this one may have been replaced
    except TasklineError as error:
        print(f"taskline-tui: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130  # the shell's code for Ctrl-C
    return 0


def _run(
    screen: curses.window, client: Client, connect: Callable[[], Client], wakeup: Wakeup, reminders: Reminders
) -> None:
    curses.set_escdelay(25)
    app = TaskListApp(screen, client, connect, wakeup, reminders)
    try:
        app.run()
    finally:
        app.close()
