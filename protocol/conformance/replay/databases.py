"""Where each transcript's fresh database comes from: a file in a temporary folder, or a new
database on a PostgreSQL server."""

import contextlib
import itertools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: Steps that reach into the SQLite file itself: a PostgreSQL run skips their transcripts.
SQLITE_STEPS = ("lockDatabase", "unlockDatabase", "sqlite3Exec")
#: Server options that only a SQLite file has.
SQLITE_OPTIONS = ("--busy-timeout", "--durability")


@dataclass
class Database:
    argument: str
    #: The SQLite file, for the steps that open it; None on PostgreSQL.
    path: Path | None


@contextlib.contextmanager
def sqlite_file():
    with tempfile.TemporaryDirectory(prefix="taskline-conformance-") as folder:
        path = Path(folder) / "tasks.sqlite"
        yield Database(str(path), path)


def sqlite_only(transcript):
    """Why `transcript` can only run against a SQLite file, or None."""
    steps = [key for step in transcript.steps for key in SQLITE_STEPS if key in step]
    if steps:
        return f"its {steps[0]} step works on the SQLite file"
    argument_lists = [transcript.args] + [
        step[key]["args"]
        for step in transcript.steps
        for key in ("spawnSecond", "restart")
        if isinstance(step.get(key), dict) and "args" in step[key]
    ]
    options = [argument for arguments in argument_lists for argument in arguments if argument in SQLITE_OPTIONS]
    return f"its server takes {options[0]}, a SQLite option" if options else None


class PostgresDatabases:
    """A new database for each transcript, made and dropped through `admin` (a libpq
    key=value connection string for a role that may create databases), and owned by
    `role`, as which the server connects over the same socket folder or host."""

    _names = itertools.count()

    def __init__(self, admin, role):
        self.psql = shutil.which("psql")
        if self.psql is None:
            raise RuntimeError("--postgres needs psql on PATH")
        self.admin = admin
        self.role = role
        settings = dict(part.split("=", 1) for part in admin.split() if "=" in part)
        self.host = settings.get("host", "")

    def _run(self, sql):
        subprocess.run(
            [self.psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", self.admin, "-c", sql],
            check=True,
            capture_output=True,
            text=True,
        )

    @contextlib.contextmanager
    def fresh(self):
        name = f"taskline_conformance_{os.getpid()}_{next(self._names)}"
        self._run(f'CREATE DATABASE "{name}" OWNER "{self.role}"')
        try:
            query = "&".join(f"{key}={value}" for key, value in (("host", self.host), ("user", self.role)) if value)
            yield Database(f"postgresql:///{name}" + (f"?{query}" if query else ""), None)
        finally:
            self._run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
