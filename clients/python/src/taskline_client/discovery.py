"""Finding the `taskline` executable."""

from __future__ import annotations

import os
import shutil
from typing import Union

from .errors import ServerNotFound

ENVIRONMENT_VARIABLE = "TASKLINE_SERVER"

PathArg = Union[str, "os.PathLike[str]"]


def find_server(path: PathArg | None = None) -> str:
    """The server to run: `path` if given, else $TASKLINE_SERVER, else `taskline` on PATH."""
    if path is not None:
        return _executable(os.fspath(path), "given as the server path")
    from_environment = os.environ.get(ENVIRONMENT_VARIABLE)
    if from_environment:
        return _executable(from_environment, f"named by ${ENVIRONMENT_VARIABLE}")
    on_path = shutil.which("taskline")
    if on_path is None:
        raise ServerNotFound(
            f"cannot find the taskline server: pass its path, set ${ENVIRONMENT_VARIABLE}, or put `taskline` on PATH"
        )
    return on_path


def _executable(candidate: str, origin: str) -> str:
    resolved = shutil.which(candidate)
    if resolved is None:
        raise ServerNotFound(f"{candidate!r} ({origin}) is not an executable file")
    return resolved
