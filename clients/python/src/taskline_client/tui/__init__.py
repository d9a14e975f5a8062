"""`taskline-tui`: a curses front-end for a Taskline database."""

from __future__ import annotations

import argparse
import curses
import sys
from collections.abc import Sequence

from ..client import Client
from ..errors import TasklineError
from .app import TaskListApp
from .wakeup import CHANGED, Wakeup


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="taskline-tui", description="List and edit Taskline tasks.")
    parser.add_argument("--db", help="the database file (default: the server's default)")
    parser.add_argument("--server", help="the taskline executable (default: $TASKLINE_SERVER, then PATH)")
    arguments = parser.parse_args(argv)
    try:
        with Client(arguments.db, server=arguments.server) as client, Wakeup() as wakeup:
            client.on_change(lambda change: wakeup.notify(CHANGED))
            curses.wrapper(_run, client, wakeup)
    except TasklineError as error:
        print(f"taskline-tui: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130  # the shell's code for Ctrl-C
    return 0


def _run(screen: curses.window, client: Client, wakeup: Wakeup) -> None:
    curses.set_escdelay(25)
    TaskListApp(screen, client, wakeup).run()
