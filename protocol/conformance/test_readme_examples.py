"""Every JSON example of the protocol's pages is valid against the schema definition it illustrates.

The pages are protocol/README.md and those its contents list, in that order.

A ```json block holds one or more JSON values, one after the other. A JSON-RPC message is checked
as what it is: a request against `request` (its method's params), a notification against
`notification`, a response against `serverMessage` and, when a request of the same block has its id,
its result against that method's `<name>Result`. Any other value is checked against the definition its
section names in EXAMPLE_DEFINITIONS. In the pages, `{…}` stands for the task of section 4.
"""

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("jsonschema")

from replay.schema import SchemaChecker

PROTOCOL = Path(__file__).resolve().parents[1]
README = PROTOCOL / "README.md"


def pages():
    """The entry page, then each page its contents link to, in the order listed."""
    contents = README.read_text(encoding="utf-8").split("\n## Contents\n", 1)[1].split("\n## ", 1)[0]
    linked = dict.fromkeys(re.findall(r"\]\(([a-z0-9-]+\.md)\)", contents))
    return [README, *(PROTOCOL / name for name in linked)]


# The heading of the section a value that is not a JSON-RPC message appears under -> the definition it shows.
EXAMPLE_DEFINITIONS = {
    "3. Lifecycle": "initializeResult",
    "4. The task": "task",
}


def blocks():
    """(heading, text) of every ```json block, with the heading it appears under."""
    heading = None
    found = []
    lines = [line for page in pages() for line in page.read_text(encoding="utf-8").splitlines()]
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if line.strip() == "```json":
            end = next(i for i in range(index + 1, len(lines)) if lines[i].strip() == "```")
            found.append((heading, "\n".join(lines[index + 1 : end])))
            index = end
        index += 1
    return found


def values(text, task_text):
    text = text.replace("{…}", task_text)
    decoder = json.JSONDecoder()
    position = 0
    parsed = []
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position == len(text):
            return parsed
        value, position = decoder.raw_decode(text, position)
        parsed.append(value)


def examples():
    found = blocks()
    task_text = next(text for heading, text in found if heading == "4. The task")
    return [(heading, value_list) for heading, text in found for value_list in [values(text, task_text)]]


def problems(checker, heading, block):
    found = []
    methods = {}
    for value in block:
        if isinstance(value, dict) and value.get("jsonrpc") == "2.0":
            if "method" in value:
                envelope = "request" if "id" in value else "notification"
                if envelope == "request":
                    methods[json.dumps(value["id"])] = value["method"]
                if not checker.validator(envelope).is_valid(value):
                    found.append(f"{envelope}: {value}")
                if envelope == "notification":
                    found.append(checker.message_problem(value))
            else:
                found.append(checker.message_problem(value))
                method = methods.get(json.dumps(value.get("id")))
                if method and "result" in value:
                    found.append(checker.result_problem(method, value["result"], "$.result"))
        else:
            definition = EXAMPLE_DEFINITIONS.get(heading)
            if definition is None:
                found.append(f"a value under {heading!r}: add the definition it illustrates to EXAMPLE_DEFINITIONS")
            else:
                found.append(checker._problem(definition, value, "$"))
    return [problem for problem in found if problem]


def test_the_contents_list_every_section_page():
    assert [page.name for page in pages()] == [
        "README.md", "transport.md", "json-rpc.md", "lifecycle.md", "task.md", "methods.md", "methods-reads.md",
        "methods-writes.md", "methods-history.md", "methods-parse.md", "notifications.md", "errors.md", "storage.md",
    ]


def test_the_readme_has_examples_of_each_kind():
    kinds = set()
    for heading, block in examples():
        for value in block:
            if "jsonrpc" not in value:
                kinds.add(EXAMPLE_DEFINITIONS.get(heading))
            elif "method" not in value:
                kinds.add("response")
            else:
                kinds.add("request" if "id" in value else "notification")
    assert {"initializeResult", "task", "request", "response", "notification"} <= kinds


@pytest.mark.parametrize("heading, block", examples(), ids=lambda value: value if isinstance(value, str) else "")
def test_every_readme_example_is_valid(heading, block):
    assert problems(SchemaChecker(), heading, block) == []


def test_an_example_that_breaks_the_schema_is_caught():
    task = json.loads(next(text for heading, text in blocks() if heading == "4. The task"))
    request = {"jsonrpc": "2.0", "id": 1, "method": "tasks/create", "params": {"title": "\ufeff"}}
    response = {"jsonrpc": "2.0", "id": 1, "result": {**task, "version": 0}}
    found = problems(SchemaChecker(), "5. Methods", [request, response])
    assert len(found) == 2 and "tasksCreateResult" in found[1], found
    unplaced = problems(SchemaChecker(), "2. JSON-RPC 2.0", [task])
    assert len(unplaced) == 1 and "EXAMPLE_DEFINITIONS" in unplaced[0], unplaced
