"""protocol/schema/taskline.schema.json accepts what the README shows and rejects what it forbids."""

import copy

import pytest

jsonschema = pytest.importorskip("jsonschema")

from replay.schema import SchemaChecker, definition_name

TASK = {
    "id": "0b3c5d2e-8f4e-4a57-9d3c-2b1f0e6a7c11",
    "title": "Write the spec",
    "notes": "",
    "done": False,
    "priority": 0,
    "tags": ["docs", "work"],
    "due": "2026-12-01T17:00:00+01:00",
    "project": "Work.Docs",
    "dependsOn": [],
    "wait": None,
    "meta": {"editor": {"folded": True}},
    "recurrence": None,
    "seriesId": None,
    "remindAt": "2026-12-01T09:00:00+01:00",
    "startedAt": None,
    "annotations": [],
    "createdAt": "2026-11-29T15:02:11.042Z",
    "updatedAt": "2026-11-29T15:02:11.042Z",
    "completedAt": None,
    "version": 1,
}


@pytest.fixture(scope="module")
def checker():
    return SchemaChecker()


def with_task(**changes):
    return {**copy.deepcopy(TASK), **changes}


def response(result):
    return {"jsonrpc": "2.0", "id": 1, "result": result}


def error(code, data=None, request_id=1):
    body = {"code": code, "message": "m"}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


def did_change(*changes):
    return {"jsonrpc": "2.0", "method": "tasks/didChange", "params": {"seq": 3, "changes": list(changes)}}


def did_miss_changes(params):
    return {"jsonrpc": "2.0", "method": "tasks/didMissChanges", "params": params}


def remind(*tasks):
    return {"jsonrpc": "2.0", "method": "tasks/remind", "params": {"tasks": list(tasks)}}


def test_the_schema_is_valid_draft_2020_12(checker):
    jsonschema.Draft202012Validator.check_schema(checker.schema)


def test_definition_names_follow_the_method_names():
    assert definition_name("tasks/create") == "tasksCreate"
    assert definition_name("$/cancelRequest") == "cancelRequest"
    assert definition_name("initialize") == "initialize"


@pytest.mark.parametrize(
    "message",
    [
        response(TASK),
        [response(None), error(1001, {"id": "x"})],
        error(-32700, {"reason": "r"}, request_id=None),
        error(-32602, {"field": "changes.priority", "reason": "r", "hint": "extra data members are allowed"}),
        error(-32002),
        error(-32800),
        error(1002, {"task": with_task(done=True, completedAt="2026-11-29T15:02:12.000Z")}),
        error(1004, {"kind": "busy", "code": 5, "extendedCode": 5, "message": "database is locked", "retryable": True}),
        error(
            1004,
            {
                "kind": "unreachable",
                "code": 14,
                "extendedCode": 14,
                "message": "PostgreSQL: the database is unreachable",
                "retryable": True,
            },
        ),
        error(4242, {"anything": True}),
        did_change(
            {"seq": 2, "kind": "created", "id": "a", "version": 1, "task": TASK},
            {"seq": 3, "kind": "deleted", "id": "a", "version": 1},
        ),
        {"jsonrpc": "2.0", "method": "tasks/someFutureNotification", "params": {"x": 1}},
        did_miss_changes({"since": 0, "seq": 2500, "reason": "backlog"}),
        did_miss_changes({"since": 1, "seq": 4, "reason": "historyExpired"}),
        {"jsonrpc": "2.0", "id": 18446744073709551616, "result": None},
        remind(TASK, with_task(id="b", remindAt="2026-12-01")),
    ],
)
def test_valid_server_messages(checker, message):
    assert checker.message_problem(message) is None


@pytest.mark.parametrize(
    "message, where",
    [
        (error(-32700, {"reason": "r"}), "$.id"),
        (error(-32002, {"reason": "no data is listed"}), "$.error"),
        (error(-32601, {"name": "x"}), "$.error.data"),
        (error(-32602, {"field": "x"}), "$.error.data"),
        (error(1001), "$.error"),
        (error(1004, {"code": 5, "message": "m"}), "$.error.data"),
        (error(1004, {"kind": "other", "code": 1, "extendedCode": 1, "message": "m", "retryable": "yes"}), "$.error.data.retryable"),
        (error(1004, {"kind": "lost", "code": 1, "extendedCode": 1, "message": "m", "retryable": False}), "$.error.data.kind"),
        ({"jsonrpc": "2.0", "id": 1, "result": None, "error": {"code": 1, "message": "m"}}, "$"),
        ({"jsonrpc": "2.0", "id": True, "result": None}, "$.id"),
        ([], "$"),
        (did_change({"seq": 3, "kind": "deleted", "id": "a", "version": 1, "task": TASK}), "$.params.changes[0]"),
        (did_change(), "$.params.changes"),
        (did_miss_changes({"since": 1, "seq": 4}), "$.params"),
        (did_miss_changes({"since": -1, "seq": 4, "reason": "backlog"}), "$.params.since"),
        (did_miss_changes({"since": 1, "seq": 0, "reason": "backlog"}), "$.params.seq"),
        ({**did_change({"seq": 1, "kind": "created", "id": "a", "version": 1}), "meta": {}}, "$"),
        (remind(), "$.params.tasks"),
        (remind(with_task(remindAt="tomorrow")), "$.params.tasks[0].remindAt"),
        ({"jsonrpc": "2.0", "method": "tasks/remind", "params": {}}, "$.params"),
    ],
)
def test_invalid_server_messages(checker, message, where):
    problem = checker.message_problem(message)
    assert problem is not None and f": {where}: " in problem, problem


@pytest.mark.parametrize(
    "task",
    [
        with_task(createdAt="2026-11-29T15:02:11Z"),
        with_task(updatedAt="2026-11-29T16:02:11.042+01:00"),
        with_task(due="2026-12-01T17:00:00"),
        with_task(done=True),
        with_task(completedAt="2026-11-29T15:02:11.042Z"),
        with_task(priority=4),
        with_task(tags=["a", "a"]),
        with_task(tags=["two words"]),
        with_task(title=" "),
        with_task(id="a\u0000"),
        with_task(notes="before\u0000after"),
        with_task(version=0),
        with_task(project="Home..Garage"),
        with_task(project=".Home"),
        with_task(project="Home."),
        with_task(project="Home Garage"),
        with_task(project="a.b.c.d.e.f.g.h.i"),
        with_task(dependsOn=["a", "a"]),
        with_task(dependsOn="a"),
        with_task(wait="tomorrow"),
        with_task(meta=None),
        with_task(meta=[1]),
        {key: value for key, value in TASK.items() if key != "notes"},
        {key: value for key, value in TASK.items() if key != "meta"},
        with_task(recurrence={"rule": "FREQ=DAILY"}, due=None),
        with_task(recurrence={"rule": "FREQ=SECONDLY"}),
        with_task(recurrence="FREQ=DAILY"),
        with_task(seriesId=""),
        {key: value for key, value in TASK.items() if key != "seriesId"},
    ],
)
def test_invalid_tasks(checker, task):
    assert checker.result_problem("tasks/get", task, "$") is not None


def test_recurring_tasks(checker):
    task = with_task(recurrence={"rule": "freq=monthly;BYDAY=-1fr,2MO;Until=20271231T235959Z"}, seriesId=TASK["id"])
    assert checker.result_problem("tasks/get", task, "$") is None
    create = checker.validator("tasksCreateParams")
    for rule in ["FREQ=DAILY", "INTERVAL=2;FREQ=WEEKLY;BYDAY=MO,TH", "FREQ=MONTHLY;BYMONTHDAY=1,-1;COUNT=0012", "FREQ=YEARLY;UNTIL=20270101"]:
        assert create.is_valid({"title": "t", "due": "2026-12-01", "recurrence": {"rule": rule}}), rule
    assert create.is_valid({"title": "t", "recurrence": None})
    assert checker.validator("tasksUpdateParams").is_valid({"id": "a", "changes": {"recurrence": None, "due": None}})


def test_tasks_may_gain_members(checker):
    assert checker.result_problem("tasks/get", with_task(estimate=3), "$") is None


def test_fetch_results(checker):
    assert checker.result_problem("tasks/fetch", {"tasks": [TASK], "nextCursor": None, "seq": 3, "total": 1}, "$") is None
    assert checker.result_problem("tasks/fetch", {"tasks": [TASK], "nextCursor": None}, "$") is not None
    assert checker.result_problem("tasks/fetch", {"tasks": [TASK]}, "$") is not None


@pytest.mark.parametrize(
    "definition, params",
    [
        ("tasksCreateParams", {"title": "t", "colour": "red"}),
        ("tasksCreateParams", {"notes": "no title"}),
        ("tasksCreateParams", {"title": "t", "notes": "a\u0000"}),
        ("tasksFetchParams", {"filter": {"text": "a\u0000"}}),
        ("tasksFetchParams", {"cursor": "c", "offset": 0}),
        ("tasksFetchParams", {"sort": [{"field": "title"}, {"field": "title", "order": "desc"}]}),
        ("tasksFetchParams", {"sort": []}),
        ("tasksFetchParams", {"limit": 1001}),
        ("tasksFetchParams", {"filter": {"ids": ["x"] * 1001}}),
        ("tasksUpdateParams", {"id": "x", "changes": {"priority": 7}}),
        ("tasksUpdateParams", {"id": "x", "changes": {"id": "y"}}),
        ("tasksDeleteParams", {"id": "x", "force": True}),
    ],
)
def test_params_are_closed_and_checked(checker, definition, params):
    assert not checker.validator(definition).is_valid(params)


@pytest.mark.parametrize(
    "message",
    [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": None, "initializationOptions": {"notifications": False}},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tasks/fetch",
            "params": {
                "filter": {"dueAfter": "2026-12-01", "dueBefore": "2026-12-01T17:00:00.5+01:00"},
                "sort": [{"field": "due", "order": "desc"}],
                "cursor": "c",
            },
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tasks/update",
            "params": {"id": "x", "changes": {"due": None, "tags": []}, "ifVersion": 3},
        },
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 2}},
        {"jsonrpc": "2.0", "id": 4, "method": "tasks/fetch", "traceId": "members beside the four are ignored"},
        {"jsonrpc": "2.0", "method": "exit", "meta": {}},
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "initialize",
            "params": {
                "processId": 2147483647,
                "clientInfo": {"name": "c", "version": None, "build": 7},
                "capabilities": None,
                "initializationOptions": {"theme": "dark", "notifications": None},
            },
        },
        {"jsonrpc": "2.0", "id": 6, "method": "initialize", "params": {"processId": 1.0, "clientInfo": None, "initializationOptions": None}},
        {"jsonrpc": "2.0", "id": 7, "method": "shutdown", "params": {"ignored": True}},
    ],
)
def test_valid_client_messages(checker, message):
    envelope = "request" if "id" in message else "notification"
    assert checker.validator(envelope).is_valid(message)


@pytest.mark.parametrize(
    "params",
    [
        {"processId": 0},
        {"processId": 2147483648},
        {"processId": 1.5},
        {"clientInfo": {"version": "1"}},
        {"clientInfo": {"name": "c", "version": 1}},
        {"capabilities": []},
        {"initializationOptions": {"notifications": "no", "theme": "dark"}},
        {"initializationOptions": {"reminders": "yes"}},
    ],
)
def test_bad_initialize_params(checker, params):
    assert not checker.validator("request").is_valid({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})


def test_shutdown_params_must_be_an_object(checker):
    assert not checker.validator("request").is_valid({"jsonrpc": "2.0", "id": 1, "method": "shutdown", "params": [1]})


def test_client_messages_are_checked_per_method(checker):
    assert not checker.validator("request").is_valid(
        {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": 1}}
    )
    assert not checker.validator("notification").is_valid({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {}})


CREATED = {"seq": 1, "kind": "created", "id": "a", "version": 1, "task": TASK}
TOMBSTONE = {"seq": 2, "kind": "deleted", "id": "a", "version": 1}


def test_a_notification_may_carry_several_changes(checker):
    assert checker.message_problem(did_change(CREATED, {**CREATED, "seq": 2, "kind": "updated"}, TOMBSTONE)) is None


@pytest.mark.parametrize(
    "result",
    [
        {"changes": [], "seq": 0, "hasMore": False},
        {"changes": [CREATED, TOMBSTONE], "seq": 2, "hasMore": True},
        {"changes": [{"seq": 1, "kind": "created", "id": "a", "version": 1}], "seq": 1, "hasMore": False},
        {"changes": [{**CREATED, "task": with_task(version=3)}], "seq": 1, "hasMore": False, "future": 1},
    ],
)
def test_changes_results(checker, result):
    assert checker.result_problem("tasks/changes", result, "$") is None


@pytest.mark.parametrize(
    "result",
    [
        {"changes": [], "seq": 0},
        {"changes": [], "seq": -1, "hasMore": False},
        {"changes": [{**TOMBSTONE, "task": TASK}], "seq": 2, "hasMore": False},
        {"changes": [{**CREATED, "kind": "moved"}], "seq": 1, "hasMore": False},
    ],
)
def test_bad_changes_results(checker, result):
    assert checker.result_problem("tasks/changes", result, "$") is not None


def test_another_process_change_may_come_without_its_task(checker):
    # The task was deleted before the server read the log; its `deleted` change follows.
    assert checker.message_problem(did_change(
        {"seq": 1, "kind": "created", "id": "a", "version": 1},
        {"seq": 2, "kind": "deleted", "id": "a", "version": 1},
    )) is None


@pytest.mark.parametrize(
    "message",
    [
        error(1005, {"oldestSeq": 7}),
        error(1006, {"cycle": ["a", "b"]}),
        error(1006, {"cycle": ["a"], "operation": 2}),
        error(1001, {"id": "x", "operation": 2}),
        error(1002, {"task": TASK, "operation": 0}),
        error(1003, {"id": "x", "operation": 999}),
        error(1004, {"kind": "busy", "code": 5, "extendedCode": 5, "message": "database is locked", "retryable": True, "operation": 1}),
    ],
)
def test_new_error_data(checker, message):
    assert checker.message_problem(message) is None


@pytest.mark.parametrize(
    "message",
    [
        error(1005),
        error(1005, {"oldest": 7}),
        error(1005, {"oldestSeq": "7"}),
        error(1001, {"id": "x", "operation": -1}),
        error(1006),
        error(1006, {"cycle": []}),
        error(1006, {"cycle": "a"}),
    ],
)
def test_bad_new_error_data(checker, message):
    assert checker.message_problem(message) is not None


def test_apply_results(checker):
    result = {
        "results": [
            {"result": TASK},
            {"result": {"id": "a", "deleted": True}},
            {"error": {"code": 1001, "message": "m", "data": {"id": "b"}}},
            {"error": {"code": -32602, "message": "m", "data": {"field": "operations[3].create.title", "reason": "r"}}},
        ]
    }
    assert checker.result_problem("tasks/apply", result, "$") is None
    for bad in (
        {"results": []},
        {"results": [{}]},
        {"results": [{"result": TASK, "error": {"code": 1001, "message": "m", "data": {"id": "b"}}}]},
        {"results": [{"error": {"code": 1001, "message": "m"}}]},
        {"results": [{"result": None}]},
    ):
        assert checker.result_problem("tasks/apply", bad, "$") is not None, bad


@pytest.mark.parametrize(
    "definition, params",
    [
        ("tasksChangesParams", {"since": 0, "limit": None}),
        ("tasksApplyParams", {"operations": [{"create": {"title": "t"}}], "atomic": None}),
        (
            "tasksApplyParams",
            {"operations": [{"update": {"id": "a", "changes": {"due": None}}}, {"delete": {"id": "a"}}]},
        ),
        ("tasksApplyParams", {"operations": [{"create": {"title": "t"}}] * 1000}),
        ("tasksCreateParams", {"title": "t", "notes": None, "done": None, "priority": None, "tags": None, "id": None}),
        ("tasksFetchParams", {"filter": {"done": None, "tags": None, "text": None, "ids": None}, "sort": None}),
        ("tasksFetchParams", {"cursor": None, "offset": 1, "limit": None, "includeTotal": None}),
        ("tasksFetchParams", {"sort": [{"field": "title", "order": None}]}),
        ("tasksUpdateParams", {"id": "a", "changes": {"due": None}, "ifVersion": None}),
        ("tasksDeleteParams", {"id": "a", "ifVersion": None}),
    ],
)
def test_null_means_absent_for_optional_members(checker, definition, params):
    assert checker.validator(definition).is_valid(params)


@pytest.mark.parametrize(
    "definition, params",
    [
        ("tasksChangesParams", {}),
        ("tasksChangesParams", {"since": None}),
        ("tasksChangesParams", {"since": -1}),
        ("tasksChangesParams", {"since": 0, "limit": 1001}),
        ("tasksChangesParams", {"since": 0, "cursor": "c"}),
        ("tasksApplyParams", {"operations": []}),
        ("tasksApplyParams", {"operations": [{"create": {"title": "t"}}] * 1001}),
        ("tasksApplyParams", {"operations": [{}]}),
        ("tasksApplyParams", {"operations": [{"create": {"title": "t"}, "delete": {"id": "a"}}]}),
        ("tasksApplyParams", {"operations": [{"upsert": {"title": "t"}}]}),
        ("tasksApplyParams", {"operations": [{"update": {"id": "a", "changes": {"priority": 9}}}]}),
        ("tasksApplyParams", {"operations": [{"create": {"title": "t"}}], "atomic": "yes"}),
        ("tasksUpdateParams", {"id": "a", "changes": {"title": None}}),
        ("tasksUpdateParams", {"id": "a", "changes": {"tags": None}}),
        ("tasksUpdateParams", {"id": "a", "changes": None}),
        ("tasksCreateParams", {"title": None}),
    ],
)
def test_bad_params_of_the_new_methods_and_nulls_that_are_refused(checker, definition, params):
    assert not checker.validator(definition).is_valid(params)


def test_requests_of_the_new_methods_are_checked(checker):
    request = checker.validator("request")
    assert request.is_valid({"jsonrpc": "2.0", "id": 1, "method": "tasks/changes", "params": {"since": 3}})
    assert not request.is_valid({"jsonrpc": "2.0", "id": 1, "method": "tasks/changes"})
    assert not request.is_valid({"jsonrpc": "2.0", "id": 1, "method": "tasks/apply", "params": {"operations": [{}]}})


@pytest.mark.parametrize(
    "params",
    [
        {"atomic": False, "operations": [5, None, {}, {"create": {"title": 5}}, {"upsert": {}}, {"create": {}, "delete": {}}]},
        {"operations": [{"create": None, "delete": {"id": "a"}}, {"create": {"title": "t"}, "update": None}]},
        {"atomic": None, "operations": [{"update": {"id": "a", "changes": {}, "ifVersion": 9007199254740991}}]},
    ],
)
def test_apply_params_that_are_carried_out(checker, params):
    # Not atomic, each operation is judged alone, in its entry of `results`; a null kind means absent.
    assert checker.validator("tasksApplyParams").is_valid(params)


@pytest.mark.parametrize(
    "definition, params",
    [
        ("tasksApplyParams", {"operations": [{"create": None}]}),
        ("tasksApplyParams", {"operations": [{"create": None, "delete": None}]}),
        ("tasksApplyParams", {"atomic": None, "operations": [5]}),
        ("tasksApplyParams", {"atomic": False, "operations": [5] * 1001}),
        ("tasksApplyParams", {"atomic": False, "operations": {"create": {"title": "t"}}}),
        ("tasksCreateParams", {"title": "t", "tags": ["x"] * 65}),
        ("tasksFetchParams", {"filter": {"tags": ["x"] * 65}}),
        ("tasksFetchParams", {"offset": 9007199254740992}),
        ("tasksUpdateParams", {"id": "a", "changes": {}, "ifVersion": 0}),
        ("tasksDeleteParams", {"id": "a", "ifVersion": 9007199254740992}),
        ("tasksChangesParams", {"since": 9007199254740992}),
        ("tasksCreateParams", {"title": "t", "due": "2026-12-01\n"}),
        ("tasksCreateParams", {"title": "\ufeff"}),
        ("tasksCreateParams", {"title": "t", "project": ""}),
        ("tasksCreateParams", {"title": "t", "project": "x" * 257}),
        ("tasksCreateParams", {"title": "t", "dependsOn": ["a"] * 65}),
        ("tasksCreateParams", {"title": "t", "dependsOn": [""]}),
        ("tasksCreateParams", {"title": "t", "wait": "2026-12-01 10:00"}),
        ("tasksCreateParams", {"title": "t", "remindAt": "2026-12-01T10:00:00"}),
        ("tasksCreateParams", {"title": "t", "remindAt": 1}),
        ("tasksUpdateParams", {"id": "a", "changes": {"remindAt": "soon"}}),
        ("tasksCreateParams", {"title": "t", "done": True, "startedAt": "2026-12-01"}),
        ("tasksCreateParams", {"title": "t", "annotations": [{"text": "\t"}]}),
        ("tasksCreateParams", {"title": "t", "annotations": [{"text": "x"}] * 101}),
        ("tasksUpdateParams", {"id": "a", "changes": {"addAnnotations": [{"text": "x" * 4097}]}}),
        ("tasksUpdateParams", {"id": "a", "changes": {"addAnnotations": [{"at": "2026-12-01"}]}}),
        ("tasksUpdateParams", {"id": "a", "changes": {"removeAnnotations": [{"text": "x"}]}}),
        ("tasksUpdateParams", {"id": "a", "changes": {"annotations": [], "addAnnotations": [{"text": "x"}]}}),
        ("tasksUpdateParams", {"id": "a", "changes": {"done": True, "startedAt": "2026-12-01"}}),
        ("tasksCreateParams", {"title": "t", "meta": "{}"}),
        ("tasksUpdateParams", {"id": "a", "changes": {"dependsOn": None}}),
        ("tasksFetchParams", {"filter": {"project": "Home."}}),
        ("tasksFetchParams", {"filter": {"blocked": 1}}),
        ("tasksFetchParams", {"filter": {"meta": {}}}),
        ("tasksFetchParams", {"sort": [{"field": "project"}, {"field": "project"}]}),
        ("tasksCreateParams", {"title": "t", "id": "a\n"}),
        ("tasksCreateParams", {"title": "t", "recurrence": {"rule": "FREQ=DAILY"}}),
        ("tasksCreateParams", {"title": "t", "due": None, "recurrence": {"rule": "FREQ=DAILY"}}),
        ("tasksCreateParams", {"title": "t", "due": "2026-12-01", "recurrence": "FREQ=DAILY"}),
        ("tasksCreateParams", {"title": "t", "due": "2026-12-01", "recurrence": {"rule": "FREQ=DAILY", "x": 1}}),
        ("tasksCreateParams", {"title": "t", "due": "2026-12-01", "recurrence": {"rule": "FREQ=HOURLY"}}),
        ("tasksCreateParams", {"title": "t", "due": "2026-12-01", "recurrence": {"rule": "FREQ=DAILY;INTERVAL=0"}}),
        ("tasksCreateParams", {"title": "t", "due": "2026-12-01", "recurrence": {"rule": "FREQ=DAILY;INTERVAL=10001"}}),
        ("tasksCreateParams", {"title": "t", "due": "2026-12-01", "recurrence": {"rule": "FREQ=WEEKLY;BYDAY=MO,XX"}}),
        ("tasksCreateParams", {"title": "t", "due": "2026-12-01", "recurrence": {"rule": "FREQ=DAILY;BYMONTHDAY=32"}}),
        ("tasksCreateParams", {"title": "t", "due": "2026-12-01", "recurrence": {"rule": "FREQ=DAILY\n"}}),
        ("tasksCreateParams", {"title": "t", "due": "2026-12-01", "recurrence": {"rule": "INTERVAL=2"}}),
        ("tasksCreateParams", {"title": "t", "seriesId": "a"}),
        ("tasksUpdateParams", {"id": "a", "changes": {"due": None, "recurrence": {"rule": "FREQ=DAILY"}}}),
        ("tasksUpdateParams", {"id": "a", "changes": {"seriesId": "a"}}),
    ],
)
def test_params_past_their_edges(checker, definition, params):
    assert not checker.validator(definition).is_valid(params)
