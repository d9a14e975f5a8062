"""undo() and redo(): what they return, and UndoConflict for 1007."""

from __future__ import annotations

from typing import Any

import pytest

from taskline_client import ChangeGroup, Client, GroupKind, Reversal, UndoConflict


def test_undo_and_redo_revert_the_newest_group(client: Client) -> None:
    assert client.undo() is None
    task = client.create("Buy milk", tags=["errand"])
    client.update(task.id, done=True)
    undone = client.undo()
    assert isinstance(undone, Reversal)
    assert isinstance(undone.group, ChangeGroup)
    assert undone.group.kind is GroupKind.WRITE and undone.group.own
    assert [(t.id, t.done, t.version) for t in undone.tasks] == [(task.id, False, 3)]
    assert undone.deleted == ()
    redone = client.redo()
    assert redone is not None and redone.group.kind is GroupKind.UNDO
    assert redone.tasks[0].done
    assert client.redo() is None
    client.undo()
    undone_create = client.undo()
    assert undone_create is not None and undone_create.deleted == (task.id,)


def test_an_edit_by_another_connection_is_an_undo_conflict(client_options: dict[str, Any]) -> None:
    with Client(**client_options) as mine, Client(**client_options) as theirs:
        task = mine.create("mine")
        mine.update(task.id, title="mine, edited")
        theirs.update(task.id, notes="theirs")
        with pytest.raises(UndoConflict) as raised:
            mine.undo()
        assert raised.value.code == 1007
        assert [(t.id, t.notes) for t in raised.value.tasks] == [(task.id, "theirs")]
        assert raised.value.deleted == ()
        assert theirs.undo(scope="connection") is not None
        forced = mine.undo(force=True)
        assert forced is not None and forced.tasks[0].title == "mine"
        assert theirs.undo(scope="database", force=True) is not None
