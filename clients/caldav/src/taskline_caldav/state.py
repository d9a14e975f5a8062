"""What the last sync left: per database and collection, one JSON file.

    $XDG_STATE_HOME/taskline/caldav/<hash>.json   (~/.local/state when XDG_STATE_HOME is unset)

`<hash>` is made from the database's id (`initialize`'s `database.id`), the collection's URL
and the user name. The file holds the last Taskline seq read, the server's sync token, and
for each synced item its UID, href, ETag, task id and its fields as both sides last agreed
on them (the base of the three-way merge). An item in the state that one side no longer
has was deleted there (the state is the tombstone). It is written whole to a temporary
file, synced, and renamed over the old one, so a crash leaves the old state or the new.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT = 1


def state_folder() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "taskline" / "caldav"


def state_path(database_id: str, collection: str, user: str) -> Path:
    key = hashlib.sha256(f"{database_id}\n{collection}\n{user}".encode()).hexdigest()[:32]
    return state_folder() / f"{key}.json"


@dataclass
class Item:
    href: str
    etag: str | None
    task_id: str
    fields: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"href": self.href, "etag": self.etag, "taskId": self.task_id, "fields": self.fields}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Item:
        return cls(href=data["href"], etag=data.get("etag"), task_id=data["taskId"], fields=data["fields"])


@dataclass
class State:
    path: Path
    database_id: str
    collection: str
    seq: int | None = None
    sync_token: str | None = None
    items: dict[str, Item] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path, database_id: str, collection: str) -> State:
        state = cls(path=path, database_id=database_id, collection=collection)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return state
        except (ValueError, OSError) as error:
            message = f"taskline-caldav: cannot read the sync state {path} ({error}); move it away to sync afresh"
            raise SystemExit(message) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            shown = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise SystemExit(f"taskline-caldav: {path} is of another format ({shown}); move it away")
        state.seq = data.get("seq")
        state.sync_token = data.get("syncToken")
        state.items = {uid: Item.from_json(item) for uid, item in data.get("items", {}).items()}
        return state

    def save(self) -> None:
        data = {
            "format": FORMAT,
            "database": self.database_id,
            "collection": self.collection,
            "seq": self.seq,
            "syncToken": self.sync_token,
            "items": {uid: item.to_json() for uid, item in sorted(self.items.items())},
        }
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".state-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                # dumps, not dump: dump encodes piece by piece in Python, several times slower.
                file.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            os.unlink(temporary)
            raise
        folder = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
