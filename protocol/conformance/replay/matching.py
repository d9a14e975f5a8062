"""Comparing a message the server wrote with the pattern a transcript expects.

A pattern is a JSON value compared for equality, except for objects with
`$`-members (matchers, see ../transcript-format.md). `match` returns None on success or a
`Mismatch` naming the first difference by JSON path.
"""

import json
import re
from dataclasses import dataclass

from .values import TranscriptError, captured, construct, interpolate, is_constructor

_KINDS = {
    "any": lambda value: True,
    "null": lambda value: value is None,
    "boolean": lambda value: isinstance(value, bool),
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "number": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),
    "string": lambda value: isinstance(value, str),
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
    "uuid": lambda value: (
        isinstance(value, str)
        and re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", value) is not None
    ),
    "timestamp": lambda value: (
        isinstance(value, str)
        and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z", value) is not None
    ),
}
_MATCHER_KEYS = {
    "$match", "$capture", "$ref", "$gt", "$gte", "$regex", "$includes", "$contains", "$length", "$each", "$text"
}


@dataclass
class Mismatch:
    path: str
    detail: str

    def __str__(self):
        return f"{self.path}: {self.detail}"


def show(value, limit=200):
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _json_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object"}[type(value)]


class Matcher:
    """Matches patterns, recording `$capture`s into `captures` as it goes."""

    def __init__(self, captures, allow_additions=False):
        self.captures = captures
        self.allow_additions = allow_additions

    def match(self, pattern, actual, path="$"):
        if is_constructor(pattern) and "$ref" not in pattern:
            pattern = construct(pattern, self.captures)
        if isinstance(pattern, dict) and any(key.startswith("$") for key in pattern):
            return self._match_matcher(pattern, actual, path)
        if isinstance(pattern, str):
            pattern = interpolate(pattern, self.captures)
        if _json_type(pattern) != _json_type(actual):
            return Mismatch(path, f"expected {show(pattern)}, got {show(actual)}")
        if isinstance(pattern, dict):
            return self._match_object(pattern, actual, path, exact=not self.allow_additions)
        if isinstance(pattern, list):
            return self._match_array(pattern, actual, path)
        if pattern != actual:
            return Mismatch(path, f"expected {show(pattern)}, got {show(actual)}")
        return None

    def _match_object(self, pattern, actual, path, exact):
        for name, item in pattern.items():
            if name not in actual:
                return Mismatch(path, f"missing member {show(name)} (got {show(actual)})")
            mismatch = self.match(item, actual[name], f"{path}.{name}")
            if mismatch:
                return mismatch
        extra = [name for name in actual if name not in pattern]
        if exact and extra:
            return Mismatch(path, f"unexpected member {show(extra[0])} = {show(actual[extra[0]])}")
        return None

    def _match_array(self, pattern, actual, path):
        for index, (item, value) in enumerate(zip(pattern, actual)):
            mismatch = self.match(item, value, f"{path}[{index}]")
            if mismatch:
                return mismatch
        if len(pattern) != len(actual):
            return Mismatch(path, f"expected {len(pattern)} items, got {len(actual)}: {show(actual)}")
        return None

    def _match_matcher(self, pattern, actual, path):
        unknown = set(pattern) - _MATCHER_KEYS
        if unknown:
            raise TranscriptError(f"unknown matcher members {sorted(unknown)} at {path}")
        checks = {
            "$ref": self._check_ref,
            "$match": self._check_kind,
            "$gt": self._check_greater,
            "$gte": self._check_greater_or_equal,
            "$regex": self._check_regex,
            "$length": self._check_length,
            "$each": self._check_each,
            "$includes": self._check_includes,
            "$contains": self._check_contains,
            "$text": self._check_text,
        }
        for key, check in checks.items():
            if key in pattern:
                mismatch = check(pattern[key], actual, path)
                if mismatch:
                    return mismatch
        if "$capture" in pattern:
            self.captures[pattern["$capture"]] = actual
        return None

    def _check_ref(self, name, actual, path):
        return self.match(captured(name, self.captures), actual, path)

    def _check_kind(self, kind, actual, path):
        if kind not in _KINDS:
            raise TranscriptError(f"unknown $match kind {kind!r} at {path}; known: {sorted(_KINDS)}")
        if not _KINDS[kind](actual):
            return Mismatch(path, f"expected {kind}, got {show(actual)}")
        return None

    def _check_greater(self, bound, actual, path):
        return self._compare(bound, actual, path, ">", lambda left, right: left > right)

    def _check_greater_or_equal(self, bound, actual, path):
        return self._compare(bound, actual, path, ">=", lambda left, right: left >= right)

    def _compare(self, bound, actual, path, relation, holds):
        if is_constructor(bound):
            bound = construct(bound, self.captures)
        comparable = _json_type(bound) == _json_type(actual) and _json_type(bound) in ("number", "string")
        if not comparable or not holds(actual, bound):
            return Mismatch(path, f"expected a value {relation} {show(bound)}, got {show(actual)}")
        return None

    def _check_regex(self, expression, actual, path):
        if not isinstance(expression, str):
            raise TranscriptError(f"$regex takes a string at {path}")
        try:
            found = isinstance(actual, str) and re.search(expression, actual) is not None
        except re.error as error:
            raise TranscriptError(f"bad $regex {expression!r} at {path}: {error}") from None
        if not found:
            return Mismatch(path, f"expected a string matching /{expression}/, got {show(actual)}")
        return None

    def _check_text(self, text, actual, path):
        if not isinstance(text, str):
            raise TranscriptError(f"$text takes a string at {path}")
        written = getattr(actual, "text", None) if _json_type(actual) == "number" else None
        if written != text:
            return Mismatch(path, f"expected a number written as {text}, got {written or show(actual)}")
        return None

    def _check_length(self, length, actual, path):
        if not isinstance(actual, (list, str)) or len(actual) != length:
            return Mismatch(path, f"expected length {length}, got {show(actual)}")
        return None

    def _check_each(self, item, actual, path):
        if not isinstance(actual, list):
            return Mismatch(path, f"expected an array, got {show(actual)}")
        for index, value in enumerate(actual):
            mismatch = self.match(item, value, f"{path}[{index}]")
            if mismatch:
                return mismatch
        return None

    def _check_includes(self, members, actual, path):
        if not isinstance(actual, dict):
            return Mismatch(path, f"expected an object, got {show(actual)}")
        return self._match_object(members, actual, path, exact=False)

    def _check_contains(self, items, actual, path):
        if not isinstance(actual, list):
            return Mismatch(path, f"expected an array, got {show(actual)}")
        for item in items:
            if not any(Matcher(dict(self.captures)).match(item, value) is None for value in actual):
                return Mismatch(path, f"expected an item matching {show(item)} in {show(actual)}")
        return None
