"""The TUI's copy of the database: every task, kept current from notifications,
and caught up from its `seq` after a reconnect."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..client import Client
from ..errors import HistoryExpired
from ..models import Change, Task
from .view import is_waiting

_PAGE_SIZE = 1000


def hidden_by_default(task: Task, now: datetime) -> bool:
    """The tasks `h` reveals: the done ones, and those not actionable yet (their `wait` is to come)."""
    return task.done or is_waiting(task, now)


def in_project(task: Task, project: str) -> bool:
    """`Home` holds `Home` and every `Home.…`, not `Homework`."""
    return task.project is not None and (task.project == project or task.project.startswith(project + "."))


@dataclass(frozen=True)
class View:
    """What the list shows: matching tasks oldest first, and how many match but are hidden."""

    tasks: list[Task]
    hidden: int


class TaskCopy:
    def __init__(self) -> None:
        self.tasks: dict[str, Task] = {}
        self.database_id: str | None = None
        self.seq = 0  # the seq this copy is up to date with

    def apply(self, change: Change) -> None:
        """Apply a notified change; ones a reload or catch-up applied already are skipped."""
        if change.seq <= self.seq:
            return
        if change.task is None:
            self.tasks.pop(change.id, None)
        else:
            self.tasks[change.id] = change.task
        self.seq = change.seq

    def sync(self, client: Client) -> None:
        """Catch up with the changes since `seq`; reload when that is impossible
        (another database file, or changes older than the server keeps)."""
        if self.database_id == client.server_info.database_id:
            try:
                self._replay(client, self.seq)
                return
            except HistoryExpired:
                pass
        self._reload(client)

    def view(self, text: str, tag: str, project: str, show_hidden: bool, now: datetime) -> View:
        folded = text.lower()
        matching = [
            task
            for task in self.tasks.values()
            if (not tag or tag in task.tags)
            and (not project or in_project(task, project))
            and (not folded or folded in task.title.lower() or folded in task.notes.lower())
        ]
        matching.sort(key=lambda task: (task.created_at, task.id.encode()))
        shown = matching if show_hidden else [task for task in matching if not hidden_by_default(task, now)]
        return View(shown, len(matching) - len(shown))

    def _reload(self, client: Client) -> None:
        page = client.fetch(limit=_PAGE_SIZE)
        since = page.seq
        tasks = {task.id: task for task in page.tasks}
        while page.next_cursor is not None:
            page = client.fetch(limit=_PAGE_SIZE, cursor=page.next_cursor)
            tasks.update((task.id, task) for task in page.tasks)
        self.tasks, self.database_id = tasks, client.server_info.database_id
        self._replay(client, since)

    def _replay(self, client: Client, since: int) -> None:
        self.seq = since
        for change in client.iter_changes(since, page_size=_PAGE_SIZE):
            self.apply(change)
