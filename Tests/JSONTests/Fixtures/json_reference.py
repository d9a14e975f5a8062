"""The reference side of JSONParserDifferentialTests: Python's json, made as strict as Taskline's parser.

Reads JSON lines `{"input": base64, "taskline": base64 | null}` (what Taskline's parser made of the input, written
back as JSON text, or null when it refused it) and prints one line per disagreement, then `compared N`.

A line `{"input": base64, "records": [base64] | null}` is a file read by Taskline's JSONRecordReader: the values it
read, or null when it reported any failure. The reference reads the file as the import's formats say: a byte order
mark at the start is skipped; if the first byte that is not white space is `[`, the file is one JSON array whose
elements are the records; otherwise it is JSON Lines, each line that is not blank one record.

Python's json accepts a few things the protocol refuses on purpose (protocol/json-rpc.md §2), so the reference refuses
them too: duplicate member names, NaN and Infinity, a lone UTF-16 surrogate (escaped), numbers that overflow a double,
nesting deeper than 64, and a byte order mark. Everything else must agree exactly: accepted or refused, and the value.
"""

import base64
import json
import math
import sys

MAX_DEPTH = 64


class Refused(ValueError):
    pass


def no_duplicates(pairs):
    names = [name for name, _ in pairs]
    if len(names) != len(set(names)):
        raise Refused("duplicate member name")
    return dict(pairs)


def refuse_constant(name):
    raise Refused(f"{name} is not JSON")


def finite_float(text):
    value = float(text)
    if math.isinf(value):
        raise Refused("number outside a double's range")
    return value


def finite_int(text):
    if math.isinf(float(text)):
        raise Refused("number outside a double's range")
    return int(text)


def check(value, depth=1):
    if depth > MAX_DEPTH and isinstance(value, (list, dict)):
        raise Refused("nested too deep")
    if isinstance(value, str):
        if any(0xD800 <= ord(character) <= 0xDFFF for character in value):
            raise Refused("lone surrogate")
    elif isinstance(value, list):
        for item in value:
            check(item, depth + 1)
    elif isinstance(value, dict):
        for name, item in value.items():
            check(name, depth + 1)
            check(item, depth + 1)


def strict_loads(data):
    if data.startswith(b"\xef\xbb\xbf"):
        raise Refused("byte order mark")
    text = data.decode("utf-8")  # invalid UTF-8 raises UnicodeDecodeError
    value = json.loads(
        text,
        object_pairs_hook=no_duplicates,
        parse_constant=refuse_constant,
        parse_float=finite_float,
        parse_int=finite_int,
    )
    check(value)
    return value


def same(a, b):
    """Equal as JSON values: numbers by value (1 and 1.0 alike), everything else exactly."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    return type(a) is type(b) and a == b


WHITE_SPACE = b" \t\r\n"


def strict_records(data):
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if data.lstrip(WHITE_SPACE).startswith(b"["):
        return strict_loads(data)
    return [strict_loads(line) for line in data.split(b"\n") if line.strip(WHITE_SPACE)]


def compare_records(case, data):
    shown = repr(data[:120])
    try:
        expected = strict_records(data)
    except (ValueError, RecursionError):
        expected = None
    if case["records"] is None:
        if expected is not None:
            return f"the record reader refused what the reference accepts: {shown}"
    elif expected is None:
        return f"the record reader accepted what the reference refuses: {shown}"
    else:
        read = [strict_loads(base64.b64decode(record)) for record in case["records"]]
        if not same(read, expected):
            return f"records differ: {shown} -> Taskline {[base64.b64decode(r)[:60] for r in case['records'][:5]]!r}"
    return None


def main():
    sys.setrecursionlimit(100_000)
    compared = 0
    for line in sys.stdin:
        case = json.loads(line)
        data = base64.b64decode(case["input"])
        if "records" in case:
            disagreement = compare_records(case, data)
            if disagreement:
                print(disagreement)
            compared += 1
            continue
        try:
            expected = strict_loads(data)
            accepted = True
        except (ValueError, RecursionError):
            accepted = False
        shown = repr(data[:120])
        if case["taskline"] is None:
            if accepted:
                print(f"Taskline refused what the reference accepts: {shown}")
        elif not accepted:
            print(f"Taskline accepted what the reference refuses: {shown}")
        else:
            written = base64.b64decode(case["taskline"])
            if not same(strict_loads(written), expected):
                print(f"values differ: {shown} -> Taskline {written[:120]!r}")
        compared += 1
    print(f"compared {compared}")


if __name__ == "__main__":
    main()
