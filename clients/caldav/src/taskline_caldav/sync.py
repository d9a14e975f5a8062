"""One sync of a Taskline database with a CalDAV collection, both ways.

1. Read what changed in Taskline since the state's seq (`tasks/changes`; everything with
   `tasks/fetch` on the first run or when the log no longer reaches back), and on the
   server since the state's sync token (RFC 6578 `sync-collection`; where a server lacks it
   the `caldav` package lists every object, and only those whose ETag differs from the
   state's are read).
2. For every item changed on either side, merge field by field against the state
   (merge.py), then write each side that differs: Taskline with `ifVersion`, the server with
   `If-Match` (`If-None-Match: *` for a new object), so that a concurrent edit is never
   overwritten blind: it fails the write, the item is left as it was in the state, and the
   next sync merges it.
3. Save the state (state.py), only with what both sides confirmed.

Recurring tasks: Taskline makes a new task for each occurrence. A completion that comes from
the server in any of the shapes clients write (STATUS:COMPLETED, a DUE moved on by the
rule on the same UID, a completed instance beside the series, or the RRULE stripped and the
next occurrence sent as a new VTODO) completes the Taskline task once, and the one next
occurrence Taskline makes is what the server gets (or is linked to the VTODO the client
sent for it). docs/caldav.md, "Recurring tasks".
"""

from __future__ import annotations

import sys
import urllib.parse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from caldav.davclient import DAVClient
from caldav.elements import dav
from caldav.lib import error as dav_error
from taskline_client import Client, HistoryExpired, ServerError, TaskAlreadyExists, TaskNotFound, VersionConflict

from .mapping import BadItem, Fields, Parsed, create_params, from_ics, task_fields, task_id_for_uid, to_ics
from .merge import merge
from .state import Item, State, state_path

_BATCH = 500


class SyncError(Exception):
    """A failure that ends the sync (the server refused the credentials, is unreachable)."""


@dataclass
class Report:
    pushed: int = 0
    pulled: int = 0
    deleted_local: int = 0
    deleted_remote: int = 0
    conflicts: int = 0
    skipped: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.pulled} from the server, {self.pushed} to it, {self.deleted_local} deleted here, "
            f"{self.deleted_remote} deleted there, {self.conflicts} conflicts, {len(self.skipped)} skipped"
        )


@dataclass
class _Remote:
    """An object on the server as this sync saw it."""

    href: str
    etag: str | None
    parsed: Parsed


def warn(message: str) -> None:
    print(f"taskline-caldav: {message}", file=sys.stderr, flush=True)


def open_collection(url: str, user: str, password: str, insecure: bool, auth: str = "basic") -> Any:
    """The collection. `auth` "basic" sends the credentials with the first request (over
    HTTPS, what Nextcloud, Fastmail and iCloud take), sparing a refused request each time,
    which servers such as Radicale answer slowly on purpose; "auto" asks the server first."""
    client: Any = DAVClient(
        url=url,
        username=user,
        password=password,
        ssl_verify_cert=not insecure,
        auth_type=None if auth == "auto" else auth,
    )
    return client.calendar(url=url)


class Sync:
    def __init__(self, client: Client, calendar: Any, collection_url: str, user: str) -> None:
        self.client = client
        self.calendar = calendar
        self.dav = calendar.client
        self.url = collection_url if collection_url.endswith("/") else collection_url + "/"
        self.state = State.load(
            state_path(client.server_info.database_id, self.url, user), client.server_info.database_id, self.url
        )
        self.report = Report()
        self.uid_by_task: dict[str, str] = {item.task_id: uid for uid, item in self.state.items.items()}
        #: The objects this sync made on the server, by href: their ETags.
        self.created: dict[str, str | None] = {}

    # --- Reading ---

    def _local_changes(self) -> tuple[dict[str, dict[str, Any] | None], bool, int]:
        """Tasks changed since the state's seq (None: deleted), whether that is all of them,
        and the seq read up to."""
        if self.state.seq is not None:
            try:
                changed: dict[str, dict[str, Any] | None] = {}
                seq = self.state.seq
                while True:
                    page = self.client.request("tasks/changes", {"since": seq, "limit": 1000})
                    for change in page["changes"]:
                        changed[change["id"]] = None if change["kind"] == "deleted" else change.get("task")
                    seq = page["seq"]
                    if not page["hasMore"]:
                        return changed, False, seq
            except HistoryExpired:
                warn("Taskline's change log no longer reaches back to the last sync: comparing every task")
        seq_holder: list[int] = []
        tasks: dict[str, dict[str, Any] | None] = {task["id"]: task for task in all_tasks(self.client, seq_holder)}
        return tasks, True, seq_holder[0]

    def _remote_changes(self) -> tuple[dict[str, _Remote | None], str | None]:
        """Objects changed on the server since the state's token, by UID (None: deleted)."""
        try:
            result = self.calendar.get_objects_by_sync_token(self.state.sync_token, load_objects=False)
        except dav_error.AuthorizationError as failure:
            raise SyncError(f"the server refused the credentials ({_reason(failure)})") from None
        except (dav_error.DAVError, OSError) as failure:
            raise SyncError(f"cannot read {self.url}: {_reason(failure)}") from None
        token = result.sync_token
        full = self.state.sync_token is None or str(token).startswith("fake-")
        uid_by_href = {item.href: uid for uid, item in self.state.items.items()}
        changed: dict[str, _Remote | None] = {}
        listed: set[str] = set()
        to_load: list[Any] = []
        deleted = {_path(url) for url in getattr(result, "deleted_urls", None) or ()}
        for obj in result.objects:
            href = _path(obj.url)
            if href in deleted:
                continue  # Xandikos lists a deleted object among the changed ones too
            listed.add(href)
            etag = (getattr(obj, "props", None) or {}).get(dav.GetEtag.tag)
            uid = uid_by_href.get(href)
            if uid is not None and etag is not None and self.state.items[uid].etag == etag:
                continue
            to_load.append(obj.url)
        if full:
            deleted |= set(uid_by_href) - listed
        for href in deleted:
            uid = uid_by_href.get(href)
            if uid is not None:
                changed[uid] = None
        for start in range(0, len(to_load), _BATCH):
            for remote in self._load(to_load[start : start + _BATCH]):
                changed[remote.parsed.uid] = remote
        return changed, token

    def _token_after_writes(self, token: str | None) -> str | None:
        """The token for the next sync. RFC 6578 lets a server leave out of a later answer an
        object made and deleted since the token (Xandikos does): so when this sync made
        objects, the token is taken again after them, if the server's answer shows exactly
        this sync's writes; else the next sync lists the whole collection (None)."""
        if not self.created or token is None or str(token).startswith("fake-"):
            return token
        try:
            result = self.calendar.get_objects_by_sync_token(token, load_objects=False)
        except (dav_error.DAVError, OSError):
            return None
        etags = {item.href: item.etag for item in self.state.items.values()}
        gone = {_path(url) for url in getattr(result, "deleted_urls", None) or ()}
        for obj in result.objects:
            href = _path(obj.url)
            etag = (getattr(obj, "props", None) or {}).get(dav.GetEtag.tag)
            if href not in gone and (etag is None or etags.get(href) != etag):
                return None  # another client wrote meanwhile
        if any(href in gone or href not in etags for href in self.created):
            return None
        new_token: str | None = result.sync_token
        return None if str(new_token).startswith("fake-") else new_token

    def _load(self, urls: list[Any]) -> Iterator[_Remote]:
        try:
            objects = self.calendar.multiget(urls)
        except dav_error.DAVError:
            # A server without calendar-multiget: one GET each.
            objects = []
            for url in urls:
                try:
                    objects.append(self.calendar.event_by_url(url))  # any component
                except dav_error.NotFoundError:
                    continue  # deleted since it was listed: the next sync hears of it
        for obj in objects:
            href = _path(obj.url)
            etag = (getattr(obj, "props", None) or {}).get(dav.GetEtag.tag)
            data = obj.data
            if not data:
                continue  # deleted since it was listed: the next sync hears of it
            try:
                parsed = from_ics(data, id_of=self._task_id_of, name=href)
            except BadItem as bad:
                self._skip(href, str(bad))
                continue
            yield _Remote(href=href, etag=etag, parsed=parsed)

    def _task_id_of(self, uid: str) -> str:
        item = self.state.items.get(uid)
        return item.task_id if item else task_id_for_uid(uid)

    def _uid_of(self, task_id: str) -> str:
        return self.uid_by_task.get(task_id, task_id)

    def _skip(self, name: str, why: str) -> None:
        self.report.skipped.append(name)
        warn(f"skipped {name}: {why}")

    # --- Writing to the server ---

    def _href_for(self, uid: str) -> str:
        return self.url + urllib.parse.quote(uid, safe="") + ".ics"

    def _put(self, uid: str, task: dict[str, Any], fields: Fields, href: str | None, etag: str | None) -> Item | None:
        """Writes the task's object; the state's item for it, or None when the server refused."""
        body = to_ics(
            fields,
            uid=uid,
            task_id=task["id"],
            uid_of=self._uid_of,
            created_at=task.get("createdAt"),
            updated_at=task.get("updatedAt"),
            completed_at=task.get("completedAt"),
        )
        headers = {"Content-Type": "text/calendar; charset=utf-8"}
        if href is None or etag is None:
            href = href or self._href_for(uid)
            headers["If-None-Match"] = "*"
        else:
            headers["If-Match"] = etag
        response = self.dav.put(_absolute(self.url, href), body, headers)
        if not self._accepted(uid, "PUT", response, (200, 201, 204)):
            return None
        self.report.pushed += 1
        item = Item(href=_path(href), etag=response.headers.get("ETag"), task_id=task["id"], fields=fields)
        if "If-None-Match" in headers:
            self.created[item.href] = item.etag
        return item

    def _delete_remote(self, uid: str, item: Item) -> bool:
        headers = {"If-Match": item.etag} if item.etag else {}
        response = self.dav.delete(_absolute(self.url, item.href), headers)
        if not self._accepted(uid, "DELETE", response, (200, 204, 404)):
            return False
        self.report.deleted_remote += 1
        return True

    def _accepted(self, uid: str, method: str, response: Any, fine: tuple[int, ...]) -> bool:
        """Whether the server did the write; 412: the object changed since it was read."""
        if response.status == 412:
            warn(f"{uid} changed on the server during the sync; the next sync merges it")
            return False
        if response.status not in fine:
            self._skip(uid, f"the server answered {method} with {response.status} {response.reason}")
            return False
        return True

    # --- Writing to Taskline ---

    def _changes(self, old: Fields, new: Fields) -> dict[str, Any]:
        changes: dict[str, Any] = {}
        for name, value in new.items():
            if old.get(name) != value:
                changes[name] = {"rule": value} if name == "recurrence" and value else value
        if changes.get("meta") == {}:
            changes["meta"] = None
        return changes

    def _update_local(self, task: dict[str, Any], fields: Fields) -> dict[str, Any] | None:
        changes = self._changes(task_fields(task), fields)
        if not changes:
            return task
        try:
            result: dict[str, Any] = self.client.request(
                "tasks/update", {"id": task["id"], "changes": changes, "ifVersion": task["version"]}
            )
        except VersionConflict:
            warn(f"{task['id']} changed in Taskline during the sync; the next sync merges it")
            return None
        except ServerError as refused:
            self._skip(task["id"], f"Taskline refused the server's version: {refused}")
            return None
        self.report.pulled += 1
        return result

    def _get(self, task_id: str) -> dict[str, Any] | None:
        try:
            task: dict[str, Any] = self.client.request("tasks/get", {"id": task_id})
            return task
        except TaskNotFound:
            return None

    # --- The sync ---

    def run(self) -> Report:
        local_changed, local_full, seq = self._local_changes()
        remote_changed, token = self._remote_changes()
        uids: list[str] = []
        seen: set[str] = set()
        for uid in [*remote_changed, *(self._uid_of(task_id) for task_id in local_changed)]:
            if uid not in seen:
                seen.add(uid)
                uids.append(uid)
        if local_full:
            for uid, item in self.state.items.items():
                if item.task_id not in local_changed and uid not in seen:
                    seen.add(uid)
                    uids.append(uid)
                    local_changed[item.task_id] = None
        new_remote: list[_Remote] = []
        new_local: list[dict[str, Any]] = []
        completed_series: list[dict[str, Any]] = []
        for uid in uids:
            base = self.state.items.get(uid)
            remote = remote_changed[uid] if uid in remote_changed else _unchanged(base)
            if base is not None:
                task_id = base.task_id
            elif remote is not None:
                task_id = remote.parsed.task_id
            else:
                task_id = uid
            if task_id in local_changed:
                local = local_changed[task_id]
            elif base is not None or remote is not None:
                local = self._get(task_id)
            else:
                local = None
            if base is None and local is None and remote is not None:
                new_remote.append(remote)
            elif base is None and local is not None and remote is None:
                new_local.append(local)
            else:
                self._sync_item(uid, base, local, remote, completed_series)
        self._pull_new(new_remote, completed_series)
        # The next occurrences no VTODO stood for, and what only Taskline has.
        self._push_new([*completed_series, *new_local])
        self.state.seq = seq
        self.state.sync_token = self._token_after_writes(token)
        self.state.save()
        return self.report

    def _sync_item(
        self,
        uid: str,
        base: Item | None,
        local: dict[str, Any] | None,
        remote: _Remote | None,
        completed_series: list[dict[str, Any]],
    ) -> None:
        if local is None and remote is None:
            self.state.items.pop(uid, None)
            return
        if base is not None and local is None and remote is not None:
            if remote.parsed.fields == base.fields or remote.etag == base.etag:
                if self._delete_remote(uid, base):
                    self.state.items.pop(uid, None)
                return
            # Deleted here, changed there: the change is kept (nothing lost).
            self.state.items.pop(uid, None)
            self._pull_new([remote], completed_series)
            return
        if base is not None and remote is None and local is not None:
            if task_fields(local) == base.fields:
                try:
                    self.client.request("tasks/delete", {"id": local["id"], "ifVersion": local["version"]})
                    self.report.deleted_local += 1
                    self.state.items.pop(uid, None)
                except VersionConflict:
                    warn(f"{local['id']} changed in Taskline during the sync; the next sync merges it")
                except TaskNotFound:
                    self.state.items.pop(uid, None)
                return
            # Deleted there, changed here: the task goes back to the server.
            self.state.items.pop(uid, None)
            self._push_new([local])
            return
        assert local is not None and remote is not None
        local_fields = task_fields(local)
        remote_fields = dict(remote.parsed.fields)
        base_fields = base.fields if base is not None else None
        completes = self._completion_from_server(base_fields, local_fields, remote)
        if completes is not None:
            remote_fields = completes
        if remote.parsed.rule_stripped and base_fields is not None:
            remote_fields["recurrence"] = base_fields["recurrence"]
        merged = merge(base_fields, local_fields, remote_fields)
        if merged.conflicts:
            self.report.conflicts += 1
            warn(f"{uid}: both sides changed {', '.join(name for name, _ in merged.conflicts)}; kept Taskline's")
        task = local
        if merged.fields != local_fields:
            updated = self._update_local(local, merged.fields)
            if updated is None:
                return
            task = updated
            if merged.fields["done"] and not local_fields["done"] and merged.fields["recurrence"]:
                following = self._next_occurrence(task)
                if following is not None:
                    completed_series.append(following)
        if task_fields(task) != merged.fields:
            merged.fields.update(task_fields(task))
        item: Item | None = Item(href=remote.href, etag=remote.etag, task_id=task["id"], fields=merged.fields)
        if merged.fields != remote.parsed.fields or completes is not None:
            item = self._put(uid, task, merged.fields, remote.href, remote.etag)
        if item is not None:
            self.state.items[uid] = item
            self.uid_by_task[task["id"]] = uid

    def _completion_from_server(self, base: Fields | None, local: Fields, remote: _Remote) -> Fields | None:
        """The server's fields as a plain completion, when the server completed an open
        occurrence the way a client that keeps one VTODO per series does: Tasks.org moves
        the DUE on by the rule on the same UID; Thunderbird writes a completed instance
        beside the series. None when it did not."""
        if base is None or base["done"] or not base["recurrence"] or local["done"] or local["due"] != base["due"]:
            return None
        fields = remote.parsed.fields
        moved = not fields["done"] and fields["recurrence"] and fields["due"] != base["due"]
        moved = bool(moved) and _later(fields["due"], base["due"])
        if not (moved or remote.parsed.instance_completed):
            return None
        completed = dict(fields)
        completed["done"] = True
        completed["due"] = base["due"]
        completed["recurrence"] = base["recurrence"]
        completed["startedAt"] = None
        return completed

    def _pull_new(self, remotes: list[_Remote], spawned: list[dict[str, Any]]) -> None:
        """Creates in Taskline what the server has that Taskline never had. `spawned` are the
        next occurrences this sync's completions made: a new recurring VTODO that is one of
        them (a bridge sent the next occurrence itself) is linked to it, not made again."""
        creations: list[tuple[_Remote, dict[str, Any]]] = []
        for remote in remotes:
            twin = _twin(remote.parsed.fields, spawned)
            if twin is not None:
                spawned.remove(twin)
                updated = self._update_local(twin, {**task_fields(twin), **_visible(remote.parsed.fields)})
                if updated is not None:
                    self._record(remote, updated)
                continue
            creations.append((remote, create_params(remote.parsed.task_id, remote.parsed.fields)))
        for start in range(0, len(creations), _BATCH):
            chunk = creations[start : start + _BATCH]
            results = self.client.request(
                "tasks/apply", {"operations": [{"create": params} for _, params in chunk], "atomic": False}
            )["results"]
            for (remote, _), result in zip(chunk, results):
                if "error" in result:
                    if result["error"].get("code") == TaskAlreadyExists.code:
                        existing = self._get(remote.parsed.task_id)
                        if existing is not None:
                            self._sync_item(remote.parsed.uid, None, existing, remote, spawned)
                        continue
                    self._skip(remote.href, f"Taskline refused it: {result['error'].get('message')}")
                    continue
                self.report.pulled += 1
                self._record(remote, result["result"])
        # Dependencies, once every task they name exists.
        for remote, _ in creations:
            wanted = remote.parsed.fields["dependsOn"]
            item = self.state.items.get(remote.parsed.uid)
            task = self._get(item.task_id) if wanted and item is not None else None
            if item is None or task is None:
                continue
            present = [task_id for task_id in wanted if self._get(task_id) is not None]
            updated = self._update_local(task, {**task_fields(task), "dependsOn": present})
            if updated is not None:
                item.fields = task_fields(updated)

    def _next_occurrence(self, completed: dict[str, Any]) -> dict[str, Any] | None:
        """The occurrence Taskline made when this sync completed `completed`."""
        page = self.client.request("tasks/fetch", {"filter": {"done": False, "text": completed["title"]}, "limit": 100})
        for task in page["tasks"]:
            if (
                task.get("seriesId") == completed.get("seriesId")
                and task["id"] != completed["id"]
                and task["id"] not in self.uid_by_task
            ):
                return dict(task)
        return None

    def _record(self, remote: _Remote, task: dict[str, Any]) -> None:
        self.state.items[remote.parsed.uid] = Item(
            href=remote.href, etag=remote.etag, task_id=task["id"], fields=task_fields(task)
        )
        self.uid_by_task[task["id"]] = remote.parsed.uid

    def _push_new(self, tasks: Iterable[dict[str, Any]]) -> None:
        """Sends the server what Taskline has that the server never had."""
        for task in tasks:
            uid = self._uid_of(task["id"])
            if uid in self.state.items and self.state.items[uid].task_id == task["id"]:
                continue
            item = self._put(uid, task, task_fields(task), None, None)
            if item is not None:
                self.state.items[uid] = item
                self.uid_by_task[task["id"]] = uid


def all_tasks(client: Client, seq: list[int] | None = None) -> list[dict[str, Any]]:
    """Every task, page by page; `seq`, if given, gets the seq of the first page's snapshot."""
    tasks: list[dict[str, Any]] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": client.server_info.max_fetch_limit}
        if cursor:
            params["cursor"] = cursor
        page = client.request("tasks/fetch", params)
        if cursor is None and seq is not None:
            seq.append(page["seq"])
        tasks += page["tasks"]
        cursor = page.get("nextCursor")
        if not cursor:
            return tasks


def _unchanged(base: Item | None) -> _Remote | None:
    if base is None:
        return None
    return _Remote(href=base.href, etag=base.etag, parsed=Parsed(uid="", task_id=base.task_id, fields=base.fields))


def _twin(fields: Fields, spawned: list[dict[str, Any]]) -> dict[str, Any] | None:
    if fields["done"] or not fields["recurrence"]:
        return None
    return next((t for t in spawned if t["title"] == fields["title"] and t["due"] == fields["due"]), None)


def _visible(fields: Fields) -> Fields:
    """What a client that sends the next occurrence itself may have changed on it."""
    return {name: fields[name] for name in ("title", "notes", "tags", "priority", "due", "project")}


def _later(after: str | None, before: str | None) -> bool:
    return bool(after and before and after[:10] > before[:10])


def _path(url: Any) -> str:
    return urllib.parse.unquote(urllib.parse.urlsplit(str(url)).path)


def _absolute(collection: str, href: str) -> str:
    if href.startswith("http://") or href.startswith("https://"):
        return href
    parts = urllib.parse.urlsplit(collection)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, urllib.parse.quote(href), "", ""))


def _reason(failure: BaseException) -> str:
    text = str(failure).strip().splitlines()
    return text[0] if text else type(failure).__name__
