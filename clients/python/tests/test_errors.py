"""Each error code of the protocol becomes its own exception class."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

import pytest
from conftest import SchemaChecker
from support import RawServer

from taskline_client import (
    Client,
    InvalidParams,
    MethodNotFound,
    ProtocolError,
    RequestCancelled,
    ServerError,
    ServerNotInitialized,
    StorageError,
    TaskAlreadyExists,
    TasklineError,
    TaskNotFound,
    VersionConflict,
)
from taskline_client.errors import error_from_wire


def test_an_unknown_id_is_task_not_found(client: Client) -> None:
    with pytest.raises(TaskNotFound) as caught:
        client.get("no-such-task")
    assert caught.value.code == 1001
    assert caught.value.task_id == "no-such-task"
    with pytest.raises(TaskNotFound):
        client.delete("no-such-task")


def test_a_stale_version_is_a_conflict_carrying_the_current_task(client: Client) -> None:
    task = client.create("contested")
    current = client.update(task.id, title="changed elsewhere")
    with pytest.raises(VersionConflict) as caught:
        client.update(task.id, done=True, if_version=task.version)
    assert caught.value.code == 1002
    assert caught.value.current == current
    with pytest.raises(VersionConflict):
        client.delete(task.id, if_version=task.version)
    assert client.get(task.id) == current


def test_a_duplicate_id_is_task_already_exists(client: Client) -> None:
    client.create("first", id="twin")
    with pytest.raises(TaskAlreadyExists) as caught:
        client.create("second", id="twin")
    assert caught.value.code == 1003
    assert caught.value.task_id == "twin"


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda client: client.create("x", priority=7), "priority"),
        (lambda client: client.create("   "), "title"),
        (lambda client: client.create("x", tags=["has space"]), "tags[0]"),
        (lambda client: client.create("x", colour="red"), "colour"),
        (lambda client: client.update(client.create("x").id, title=""), "changes.title"),
        (lambda client: client.fetch(limit=0), "limit"),
    ],
)
def test_bad_params_are_invalid_params_naming_the_field(
    client: Client, call: Callable[[Client], Any], field: str
) -> None:
    with pytest.raises(InvalidParams) as caught:
        call(client)
    assert caught.value.code == -32602
    assert caught.value.field == field


def test_an_unknown_method_is_method_not_found(client: Client) -> None:
    with pytest.raises(MethodNotFound) as caught:
        client.request("tasks/archive", {})
    assert caught.value.code == -32601
    assert caught.value.data == {"method": "tasks/archive"}


def test_other_codes_are_protocol_errors(client: Client) -> None:
    with pytest.raises(ProtocolError) as caught:
        client.request("initialize", {})  # a second initialize is -32600
    assert caught.value.code == -32600


@pytest.fixture
def locked_db(db: Path, client: Client) -> Iterator[Path]:
    """The database while another connection holds its write lock."""
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    yield db
    holder.execute("ROLLBACK")
    holder.close()


def test_a_locked_database_is_a_storage_error(open_client: Callable[..., Client], locked_db: Path) -> None:
    impatient = open_client(args=["--busy-timeout", "100"])
    with pytest.raises(StorageError) as caught:
        impatient.create("blocked")
    assert caught.value.code == 1004
    assert {"code", "extendedCode", "message"} <= set(caught.value.data)
    assert caught.value.kind == "busy" and caught.value.retryable


@pytest.fixture
def raw_server(server: str, db: Path, schema_checker: SchemaChecker) -> Iterator[RawServer]:
    raw = RawServer(server, db, schema_checker)
    yield raw
    raw.close()


def test_a_request_before_initialize_is_server_not_initialized(raw_server: RawServer) -> None:
    raw_server.send({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "x"}})
    error = error_from_wire(raw_server.response_to(1)["error"])
    assert isinstance(error, ServerNotInitialized)
    assert error.code == -32002


def test_a_cancelled_request_is_request_cancelled(raw_server: RawServer) -> None:
    # Durable creates are slow enough that the cancellation arrives long before
    # the server reaches the request it cancels.
    creates = [
        {"jsonrpc": "2.0", "id": number, "method": "tasks/create", "params": {"title": f"task {number}"}}
        for number in range(2, 202)
    ]
    raw_server.send(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
        *creates,
        {"jsonrpc": "2.0", "id": "victim", "method": "tasks/fetch", "params": {}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "victim"}},
    )
    error = error_from_wire(raw_server.response_to("victim", timeout=60)["error"])
    assert isinstance(error, RequestCancelled)
    assert error.code == -32800


def test_every_server_error_is_a_taskline_error() -> None:
    for code in (1001, 1002, 1003, 1004, -32602, -32601, -32002, -32800, -32700, -32600, -32603, 4242):
        error = error_from_wire({"code": code, "message": "m"})
        assert isinstance(error, ServerError) and isinstance(error, TasklineError)
        assert error.code == code
