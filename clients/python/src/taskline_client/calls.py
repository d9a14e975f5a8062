"""The `tasks/*` methods as data: the params to send and how to read the
result. Both clients turn a `Call` into a round trip. (`tasks/apply` is in
`operations`.)"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable, Generic, TypedDict, TypeVar

from .models import Annotation, ChangesPage, FetchPage, Reversal, Task
from .query import Filter, SortKey
from .timestamps import DueInput, format_due

_Result = TypeVar("_Result")


class NewAnnotation(TypedDict, total=False):
    """An annotation to add: `text`, and `at` (default: the server's clock)."""

    text: str
    at: DueInput


class TaskChanges(TypedDict, total=False):
    """Fields to set on update; `due=None` clears the due date."""

    title: str
    notes: str
    done: bool
    priority: int
    tags: Iterable[str]
    due: DueInput | None
    #: A dot-separated path (`Home.Garage`); None clears it.
    project: str | None
    #: A time, as given (like `due`): the task is not actionable before it; None clears it.
    wait: str | None
    #: An RFC 5545 rule; None ends the series.
    recurrence: str | None
    #: When to be reminded (`Remind`); None clears it.
    remind_at: DueInput | None
    #: Starts the task (a time); None stops it.
    started_at: DueInput | None
    #: Added to the annotations the task has when the update runs: concurrent additions are kept.
    add_annotations: Iterable[NewAnnotation]
    #: Each removes the first annotation of its time and text (a task's `Annotation`s).
    remove_annotations: Iterable[Annotation]
    #: Replaces the whole list (not with the two above).
    annotations: Iterable[NewAnnotation]


class NewTaskFields(TypedDict, total=False):
    """Optional fields on create; `id` lets the client choose the task's id."""

    notes: str
    done: bool
    priority: int
    tags: Iterable[str]
    due: DueInput | None
    project: str | None
    wait: str | None
    #: An RFC 5545 rule (`FREQ=WEEKLY;BYDAY=MO`); the task needs a due.
    recurrence: str | None
    remind_at: DueInput | None
    started_at: DueInput | None
    annotations: Iterable[NewAnnotation]
    id: str


class PageOptions(TypedDict, total=False):
    filter: Filter
    sort: Sequence[SortKey]


class FetchOptions(PageOptions, total=False):
    limit: int
    cursor: str
    offset: int
    include_total: bool


@dataclass(frozen=True)
class Call(Generic[_Result]):
    method: str
    params: dict[str, Any]
    read_result: Callable[[Any], _Result]


def create(title: str, fields: NewTaskFields) -> Call[Task]:
    return Call("tasks/create", {"title": title, **_task_fields(fields)}, Task.from_wire)


def get(task_id: str) -> Call[Task]:
    return Call("tasks/get", {"id": task_id}, Task.from_wire)


def fetch(options: FetchOptions) -> Call[FetchPage]:
    params: dict[str, Any] = {}
    if "filter" in options:
        params["filter"] = options["filter"].to_wire()
    if "sort" in options:
        params["sort"] = [key.to_wire() for key in options["sort"]]
    if "limit" in options:
        params["limit"] = options["limit"]
    if "cursor" in options:
        params["cursor"] = options["cursor"]
    if "offset" in options:
        params["offset"] = options["offset"]
    if "include_total" in options:
        params["includeTotal"] = options["include_total"]
    return Call("tasks/fetch", params, FetchPage.from_wire)


def update(task_id: str, changes: TaskChanges, if_version: int | None) -> Call[Task]:
    params: dict[str, Any] = {"id": task_id, "changes": _task_fields(changes)}
    if if_version is not None:
        params["ifVersion"] = if_version
    return Call("tasks/update", params, Task.from_wire)


def delete(task_id: str, if_version: int | None) -> Call[None]:
    params: dict[str, Any] = {"id": task_id}
    if if_version is not None:
        params["ifVersion"] = if_version
    return Call("tasks/delete", params, lambda result: None)


def changes(since: int, limit: int | None) -> Call[ChangesPage]:
    params: dict[str, Any] = {"since": since}
    if limit is not None:
        params["limit"] = limit
    return Call("tasks/changes", params, ChangesPage.from_wire)


def parse(text: str, task_id: str | None) -> Call[dict[str, Any]]:
    params: dict[str, Any] = {"text": text}
    if task_id is not None:
        params["id"] = task_id
    member = "task" if task_id is None else "changes"
    return Call("tasks/parse", params, lambda result: dict(result[member]))


def undo(scope: str | None, force: bool) -> Call[Reversal | None]:
    return Call("tasks/undo", _reversal_params(scope, force), lambda result: Reversal.from_wire(result, "undone"))


def redo(scope: str | None, force: bool) -> Call[Reversal | None]:
    return Call("tasks/redo", _reversal_params(scope, force), lambda result: Reversal.from_wire(result, "redone"))


def _reversal_params(scope: str | None, force: bool) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if scope is not None:
        params["scope"] = scope
    if force:
        params["force"] = True
    return params


def _task_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    # Unknown names go through untouched: the server rejects them by name (-32602).
    wire = dict(fields)
    if "tags" in wire:
        wire["tags"] = list(wire["tags"])
    if "priority" in wire:
        wire["priority"] = int(wire["priority"])
    if wire.get("due") is not None:
        wire["due"] = format_due(wire["due"])
    if wire.get("recurrence") is not None:
        wire["recurrence"] = {"rule": wire["recurrence"]}
    if "remind_at" in wire:
        remind_at = wire.pop("remind_at")
        wire["remindAt"] = None if remind_at is None else format_due(remind_at)
    if "started_at" in wire:
        started_at = wire.pop("started_at")
        wire["startedAt"] = None if started_at is None else format_due(started_at)
    for name, member in (("annotations", "annotations"), ("add_annotations", "addAnnotations")):
        if name in wire:
            wire[member] = [_new_annotation(annotation) for annotation in wire.pop(name)]
    if "remove_annotations" in wire:
        wire["removeAnnotations"] = [
            {"at": format_due(annotation.at), "text": annotation.text} for annotation in wire.pop("remove_annotations")
        ]
    return wire


def _new_annotation(annotation: NewAnnotation) -> dict[str, Any]:
    wire: dict[str, Any] = dict(annotation)
    if "at" in wire:
        wire["at"] = format_due(wire["at"])
    return wire
