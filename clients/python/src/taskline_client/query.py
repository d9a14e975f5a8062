"""What `fetch` and `iter_tasks` select and how they order it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .timestamps import DueInput, format_due

SortField = Literal["created_at", "updated_at", "due", "priority", "title"]


@dataclass(frozen=True)
class Filter:
    """Conditions combined with AND; None means "do not filter on this".

    `text` must occur in the title or the notes (case-insensitively);
    `due_after <= due < due_before`; a task matches `tags` when it has all of them.
    """

    done: bool | None = None
    tags: Sequence[str] | None = None
    text: str | None = None
    due_after: DueInput | None = None
    due_before: DueInput | None = None
    ids: Sequence[str] | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {}
        if self.done is not None:
            wire["done"] = self.done
        if self.tags is not None:
            wire["tags"] = list(self.tags)
        if self.text is not None:
            wire["text"] = self.text
        if self.due_after is not None:
            wire["dueAfter"] = format_due(self.due_after)
        if self.due_before is not None:
            wire["dueBefore"] = format_due(self.due_before)
        if self.ids is not None:
            wire["ids"] = list(self.ids)
        return wire


@dataclass(frozen=True)
class SortKey:
    field: SortField
    order: Literal["asc", "desc"] = "asc"

    def to_wire(self) -> dict[str, str]:
        head, *rest = self.field.split("_")
        return {"field": head + "".join(word.capitalize() for word in rest), "order": self.order}
