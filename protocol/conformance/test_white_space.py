"""The schema's `title` and `tag` know exactly the white space protocol/task.md (§4) lists, in any regex dialect.

The list is read from that page itself. Every code point is tried against the schema's patterns with
Python's `re` (the patterns hold no `\\s`, whose meaning differs between dialects), and the listed ones, with
their neighbours, through jsonschema too.
"""

import re
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema")

from replay.schema import SchemaChecker

TASK_PAGE = Path(__file__).resolve().parents[1] / "task.md"
CONTROLS = set(range(0x20)) | set(range(0x7F, 0xA0))


def listed_white_space():
    section = TASK_PAGE.read_text(encoding="utf-8").split("\n## White space\n", 1)[1].split("\n#", 1)[0]
    listed = set()
    for first, last in re.findall(r"U\+([0-9A-F]{4})(?:–U\+([0-9A-F]{4}))?", section.split("Characters that are only invisible")[0]):
        listed.update(range(int(first, 16), int(last or first, 16) + 1))
    return listed


LISTED = listed_white_space()


def scalars():
    return (code for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF)


@pytest.fixture(scope="module")
def checker():
    return SchemaChecker()


def test_the_readme_lists_unicode_white_space_and_u_feff():
    assert len(LISTED) == 26
    assert 0xFEFF in LISTED and 0x180E not in LISTED and 0x200B not in LISTED


def patterns(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern":
                yield value
            else:
                yield from patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from patterns(value)


def test_no_pattern_uses_escapes_that_dialects_read_differently(checker):
    found = list(patterns(checker.schema))
    assert len(found) >= 5
    for pattern in found:
        assert not re.search(r"\\[sSdDwWbBu]", pattern), pattern
        assert not re.search(r"[^)]\$", pattern), f"{pattern}: a final $ also matches before a final line feed in Python and PCRE"


def test_the_title_pattern_finds_a_character_that_is_not_white_space(checker):
    pattern = re.compile(checker.schema["$defs"]["notOnlyWhiteSpace"]["pattern"])
    blank = {code for code in scalars() if not pattern.search(chr(code))}
    assert blank == LISTED


def test_the_no_white_space_pattern_matches_exactly_the_list(checker):
    pattern = re.compile(checker.schema["$defs"]["noWhiteSpace"]["not"]["pattern"])
    assert {code for code in scalars() if pattern.search(chr(code))} == LISTED


@pytest.mark.parametrize("code", sorted(LISTED | {code + 1 for code in LISTED} | {code - 1 for code in LISTED} | {0x180E, 0x200B, 0x2060}))
def test_titles_and_tags_through_jsonschema(checker, code):
    character = chr(code)
    title = checker.validator("title").is_valid(character)
    tag = checker.validator("tag").is_valid(f"a{character}b")
    assert title == (code not in LISTED and code not in CONTROLS)
    assert tag == (code not in LISTED and code not in CONTROLS)
