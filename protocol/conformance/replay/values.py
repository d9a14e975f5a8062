"""Building the values a transcript sends from captures and constructors.

`{"$ref": name}` is a captured value, `"...${name}..."` interpolates one into a
string, `{"$repeat": text, "times": n}` is `text` n times over and
`{"$array": item, "times": n}` is a list of n copies of `item` in which `${i}`
counts from 1.
"""

import json
import re

CONSTRUCTORS = ("$ref", "$repeat", "$array")
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class TranscriptError(Exception):
    """The transcript itself is malformed or refers to something that does not exist."""


def interpolate(text, captures):
    def replace(match):
        name = match.group(1)
        if name not in captures:
            raise TranscriptError(f"${{{name}}} refers to nothing captured so far")
        value = captures[name]
        return value if isinstance(value, str) else json.dumps(value)

    return _PLACEHOLDER.sub(replace, text)


def captured(name, captures):
    if name not in captures:
        raise TranscriptError(f'{{"$ref": "{name}"}} refers to nothing captured so far')
    return captures[name]


def is_constructor(value):
    return isinstance(value, dict) and any(key in value for key in CONSTRUCTORS)


def _times(spec):
    times = spec.get("times")
    if not isinstance(times, int) or times < 0:
        raise TranscriptError(f"{spec} needs a count 'times' >= 0")
    return times


def construct(spec, captures):
    """Evaluates one constructor object."""
    if "$ref" in spec:
        if set(spec) != {"$ref"}:
            raise TranscriptError(f"$ref takes no other members: {spec}")
        return captured(spec["$ref"], captures)
    if set(spec) not in ({"$repeat", "times"}, {"$array", "times"}):
        raise TranscriptError(f"a constructor is {{'$repeat'|'$array': ..., 'times': n}}: {spec}")
    if "$repeat" in spec:
        if not isinstance(spec["$repeat"], str):
            raise TranscriptError(f"$repeat repeats a string: {spec}")
        return interpolate(spec["$repeat"], captures) * _times(spec)
    return [resolve(spec["$array"], {**captures, "i": index}) for index in range(1, _times(spec) + 1)]


def resolve(value, captures):
    """The plain JSON value that `value` describes."""
    if isinstance(value, str):
        return interpolate(value, captures)
    if isinstance(value, list):
        return [resolve(item, captures) for item in value]
    if is_constructor(value):
        return construct(value, captures)
    if isinstance(value, dict):
        return {interpolate(name, captures): resolve(item, captures) for name, item in value.items()}
    return value
