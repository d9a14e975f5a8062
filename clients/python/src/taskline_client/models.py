"""Typed, immutable views of what the server sends.

Every `from_wire` ignores members it does not know: protocol version 1 allows
the server to add result and task members.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Callable, TypeVar

from .timestamps import parse_due, parse_timestamp


class Priority(enum.IntEnum):
    NONE = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3


@dataclass(frozen=True)
class Recurrence:
    """How a task recurs: an RFC 5545 RRULE (`FREQ=WEEKLY;BYDAY=MO,TH`)."""

    rule: str

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Recurrence:
        return cls(rule=data["rule"])


@dataclass(frozen=True)
class Annotation:
    """A dated note on a task (Taskwarrior's annotation)."""

    at: datetime
    text: str

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Annotation:
        return cls(at=parse_timestamp(data["at"]), text=data["text"])


@dataclass(frozen=True)
class Task:
    id: str
    title: str
    notes: str
    done: bool
    priority: Priority
    tags: tuple[str, ...]
    #: Exactly as given on create or update: an RFC 3339 date-time or a full date.
    due: str | None
    #: A dot-separated path (`Home.Garage`).
    project: str | None
    #: Ids of the tasks this one waits for, sorted by code point.
    depends_on: tuple[str, ...]
    #: Exactly as given: the time before which the task is not actionable.
    wait: str | None
    #: Clients' own data, as stored (a JSON object). Not part of the hash.
    meta: dict[str, Any] = field(hash=False)
    #: Completing a recurring task makes its next occurrence.
    recurrence: Recurrence | None
    #: Set by the server: the id of the series' first occurrence.
    series_id: str | None
    #: Exactly as given: when a client that asked for reminders gets `Remind`.
    remind_at: str | None
    #: Set while the task is active (being worked on); None on a done task.
    started_at: datetime | None
    #: In order of `at`; added and removed with `add_annotations`, `remove_annotations`.
    annotations: tuple[Annotation, ...]
    created_at: datetime
    updated_at: datetime
    completed_at: datetime | None
    version: int

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Task:
        return cls(
            id=data["id"],
            title=data["title"],
            notes=data["notes"],
            done=data["done"],
            priority=Priority(data["priority"]),
            tags=tuple(data["tags"]),
            due=data.get("due"),
            project=data.get("project"),
            depends_on=tuple(data.get("dependsOn", ())),
            wait=data.get("wait"),
            meta=dict(data.get("meta") or {}),
            recurrence=_optional(Recurrence.from_wire, data.get("recurrence")),
            series_id=data.get("seriesId"),
            remind_at=data.get("remindAt"),
            started_at=_optional(parse_timestamp, data.get("startedAt")),
            annotations=tuple(Annotation.from_wire(item) for item in data.get("annotations", ())),
            created_at=parse_timestamp(data["createdAt"]),
            updated_at=parse_timestamp(data["updatedAt"]),
            completed_at=_optional(parse_timestamp, data.get("completedAt")),
            version=data["version"],
        )

    @property
    def parsed_due(self) -> datetime | date | None:
        """`due` as an aware datetime, or a date for a full date.

        Raises `UnsupportedTimestamp` (a ValueError) for the valid RFC 3339 values Python cannot hold
        (the year 0000, a leap second).
        """
        return _optional(parse_due, self.due)


@dataclass(frozen=True)
class FetchPage:
    """One page of `tasks/fetch`; `total` is set only when it was asked for.

    `seq` is the database's newest seq when the page was read (from the same
    snapshot as the page): a copy built from pages follows on with the changes
    after it (`changes(seq)`, or notifications whose seq is greater).
    """

    tasks: tuple[Task, ...]
    next_cursor: str | None
    seq: int
    total: int | None

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> FetchPage:
        return cls(
            tasks=tuple(Task.from_wire(task) for task in data["tasks"]),
            next_cursor=data.get("nextCursor"),
            seq=data["seq"],
            total=data.get("total"),
        )


class ChangeKind(str, enum.Enum):
    CREATED = "created"
    UPDATED = "updated"
    DELETED = "deleted"


@dataclass(frozen=True)
class Change:
    """One committed change.

    `version` is the task's version after the change (for a deletion, the
    version it had). `task` is always None for deletions. Otherwise, in a
    `tasks/didChange` for a change this client's server made, `task` is the
    task right after the change; for a change made by another process, and in
    a `changes()` page, it is the task as it was read later: its version may be
    greater than `version` (a later change follows), and it is None if the task
    has been deleted since (the deletion follows). Applying changes in order
    gives the right state either way.
    """

    seq: int
    kind: ChangeKind
    id: str
    version: int
    task: Task | None

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Change:
        return cls(
            seq=data["seq"],
            kind=ChangeKind(data["kind"]),
            id=data["id"],
            version=data["version"],
            task=_optional(Task.from_wire, data.get("task")),
        )


@dataclass(frozen=True)
class DidChange:
    """The params of a `tasks/didChange` notification."""

    seq: int
    changes: tuple[Change, ...]

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> DidChange:
        return cls(seq=data["seq"], changes=tuple(Change.from_wire(change) for change in data["changes"]))


@dataclass(frozen=True)
class DidMissChanges:
    """The params of a `tasks/didMissChanges` notification: the changes after
    `since` through `seq` came in no `DidChange`; the ones that follow carry the
    changes after `seq`.

    `reason` "backlog": this client had not read 64 MiB of output; read the
    missed changes with `changes(since)` (refetch if that raises 1005). Any other
    reason ("historyExpired": the change log no longer holds them): refetch with
    `fetch` and follow on from its `seq`.

    The client makes two of its own, for changes the server did send: "overflow"
    (a `ChangeStream` held as many as it may) and "unreadable" (a `tasks/didChange`
    this client could not read); `changes(since)` reads them again.
    """

    since: int
    seq: int
    reason: str

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> DidMissChanges:
        return cls(since=data["since"], seq=data["seq"], reason=data["reason"])


@dataclass(frozen=True)
class ChangesPage:
    """One page of `tasks/changes`: the changes after `since`, oldest first.

    `seq` is where to continue (the last change's seq, or `since` when there
    were none); `has_more` says whether there are more to get at once.
    """

    changes: tuple[Change, ...]
    seq: int
    has_more: bool

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> ChangesPage:
        return cls(
            changes=tuple(Change.from_wire(change) for change in data["changes"]),
            seq=data["seq"],
            has_more=data["hasMore"],
        )


@dataclass(frozen=True)
class ServerInfo:
    """What `initialize` told us about the server.

    `database_id` names the database file (random, made with it): a copy of its
    tasks kept under another id belongs to another file, even when that file's
    seqs are as high. `database_seq` is the newest seq when the client
    initialized; notifications carry the changes after it.
    """

    name: str
    version: str
    protocol_version: str
    database_id: str
    database_seq: int
    methods: tuple[str, ...]
    notifications: bool
    missed_changes_notifications: bool
    #: Whether this client gets `tasks/remind` (it asked with `reminders=True`).
    reminders: bool
    max_message_bytes: int
    max_fetch_limit: int

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> ServerInfo:
        capabilities = data["capabilities"]
        limits = capabilities["limits"]
        return cls(
            name=data["serverInfo"]["name"],
            version=data["serverInfo"]["version"],
            protocol_version=data["protocolVersion"],
            database_id=data["database"]["id"],
            database_seq=data["database"]["seq"],
            methods=tuple(capabilities["methods"]),
            notifications=capabilities["notifications"]["didChange"],
            missed_changes_notifications=capabilities["notifications"]["didMissChanges"],
            reminders=capabilities["notifications"].get("remind", False),
            max_message_bytes=limits["maxMessageBytes"],
            max_fetch_limit=limits["maxFetchLimit"],
        )


@dataclass(frozen=True)
class Remind:
    """The params of a `tasks/remind` notification: tasks that are not done and
    whose `remind_at` has passed, soonest first. Sent only to a client that asked
    with `reminders=True`, each reminder at most once per database (with several
    servers on one file, to one of their clients)."""

    tasks: tuple[Task, ...]

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Remind:
        return cls(tasks=tuple(Task.from_wire(task) for task in data["tasks"]))


_Parsed = TypeVar("_Parsed")


def _optional(parse: Callable[[Any], _Parsed], value: Any | None) -> _Parsed | None:
    return None if value is None else parse(value)


# --- Undo and redo (tasks/undo, tasks/redo) ---


class GroupKind(str, enum.Enum):
    WRITE = "write"
    UNDO = "undo"
    REDO = "redo"


@dataclass(frozen=True)
class ChangeGroup:
    """A change group: the changes of one write request, one `apply`, one undo
    or one redo, from `first_seq` to `last_seq`. `own` when this connection
    wrote it; `at` when its first change was made."""

    first_seq: int
    last_seq: int
    kind: GroupKind
    own: bool
    at: datetime

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> ChangeGroup:
        return cls(
            first_seq=data["firstSeq"],
            last_seq=data["lastSeq"],
            kind=GroupKind(data["kind"]),
            own=data["own"],
            at=parse_timestamp(data["at"]),
        )


@dataclass(frozen=True)
class Reversal:
    """What `undo()` or `redo()` did: the group it reverted, the group's tasks
    as it left them, and the ids of those it left absent. Its own changes come
    in `tasks/didChange`."""

    group: ChangeGroup
    tasks: tuple[Task, ...]
    deleted: tuple[str, ...]

    @classmethod
    def from_wire(cls, data: Mapping[str, Any], member: str) -> Reversal | None:
        """None for the empty result: there was nothing to revert."""
        if member not in data:
            return None
        return cls(
            group=ChangeGroup.from_wire(data[member]),
            tasks=tuple(Task.from_wire(task) for task in data["tasks"]),
            deleted=tuple(data["deleted"]),
        )


# --- end of undo and redo ---
