"""`tasks/apply`: the operations it takes, what it returns for each, and the call."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Union

from . import calls
from .errors import ServerError, error_from_wire
from .models import Task

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from typing import Unpack
    else:
        from typing_extensions import Unpack

OperationKind = Literal["create", "update", "delete"]


class Operation:
    """One write for `apply`; make it with `Create`, `Update` or `Delete`.

    `kind` is `"create"`, `"update"` or `"delete"` and `params` the params the
    single method would be sent.
    """

    __slots__ = ("kind", "params")

    def __init__(self, kind: OperationKind, params: Mapping[str, Any]) -> None:
        self.kind: OperationKind = kind
        self.params: dict[str, Any] = dict(params)

    def to_wire(self) -> dict[str, Any]:
        return {self.kind: self.params}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Operation):
            return NotImplemented
        return (self.kind, self.params) == (other.kind, other.params)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.params!r})"


class Create(Operation):
    """Like `client.create(title, **fields)`."""

    __slots__ = ()

    def __init__(self, title: str, **fields: Unpack[calls.NewTaskFields]) -> None:
        super().__init__("create", calls.create(title, fields).params)


class Update(Operation):
    """Like `client.update(task_id, if_version=..., **changes)`."""

    __slots__ = ()

    def __init__(self, task_id: str, *, if_version: int | None = None, **changes: Unpack[calls.TaskChanges]) -> None:
        super().__init__("update", calls.update(task_id, changes, if_version).params)


class Delete(Operation):
    """Like `client.delete(task_id, if_version=...)`."""

    __slots__ = ()

    def __init__(self, task_id: str, *, if_version: int | None = None) -> None:
        super().__init__("delete", calls.delete(task_id, if_version).params)


#: An `Operation`, or its wire form: `{"create": {...}}`, `{"update": {...}}` or `{"delete": {...}}`.
OperationLike = Union[Operation, Mapping[str, Any]]


@dataclass(frozen=True)
class OperationResult:
    """What one operation of `apply` did.

    For a create or an update that was applied, `task` is the task after it;
    for a delete, `task` is None. For an operation that failed (only with
    `atomic=False`), `error` is the exception the single call would have raised.
    """

    task: Task | None = None
    error: ServerError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def unwrap(self) -> Task | None:
        """`task`, or raise `error`."""
        if self.error is not None:
            raise self.error
        return self.task


def apply_call(operations: Iterable[OperationLike], atomic: bool) -> calls.Call[tuple[OperationResult, ...]]:
    wire = [operation.to_wire() if isinstance(operation, Operation) else dict(operation) for operation in operations]
    kinds = [_kind(operation) for operation in wire]

    def read_result(result: Any) -> tuple[OperationResult, ...]:
        return tuple(_operation_result(kind, entry) for kind, entry in zip(kinds, result["results"]))

    return calls.Call("tasks/apply", {"operations": wire, "atomic": atomic}, read_result)


def _kind(operation: Mapping[str, Any]) -> str | None:
    # A malformed operation is sent as it is: the server names it (-32602).
    return next(iter(operation)) if len(operation) == 1 else None


def _operation_result(kind: str | None, entry: Mapping[str, Any]) -> OperationResult:
    error = entry.get("error")
    if isinstance(error, Mapping):
        return OperationResult(error=error_from_wire(error))
    result = entry.get("result")
    if kind in ("create", "update") and isinstance(result, Mapping):
        return OperationResult(task=Task.from_wire(result))
    return OperationResult()
