"""Fixtures that run the real `taskline` binary against temporary databases.

Every message a client receives is checked against the protocol's JSON Schema
(when protocol/schema/taskline.schema.json exists), through the clients'
`message_observer` hook.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

import pytest

from taskline_client import Client

REPOSITORY = Path(__file__).resolve().parents[3]
SCHEMA_PATH = REPOSITORY / "protocol" / "schema" / "taskline.schema.json"


@pytest.fixture(scope="session")
def server() -> str:
    path = os.environ.get("TASKLINE_SERVER") or str(REPOSITORY / ".build" / "debug" / "taskline")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no taskline binary at {path} (build it, or set TASKLINE_SERVER)")
    return path


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "tasks.sqlite"


class SchemaChecker:
    """Validates server messages against `$defs/serverMessage`, collecting failures."""

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.checked = 0
        self._validator = _server_message_validator()

    def __call__(self, message: Any) -> None:
        if self._validator is None:
            return
        self.checked += 1
        for error in self._validator.iter_errors(message):
            self.failures.append(f"{error.message} at {list(error.absolute_path)} in {json.dumps(message)[:500]}")


def _server_message_validator() -> Any:
    if not SCHEMA_PATH.exists():
        return None
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
    from referencing import Registry, Resource

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    registry: Registry[Any] = Registry().with_resource(schema["$id"], Resource.from_contents(schema))
    return Draft202012Validator(
        {"$ref": schema["$id"] + "#/$defs/serverMessage"},
        registry=registry,
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


@pytest.fixture
def schema_checker() -> Iterator[SchemaChecker]:
    checker = SchemaChecker()
    yield checker
    assert checker.failures == [], "server messages that break the schema:\n" + "\n".join(checker.failures)


@pytest.fixture
def client_options(server: str, db: Path, schema_checker: SchemaChecker) -> dict[str, Any]:
    """Keyword arguments for Client / AsyncClient on the test's database."""
    return {"db": db, "server": server, "message_observer": schema_checker}


@pytest.fixture
def open_client(client_options: dict[str, Any]) -> Iterator[Callable[..., Client]]:
    """Opens clients (overriding any option) and closes them after the test."""
    clients: list[Client] = []

    def open_(**overrides: Any) -> Client:
        client = Client(**{**client_options, **overrides})
        clients.append(client)
        return client

    yield open_
    for client in clients:
        client.close()


@pytest.fixture
def client(open_client: Callable[..., Client]) -> Client:
    return open_client()
