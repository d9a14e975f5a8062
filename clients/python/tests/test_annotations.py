"""Annotations and `started_at` through the client."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable

import pytest

from taskline_client import Annotation, Client, InvalidParams


def test_annotations_added_by_two_clients_are_both_kept(open_client: Callable[..., Client]) -> None:
    first, second = open_client(), open_client()
    task = first.create("call the garage", annotations=[{"text": "no answer", "at": "2026-01-02T09:00:00Z"}])
    second.update(task.id, add_annotations=[{"text": "asked for a quote"}])
    new_year = datetime(2026, 1, 1, tzinfo=timezone.utc)
    after = first.update(task.id, add_annotations=[{"text": "earlier", "at": new_year}])
    assert [annotation.text for annotation in after.annotations] == ["earlier", "no answer", "asked for a quote"]
    assert after.annotations[0] == Annotation(at=new_year, text="earlier")
    removed = first.update(task.id, remove_annotations=[after.annotations[1]])
    assert [annotation.text for annotation in removed.annotations] == ["earlier", "asked for a quote"]
    with pytest.raises(InvalidParams) as refused:
        first.update(task.id, remove_annotations=[after.annotations[1]])
    assert refused.value.field == "changes.removeAnnotations[0]"


def test_started_at_is_set_and_cleared_by_completion(client: Client) -> None:
    task = client.create("write", started_at="2026-03-01T10:00:00+01:00")
    assert task.started_at == datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
    assert client.update(task.id, started_at=None).started_at is None
    client.update(task.id, started_at=datetime(2026, 3, 2, tzinfo=timezone.utc))
    done = client.update(task.id, done=True)
    assert done.started_at is None and done.annotations == ()
