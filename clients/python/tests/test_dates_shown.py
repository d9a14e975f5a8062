"""The TUI reads dates as protocol/dates.md says, held to the vectors every front-end is tested against."""

from __future__ import annotations

import json
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from conftest import REPOSITORY

from taskline_client.timestamps import parse_timestamp
from taskline_client.tui import view

VECTORS: list[dict[str, Any]] = json.loads(
    (REPOSITORY / "protocol" / "conformance" / "dates-shown.json").read_text(encoding="utf-8")
)["cases"]


def test_the_vectors_are_read() -> None:
    assert len(VECTORS) > 30


@pytest.mark.parametrize("case", VECTORS, ids=[case["name"] for case in VECTORS])
def test_a_date_reads_as_the_vectors_say(case: dict[str, Any]) -> None:
    zone = ZoneInfo(case["timeZone"])
    # `now` in a zone of its own: the reader's zone is the one given, not now's.
    now = parse_timestamp(case["now"])
    assert view.date_in_words(case["stored"], now, case["open"], zone) == case["shown"]
    assert (case["open"] and view.is_past(case["stored"], now, zone)) == case["overdue"]
