"""The pattern language of transcripts (transcript-format.md, "Patterns")."""

import pytest

from replay.framing import decode_json
from replay.matching import Matcher
from replay.values import TranscriptError, resolve


def mismatch(pattern, actual, captures=None, allow_additions=False):
    result = Matcher({} if captures is None else captures, allow_additions).match(pattern, actual)
    return None if result is None else str(result)


def test_plain_values_must_be_equal():
    assert mismatch({"a": [1, "x", None]}, {"a": [1, "x", None]}) is None
    assert mismatch({"a": [1, "x"]}, {"a": [1, "y"]}) == '$.a[1]: expected "x", got "y"'


def test_booleans_are_not_numbers_and_1_is_not_the_string_1():
    assert mismatch(1, True) == "$: expected 1, got true"
    assert mismatch("1", 1) == '$: expected "1", got 1'


def test_objects_match_exactly_unless_additions_are_allowed():
    assert mismatch({"a": 1}, {"a": 1, "b": 2}) == '$: unexpected member "b" = 2'
    assert mismatch({"a": 1}, {"a": 1, "b": 2}, allow_additions=True) is None
    assert mismatch({"a": 1, "b": 2}, {"a": 1}).startswith('$: missing member "b"')


def test_arrays_report_the_first_differing_item_then_the_length():
    assert mismatch([1, 2], [1, 3, 4]) == "$[1]: expected 2, got 3"
    assert mismatch([1, 2], [1, 2, 3]) == "$: expected 2 items, got 3: [1, 2, 3]"


def test_match_kinds():
    assert mismatch({"$match": "uuid"}, "0b3c5d2e-8f4e-4a57-9d3c-2b1f0e6a7c11") is None
    assert mismatch({"$match": "uuid"}, "0B3C5D2E-8F4E-4A57-9D3C-2B1F0E6A7C11") is not None
    assert mismatch({"$match": "timestamp"}, "2026-11-29T15:02:11.042Z") is None
    assert mismatch({"$match": "timestamp"}, "2026-11-29T15:02:11Z") is not None
    assert mismatch({"$match": "integer"}, True) == "$: expected integer, got true"
    with pytest.raises(TranscriptError):
        mismatch({"$match": "colour"}, 1)


def test_a_capture_is_visible_later_in_the_same_pattern_and_after_it():
    captures = {}
    assert (
        mismatch(
            {"a": {"$capture": "x"}, "b": {"$ref": "x"}, "c": "id-${x}"}, {"a": "q", "b": "q", "c": "id-q"}, captures
        )
        is None
    )
    assert captures == {"x": "q"}
    assert mismatch({"$ref": "x"}, "r", captures) == '$: expected "q", got "r"'


def test_a_reference_to_nothing_is_a_transcript_error():
    with pytest.raises(TranscriptError):
        mismatch({"$ref": "never"}, 1)


def test_comparisons_length_each_and_includes():
    captures = {"seq": 4}
    assert mismatch({"$gt": {"$ref": "seq"}}, 5, captures) is None
    assert mismatch({"$gt": {"$ref": "seq"}}, 4, captures) == "$: expected a value > 4, got 4"
    assert mismatch({"$gte": "2026-01-01"}, "2026-01-01") is None
    assert mismatch({"$length": 2, "$each": {"$match": "string"}}, ["a", 1]) == "$[1]: expected string, got 1"
    assert mismatch({"$includes": {"a": 1}}, {"a": 1, "b": 2}) is None
    assert mismatch({"$includes": {"a": 1}}, {"b": 2}).startswith('$: missing member "a"')


def test_contains_asks_for_each_pattern_to_match_some_item():
    assert mismatch({"$contains": ["b", {"$match": "integer"}]}, ["a", "b", 3]) is None
    assert mismatch({"$contains": ["c"]}, ["a", "b"]) == '$: expected an item matching "c" in ["a", "b"]'


def test_constructors_build_strings_and_arrays():
    assert resolve({"$repeat": "ab", "times": 3}, {}) == "ababab"
    assert resolve({"$array": "t${i}", "times": 3}, {}) == ["t1", "t2", "t3"]
    assert mismatch({"$repeat": "x", "times": 2}, "xx") is None


def test_regex_searches_strings():
    assert mismatch({"$regex": "^operations\\[1\\]"}, "operations[1].update") is None
    assert (
        mismatch({"$regex": "^operations\\[1\\]"}, "operations[2]")
        == '$: expected a string matching /^operations\\[1\\]/, got "operations[2]"'
    )
    assert mismatch({"$regex": "x"}, 1) is not None
    with pytest.raises(TranscriptError):
        mismatch({"$regex": "("}, "x")


def test_text_compares_a_number_as_the_server_wrote_it():
    written = decode_json(b'[1e-400, 18446744073709551616, -0, 1.50, 1]')
    texts = ["1e-400", "18446744073709551616", "-0", "1.50", "1"]
    assert [mismatch({"$text": text}, value) for text, value in zip(texts, written)] == [None] * 5
    assert mismatch({"$text": "1e-400"}, decode_json(b"0.0")) == "$: expected a number written as 1e-400, got 0.0"
    assert mismatch({"$text": "1.50"}, decode_json(b"1.5")) == "$: expected a number written as 1.50, got 1.5"
    assert mismatch({"$text": "1"}, decode_json(b'"1"')) == '$: expected a number written as 1, got "1"'
    assert mismatch(1.5, decode_json(b"1.50")) is None, "plain patterns still compare values"
