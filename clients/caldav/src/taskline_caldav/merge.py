"""The three-way merge of one task's fields: the last synced state, Taskline's, the server's.

A field one side changed takes that side's value. Sets (tags, dependsOn, annotations) and
`meta`'s keys merge element by element, so additions and removals on both sides all hold.
When both sides changed the same field to different values, Taskline's value is kept and
the server's is written into the task's notes, in a line that starts `caldav conflict:`, so
nothing is lost and both sides see it (docs/caldav.md, "Conflicts").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .mapping import FIELD_NAMES, Fields

_SETS = ("tags", "dependsOn")


@dataclass
class Merged:
    fields: Fields
    conflicts: list[tuple[str, Any]] = field(default_factory=list)


def _merge_sets(base: list[Any], local: list[Any], remote: list[Any]) -> list[Any]:
    def key(value: Any) -> str:
        return json.dumps(value, sort_keys=True)

    base_keys, local_keys, remote_keys = ({key(v) for v in side} for side in (base, local, remote))
    values = {key(v): v for side in (base, local, remote) for v in side}
    kept = (base_keys & local_keys & remote_keys) | (local_keys - base_keys) | (remote_keys - base_keys)
    return sorted((values[k] for k in kept), key=key)


def _merge_value(name: str, base: Any, local: Any, remote: Any, conflicts: list[tuple[str, Any]]) -> Any:
    if local == remote:
        return local
    if local == base:
        return remote
    if remote == base:
        return local
    conflicts.append((name, remote))
    return local


def merge(base: Fields | None, local: Fields, remote: Fields) -> Merged:
    """The merged fields; `base` None when the item was never synced (both sides made it)."""
    conflicts: list[tuple[str, Any]] = []
    result: Fields = {}
    for name in FIELD_NAMES:
        was = base[name] if base is not None else None
        if name in _SETS:
            result[name] = _merge_sets(was or [], local[name], remote[name])
        elif name == "annotations":
            merged = _merge_sets(was or [], local[name], remote[name])
            result[name] = sorted(merged, key=lambda a: a["at"])
        elif name == "meta":
            meta: dict[str, Any] = {}
            old = was or {}
            for key in sorted(set(old) | set(local[name]) | set(remote[name])):
                missing = object()
                value = _merge_value(
                    f"meta.{key}",
                    old.get(key, missing),
                    local[name].get(key, missing),
                    remote[name].get(key, missing),
                    conflicts,
                )
                if value is not missing:
                    meta[key] = value
            # The server's own properties are the server's: its side always holds them.
            conflicts[:] = [c for c in conflicts if c[0] != "meta.caldav"]
            if "caldav" in remote[name]:
                meta["caldav"] = remote[name]["caldav"]
            else:
                meta.pop("caldav", None)
            result[name] = meta
        else:
            result[name] = _merge_value(name, was if base is not None else _never, local[name], remote[name], conflicts)
    if result["done"]:
        result["startedAt"] = None
    if conflicts:
        result["notes"] = conflict_note(result["notes"], conflicts)
    return Merged(result, conflicts)


class _Never:
    def __eq__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return 0


_never = _Never()


def conflict_note(notes: str, conflicts: list[tuple[str, Any]]) -> str:
    lines = []
    for name, value in conflicts:
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"caldav conflict: the server's {name} was: {shown}")
    text = (notes + "\n\n" if notes else "") + "\n".join(lines)
    return text[:65536]
