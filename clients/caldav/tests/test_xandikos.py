"""The scenarios of test_sync and test_recurrence against a second server, Xandikos, which
stores and answers differently from Radicale, over HTTPS with a self-signed certificate:
certificate checking is on unless --insecure says otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_recurrence
import test_sync
from conftest import DavServer, fresh_collection
from support import run_sync


@pytest.fixture
def elsewhere(xandikos: DavServer) -> str:
    return fresh_collection(xandikos)


def test_the_certificate_is_checked_unless_insecure_says_not(server: str, elsewhere: str, tmp_path: Path) -> None:
    db = tmp_path / "tasks.sqlite"
    refused = run_sync(server, db, elsewhere, check=False, insecure=False)
    assert refused.returncode == 1
    assert "certificate" in refused.stderr.lower()
    allowed = run_sync(server, db, elsewhere, insecure=True)
    assert "--insecure" in allowed.stderr and "NOT checked" in allowed.stderr


@pytest.mark.parametrize(
    "scenario",
    [
        test_sync.test_every_field_goes_to_the_server_and_into_another_database,
        test_sync.test_a_task_written_by_another_client_reaches_taskline_and_keeps_its_properties,
        test_sync.test_creation_completion_and_deletion_on_the_server_are_picked_up,
        test_sync.test_a_deletion_in_taskline_deletes_on_the_server_and_nothing_comes_back,
        test_sync.test_offline_edits_on_both_sides_merge_field_by_field,
        test_sync.test_both_sides_changing_one_field_keeps_taskline_s_and_notes_the_server_s,
        test_sync.test_two_databases_converge_through_one_collection,
        test_sync.test_a_wrong_password_is_a_clear_error,
        test_recurrence.test_completed_in_taskline,
        test_recurrence.test_tasks_org_moves_the_due_on_the_same_uid,
        test_recurrence.test_thunderbird_writes_a_completed_instance_beside_the_series,
        test_recurrence.test_a_bridge_strips_the_rule_and_sends_the_next_occurrence_itself,
    ],
    ids=lambda scenario: scenario.__name__.removeprefix("test_"),
)
def test_on_xandikos(scenario: object, server: str, elsewhere: str, tmp_path: Path) -> None:
    assert callable(scenario)
    scenario(server, elsewhere, tmp_path)
