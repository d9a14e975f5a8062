"""The models are checked against protocol/schema/taskline.schema.json, so that
neither can change without the other: every member of what the client reads is
a field of its model, with a compatible type, and every field is in the schema."""

from __future__ import annotations

import dataclasses
import enum
import json
from typing import Any

import pytest
from conftest import SCHEMA_PATH

from taskline_client import models

SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))

#: Each model and the schema definition it reads, field names in camelCase.
MODELS = {
    models.Task: "task",
    models.Recurrence: "recurrence",
    models.Annotation: "annotation",
    models.FetchPage: "tasksFetchResult",
    models.Change: "changeMembers",
    models.ChangesPage: "tasksChangesResult",
    models.DidChange: "tasksDidChangeParams",
    models.DidMissChanges: "tasksDidMissChangesParams",
    models.Remind: "tasksRemindParams",
    models.ChangeGroup: "changeGroup",
}

#: ServerInfo flattens the initialize result: each field and the path it is read from.
SERVER_INFO_PATHS = {
    "name": "serverInfo.name",
    "version": "serverInfo.version",
    "protocol_version": "protocolVersion",
    "database_id": "database.id",
    "database_seq": "database.seq",
    "methods": "capabilities.methods",
    "notifications": "capabilities.notifications.didChange",
    "missed_changes_notifications": "capabilities.notifications.didMissChanges",
    "reminders": "capabilities.notifications.remind",
    "max_message_bytes": "capabilities.limits.maxMessageBytes",
    "max_fetch_limit": "capabilities.limits.maxFetchLimit",
}


def _definition(name: str) -> dict[str, Any]:
    definition: dict[str, Any] = SCHEMA["$defs"][name]
    return definition


def _is_alias(node: dict[str, Any]) -> bool:
    return "$ref" in node and "type" not in node and "enum" not in node and "const" not in node


def _target(node: dict[str, Any]) -> str:
    """The name of the definition a chain of `$ref`s ends in."""
    name: str = node["$ref"].rsplit("/", 1)[1]
    while _is_alias(_definition(name)):
        name = _definition(name)["$ref"].rsplit("/", 1)[1]
    return name


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    return _definition(_target(node)) if _is_alias(node) else node


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {int: "integer", str: "string", float: "number"}[type(value)]


def schema_kinds(node: dict[str, Any]) -> frozenset[str]:
    """The JSON types a schema node allows; an array as `array of …`, an object
    defined in `$defs` as `object <name>`."""
    if _resolve(node).get("type") == "object" and "properties" not in _resolve(node):
        return frozenset({"object"})  # free-form data: a task's `meta`
    if _is_alias(node) and _resolve(node).get("type") == "object":
        return frozenset({f"object {_target(node)}"})
    node = _resolve(node)
    if "anyOf" in node:
        return frozenset().union(*(schema_kinds(option) for option in node["anyOf"]))
    if "enum" in node:
        return frozenset(_json_type(value) for value in node["enum"])
    if "const" in node:
        return frozenset({_json_type(node["const"])})
    declared = node["type"]
    kinds = set()
    for kind in [declared] if isinstance(declared, str) else declared:
        if kind == "array":
            kinds.add("array of " + "|".join(sorted(schema_kinds(node["items"]))))
        else:
            kinds.add(kind)
    return frozenset(kinds)


def python_kinds(annotation: str) -> frozenset[str]:
    """The JSON types a field's annotation (its text, as `from __future__ import
    annotations` leaves it) holds, named as `schema_kinds` names them."""
    options = [option.strip() for option in annotation.split("|")]
    if len(options) > 1:
        return frozenset().union(*(python_kinds(option) for option in options))
    text = options[0]
    if text == "None":
        return frozenset({"null"})
    if text.startswith("tuple[") and text.endswith(", ...]"):
        return frozenset({"array of " + "|".join(sorted(python_kinds(text[len("tuple[") : -len(", ...]")])))})
    builtin = {"str": "string", "bool": "boolean", "int": "integer", "datetime": "string", "dict[str, Any]": "object"}
    if text in builtin:
        return frozenset({builtin[text]})
    named = vars(models)[text]
    if isinstance(named, type) and dataclasses.is_dataclass(named):
        return frozenset({f"object {MODELS[named]}"})
    assert issubclass(named, enum.Enum), text
    return frozenset(_json_type(member.value) for member in named)


def camel_case(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.capitalize() for part in rest)


def _fields(model: type) -> dict[str, str]:
    return {field.name: str(field.type) for field in dataclasses.fields(model)}


def _compare(field: str, annotation: str, node: dict[str, Any], required: bool) -> list[str]:
    expected = schema_kinds(node)
    actual = python_kinds(annotation)
    if not required:
        actual = actual - {"null"} if "null" not in expected else actual  # None stands for "absent"
    return [] if actual == expected else [f"{field}: the model holds {sorted(actual)}, the schema {sorted(expected)}"]


@pytest.mark.parametrize("model", list(MODELS), ids=lambda model: model.__name__)
def test_a_model_has_exactly_the_members_of_its_definition(model: type) -> None:
    definition = _resolve(_definition(MODELS[model]))
    properties, required = definition["properties"], set(definition.get("required", ()))
    fields = _fields(model)
    assert sorted(camel_case(name) for name in fields) == sorted(properties)
    problems = [
        problem
        for name, annotation in fields.items()
        for problem in _compare(name, annotation, properties[camel_case(name)], camel_case(name) in required)
    ]
    assert problems == []


def _leaves(node: dict[str, Any], prefix: str = "") -> dict[str, tuple[dict[str, Any], bool]]:
    """Every member of an object schema that is not itself an object, by dotted path."""
    node = _resolve(node)
    required = set(node.get("required", ()))
    leaves: dict[str, tuple[dict[str, Any], bool]] = {}
    for name, member in node["properties"].items():
        path = prefix + name
        if _resolve(member).get("type") == "object" and "properties" in _resolve(member):
            leaves.update(_leaves(member, path + "."))
        else:
            leaves[path] = (member, name in required)
    return leaves


def test_server_info_has_exactly_the_members_of_the_initialize_result() -> None:
    leaves = _leaves(_definition("initializeResult"))
    fields = _fields(models.ServerInfo)
    assert sorted(SERVER_INFO_PATHS) == sorted(fields)
    assert sorted(SERVER_INFO_PATHS.values()) == sorted(leaves)
    problems = [
        problem for name, path in SERVER_INFO_PATHS.items() for problem in _compare(name, fields[name], *leaves[path])
    ]
    assert problems == []
