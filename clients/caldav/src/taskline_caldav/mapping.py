"""A Taskline task's fields and an iCalendar VTODO, each made from the other.

`Fields` is the part of a task that syncs, in one canonical, JSON-able form (sets sorted,
the recurrence as its rule's text) so that the last synced state can be stored and
compared field by field. `to_ics` writes a VTODO from fields; `from_ics` reads one back.
Whatever Taskline has no place for is written as `X-TASKLINE-*` properties, and what a
server's VTODO has that Taskline has no field for is kept, as its content lines, in the
task's `meta` under `"caldav"`, and written back: a round trip through either side loses
nothing. docs/caldav.md has the table.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any, Callable

import icalendar

Fields = dict[str, Any]

#: The fields that sync, in the order the docs' table lists them.
FIELD_NAMES = (
    "title",
    "notes",
    "done",
    "priority",
    "tags",
    "due",
    "project",
    "dependsOn",
    "wait",
    "meta",
    "recurrence",
    "remindAt",
    "startedAt",
    "annotations",
)

#: The key of `meta` that holds a server's properties Taskline has no field for.
META_KEY = "caldav"
PROJECT_CATEGORY = "project:"
_PRODID = "-//Taskline//taskline-caldav//EN"
_ESCAPED = re.compile(r"\\([\\,;:nN])")
_PRIORITY_TO_ICAL = {3: 1, 2: 5, 1: 9}
# Properties read into fields, or made again on every write: never kept as unknown ones.
_KNOWN = {
    "UID",
    "SUMMARY",
    "DESCRIPTION",
    "STATUS",
    "COMPLETED",
    "PERCENT-COMPLETE",
    "DUE",
    "DTSTART",
    "CATEGORIES",
    "PRIORITY",
    "RRULE",
    "DTSTAMP",
    "CREATED",
    "LAST-MODIFIED",
    "SEQUENCE",
}


class BadItem(ValueError):
    """A calendar object that is not a task Taskline can hold; the message says why."""


@dataclass
class Parsed:
    """A VTODO read from the server (or a file)."""

    uid: str
    task_id: str
    fields: Fields
    #: An instance beside the series (Thunderbird's way) says this occurrence is done.
    instance_completed: bool = False
    #: Done and without RRULE or X-TASKLINE-RRULE: a bridge that strips the rule on completion.
    rule_stripped: bool = False
    #: `createdAt`, `updatedAt`, `completedAt` from CREATED, LAST-MODIFIED, COMPLETED, where
    #: given: only a file's import can keep them (`taskline import`); a sync cannot set them.
    times: dict[str, str] = field(default_factory=dict)


def task_fields(task: dict[str, Any]) -> Fields:
    """The syncing fields of a task as the server returns it (wire form)."""
    recurrence = task.get("recurrence")
    return {
        "title": task["title"],
        "notes": task["notes"],
        "done": task["done"],
        "priority": task["priority"],
        "tags": sorted(task["tags"]),
        "due": task.get("due"),
        "project": task.get("project"),
        "dependsOn": sorted(task.get("dependsOn") or []),
        "wait": task.get("wait"),
        "meta": dict(task.get("meta") or {}),
        "recurrence": recurrence["rule"] if recurrence else None,
        "remindAt": task.get("remindAt"),
        "startedAt": task.get("startedAt"),
        "annotations": [{"at": a["at"], "text": a["text"]} for a in task.get("annotations") or []],
    }


def task_id_for_uid(uid: str) -> str:
    """The Taskline id a UID's task gets when its VTODO names none: the UID itself when it
    is a valid id (1-128 characters, no control characters), else one made from it."""
    if 0 < len(uid) <= 128 and not any(ord(c) < 32 or ord(c) == 127 for c in uid):
        return uid
    return "caldav-" + hashlib.sha256(uid.encode()).hexdigest()[:40]


def create_params(task_id: str, fields: Fields) -> dict[str, Any]:
    """`tasks/create` params for fields, without `dependsOn` (set once the tasks it names exist)."""
    params: dict[str, Any] = {"id": task_id}
    for name, value in fields.items():
        if name == "dependsOn" or value is None:
            continue
        params[name] = {"rule": value} if name == "recurrence" else value
    if fields["done"]:
        params.pop("startedAt", None)
    return params


# --- Times ---


def _parse_time(text: str) -> date | datetime:
    if len(text) == 10:
        return date.fromisoformat(text)
    # Python before 3.11 reads neither "Z" nor any number of fractional digits.
    head, _, rest = text.replace("z", "Z").replace("t", "T").partition(".")
    if rest:
        digits = len(rest) - len(rest.lstrip("0123456789"))
        zone = rest[digits:]
        text = head + zone
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _to_ical_value(text: str) -> date | datetime:
    value = _parse_time(text)
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).replace(microsecond=0)
    return value


def _from_ical_value(value: Any) -> str:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.astimezone()  # floating: the reader's local time
        value = value.replace(microsecond=0)
        if value.utcoffset() == timezone.utc.utcoffset(None):
            return str(value.strftime("%Y-%m-%dT%H:%M:%SZ"))
        return str(value.isoformat())
    if isinstance(value, date):
        return value.isoformat()
    raise BadItem(f"not a date or a date-time: {value!r}")


def _same_time(exact: str | None, value: Any) -> bool:
    """Whether Taskline's exact text names what the iCalendar value does (to the second)."""
    if exact is None:
        return False
    try:
        ours = _to_ical_value(exact)
    except ValueError:
        return False
    theirs = value
    if isinstance(theirs, datetime):
        if theirs.tzinfo is None:
            theirs = theirs.astimezone()
        return isinstance(ours, datetime) and ours == theirs.replace(microsecond=0)
    return not isinstance(ours, datetime) and ours == theirs


# --- Writing ---


def to_ics(
    fields: Fields,
    *,
    uid: str,
    task_id: str,
    uid_of: Callable[[str], str] = lambda task_id: task_id,
    created_at: str | None = None,
    updated_at: str | None = None,
    completed_at: str | None = None,
) -> str:
    """A VCALENDAR with one VTODO for the fields. `uid_of` gives the UID of a task named in
    `dependsOn`. A done occurrence of a series is written without RRULE (its rule in
    X-TASKLINE-RRULE), so that no client shows it as a series of its own."""
    calendar = icalendar.Calendar()
    calendar.add("prodid", _PRODID)
    calendar.add("version", "2.0")
    todo = icalendar.Todo()
    todo.add("uid", uid)
    if task_id != uid:
        _add_text(todo, "x-taskline-id", task_id)
    todo.add("dtstamp", datetime.now(timezone.utc).replace(microsecond=0))
    # The times to the millisecond beside the properties' seconds, for a file's import.
    if created_at:
        todo.add("created", _to_ical_value(created_at))
        _add_text(todo, "x-taskline-created", created_at)
    if updated_at:
        todo.add("last-modified", _to_ical_value(updated_at))
        _add_text(todo, "x-taskline-updated", updated_at)
    todo.add("summary", fields["title"])
    if fields["notes"]:
        todo.add("description", fields["notes"])
    if fields["done"]:
        todo.add("status", "COMPLETED")
        todo.add("percent-complete", 100)
        todo.add("completed", _to_ical_value(completed_at) if completed_at else datetime.now(timezone.utc))
        if completed_at:
            _add_text(todo, "x-taskline-completed", completed_at)
    else:
        todo.add("status", "IN-PROCESS" if fields["startedAt"] else "NEEDS-ACTION")
    if fields["startedAt"]:
        _add_text(todo, "x-taskline-started", fields["startedAt"])
    for name, key in (("due", "due"), ("dtstart", "wait")):
        text = fields[key]
        if text is not None:
            todo.add(name, _to_ical_value(text))
            _add_text(todo, f"x-taskline-{key.lower()}", text)
    categories = list(fields["tags"])
    if fields["project"]:
        categories.append(PROJECT_CATEGORY + fields["project"])
        _add_text(todo, "x-taskline-project", fields["project"])
    if categories:
        todo.add("categories", categories)
    if fields["priority"]:
        todo.add("priority", _PRIORITY_TO_ICAL[fields["priority"]])
    rule = fields["recurrence"]
    if rule:
        if not fields["done"]:
            todo.add("rrule", icalendar.vRecur.from_ical(portable_rule(rule)))
        _add_text(todo, "x-taskline-rrule", rule)
    for dependency in fields["dependsOn"]:
        todo.add("related-to", uid_of(dependency), parameters={"RELTYPE": "DEPENDS-ON"})
    for annotation in fields["annotations"]:
        _add_text(todo, "x-taskline-annotation", annotation["text"], {"X-AT": annotation["at"]})
    meta = {key: value for key, value in fields["meta"].items() if key != META_KEY}
    if meta:
        _add_text(todo, "x-taskline-meta", json.dumps(meta, ensure_ascii=False, separators=(",", ":")))
    if fields["remindAt"]:
        alarm = icalendar.Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", fields["title"])
        alarm.add("trigger", _to_ical_value(fields["remindAt"]), parameters={"VALUE": "DATE-TIME"})
        _add_text(alarm, "x-taskline-remindat", fields["remindAt"])
        todo.add_component(alarm)
    calendar.add_component(todo)
    text = str(calendar.to_ical().decode())
    kept = fields["meta"].get(META_KEY, {})
    lines = kept.get("lines", []) if isinstance(kept, dict) else []
    if lines:
        # The server's own properties and components, as they came (content lines).
        head, _, tail = text.rpartition("END:VTODO\r\n")
        text = head + "".join(line.rstrip("\r\n") + "\r\n" for line in lines) + "END:VTODO\r\n" + tail
    return text


def portable_rule(rule: str) -> str:
    """The rule without RFC 7529's RSCALE and SKIP, which many servers refuse (Radicale does):
    the RRULE that servers get. The exact rule goes in X-TASKLINE-RRULE beside it."""
    parts = [part for part in rule.split(";") if part.split("=")[0].upper() not in ("RSCALE", "SKIP")]
    return ";".join(parts)


# --- Reading ---


def _add_text(component: Any, name: str, value: str, parameters: dict[str, str] | None = None) -> None:
    """An X- property as TEXT, escaped as RFC 5545 says: servers (Radicale) write them so."""
    component.add(name, icalendar.vText(value), parameters=parameters)


def _unescaped(value: Any) -> str:
    if isinstance(value, icalendar.vText):
        return str(value)
    raw = value.to_ical() if hasattr(value, "to_ical") else value
    text = raw.decode() if isinstance(raw, bytes) else str(raw)
    return _ESCAPED.sub(lambda match: "\n" if match.group(1) in "nN" else match.group(1), text)


def _text(component: Any, name: str) -> str | None:
    value = component.get(name)
    if value is None:
        return None
    if isinstance(value, list):
        value = value[0]
    if name.startswith("X-"):
        return _unescaped(value)
    return str(value)


def _time(component: Any, name: str, exact_name: str) -> str | None:
    prop = component.get(name)
    if prop is None:
        return None
    value = prop.dt
    exact = _text(component, exact_name)
    return exact if _same_time(exact, value) else _from_ical_value(value)


def _rule_text(prop: Any) -> str:
    return str(prop.to_ical().decode())


def from_ics(text: str | bytes, *, id_of: Callable[[str], str] = task_id_for_uid, name: str = "") -> Parsed:
    """The task in one calendar object. Raises `BadItem` for what holds no single task (a
    VEVENT, an unparseable property); `name` is how messages name the object."""
    try:
        calendar = icalendar.Calendar.from_ical(text)
    except (ValueError, IndexError, KeyError) as error:
        raise BadItem(f"not readable iCalendar: {error}") from None
    todos = calendar.walk("VTODO") if isinstance(calendar, icalendar.Calendar) else []
    if not todos:
        kinds = sorted({str(c.name) for c in calendar.subcomponents if c.name != "VTIMEZONE"})
        raise BadItem(f"no VTODO (it holds {', '.join(kinds) or 'nothing'})")
    masters = [t for t in todos if t.get("RECURRENCE-ID") is None]
    if len(masters) != 1:
        raise BadItem(f"{len(masters)} VTODOs without RECURRENCE-ID; a task is one")
    todo = masters[0]
    instances = [t for t in todos if t.get("RECURRENCE-ID") is not None]
    uid = _text(todo, "UID")
    if not uid:
        raise BadItem("a VTODO without UID")
    try:
        return _read_todo(todo, instances, uid, id_of)
    except BadItem:
        raise
    except (ValueError, TypeError, AttributeError, KeyError) as error:
        raise BadItem(f"UID {uid}: {error}") from None


def _read_todo(todo: Any, instances: list[Any], uid: str, id_of: Callable[[str], str]) -> Parsed:
    status = (_text(todo, "STATUS") or "NEEDS-ACTION").upper()
    done = status == "COMPLETED" or todo.get("COMPLETED") is not None and status != "NEEDS-ACTION"
    categories: list[str] = []
    for prop in todo.get("CATEGORIES", []) if isinstance(todo.get("CATEGORIES"), list) else [todo.get("CATEGORIES")]:
        if prop is not None:
            categories += [str(category) for category in prop.cats]
    project = next((c[len(PROJECT_CATEGORY) :] for c in categories if c.startswith(PROJECT_CATEGORY)), None)
    tags = sorted({c for c in categories if not c.startswith(PROJECT_CATEGORY) and c})
    if project is None and not categories:
        project = _text(todo, "X-TASKLINE-PROJECT")
    priority_value = int(todo.get("PRIORITY", 0) or 0)
    priority = 0 if priority_value == 0 else 3 if priority_value <= 4 else 2 if priority_value == 5 else 1
    rrule = todo.get("RRULE")
    exact_rule = _text(todo, "X-TASKLINE-RRULE")
    if isinstance(rrule, list):
        rrule = rrule[0]
    rule_stripped = False
    if rrule is not None:
        rule: str | None = _rule_text(rrule)
        if exact_rule is not None and icalendar.vRecur.from_ical(portable_rule(exact_rule)) == rrule:
            rule = exact_rule
    elif done and exact_rule is not None:
        rule = exact_rule
    else:
        rule = None
        rule_stripped = done
    dependencies: list[str] = []
    lines: list[str] = []
    annotations: list[dict[str, str]] = []
    meta: dict[str, Any] = {}
    started = _text(todo, "X-TASKLINE-STARTED") if status == "IN-PROCESS" else None
    for name, value in todo.property_items(recursive=False):
        if name in ("BEGIN", "END") or name in _KNOWN:
            continue
        if name == "RELATED-TO" and str(value.params.get("RELTYPE", "")).upper() == "DEPENDS-ON":
            dependencies.append(id_of(str(value)))
        elif name == "X-TASKLINE-ANNOTATION":
            annotations.append({"at": str(value.params.get("X-AT", "")), "text": _unescaped(value)})
        elif name == "X-TASKLINE-META":
            meta.update(json.loads(_unescaped(value)))
        elif name.startswith("X-TASKLINE-"):
            continue
        else:
            lines.append(str(todo.content_line(name, value)))
    remind_at = None
    for alarm in todo.subcomponents:
        trigger = alarm.get("TRIGGER") if alarm.name == "VALARM" else None
        if remind_at is None and trigger is not None and isinstance(trigger.dt, datetime):
            remind_at = _time(alarm, "TRIGGER", "X-TASKLINE-REMINDAT")
        else:
            lines += alarm.to_ical().decode().splitlines()
    if started is None and status == "IN-PROCESS":
        last = todo.get("LAST-MODIFIED") or todo.get("DTSTAMP")
        started = _stamp(last.dt) if last is not None else _stamp(datetime.now(timezone.utc))
    if lines:
        meta[META_KEY] = {"lines": lines}
    instance_completed = any(
        (_text(instance, "STATUS") or "").upper() == "COMPLETED" or instance.get("COMPLETED") is not None
        for instance in instances
    )
    fields: Fields = {
        "title": _text(todo, "SUMMARY") or "(no title)",
        "notes": _text(todo, "DESCRIPTION") or "",
        "done": done,
        "priority": priority,
        "tags": tags,
        "due": _time(todo, "DUE", "X-TASKLINE-DUE"),
        "project": project,
        "dependsOn": sorted(set(dependencies)),
        "wait": _time(todo, "DTSTART", "X-TASKLINE-WAIT"),
        "meta": meta,
        "recurrence": rule,
        "remindAt": remind_at,
        "startedAt": None if done else started,
        "annotations": sorted(annotations, key=lambda a: a["at"]),
    }
    if fields["recurrence"] and not fields["due"]:
        raise BadItem(f"UID {uid}: RRULE without DUE")
    task_id = _text(todo, "X-TASKLINE-ID") or id_of(uid)
    times = {}
    for name, key in (("CREATED", "createdAt"), ("LAST-MODIFIED", "updatedAt"), ("COMPLETED", "completedAt")):
        prop = todo.get(name)
        if prop is not None and isinstance(prop.dt, datetime) and (key != "completedAt" or done):
            exact = _text(todo, f"X-TASKLINE-{key[:-2].upper()}")
            times[key] = exact if exact and _same_time(exact, prop.dt) else _stamp(prop.dt)
    return Parsed(
        uid=uid,
        task_id=task_id,
        fields=fields,
        instance_completed=instance_completed,
        rule_stripped=rule_stripped,
        times=times,
    )


def _stamp(value: Any) -> str:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.astimezone()
        return str(value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z"))
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
