"""Conversion between the wire's RFC 3339 strings and Python dates and times.

`datetime.fromisoformat` only learned to read `Z` and arbitrary fractions in
Python 3.11, so the wire format is parsed here by hand.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from typing import Union

from .errors import UnsupportedTimestamp

#: What a due date may be given as: an aware datetime, a date, or RFC 3339 text.
DueInput = Union[datetime, date, str]

_DATE_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?"
    r"(?:([Zz])|([+-])(\d{2}):(\d{2}))\Z"
)
_FULL_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")


def parse_timestamp(text: str) -> datetime:
    """Parse an RFC 3339 date-time with an offset into an aware datetime.

    Raises `UnsupportedTimestamp` (a ValueError) for text that is not one, and
    for the year 0000 and leap seconds, which datetime cannot hold.
    """
    match = _DATE_TIME.match(text)
    if match is None:
        raise UnsupportedTimestamp(text, "not an RFC 3339 date-time")
    year, month, day, hour, minute, second = (int(part) for part in match.group(1, 2, 3, 4, 5, 6))
    fraction, zulu, sign, offset_hours, offset_minutes = match.group(7, 8, 9, 10, 11)
    microsecond = int((fraction or "0")[:6].ljust(6, "0"))
    try:
        if zulu:
            zone = timezone.utc
        else:
            offset = timedelta(hours=int(offset_hours), minutes=int(offset_minutes))
            zone = timezone(-offset if sign == "-" else offset)
        return datetime(year, month, day, hour, minute, second, microsecond, tzinfo=zone)
    except ValueError as error:
        raise UnsupportedTimestamp(text, str(error)) from None


def parse_due(text: str) -> datetime | date:
    """Parse a due value, which is either a full date or a date-time."""
    if _FULL_DATE.match(text):
        try:
            return date.fromisoformat(text)
        except ValueError as error:
            raise UnsupportedTimestamp(text, str(error)) from None
    return parse_timestamp(text)


def format_due(value: DueInput) -> str:
    """Render a due value (or a fetch bound) for the wire."""
    if isinstance(value, str):
        return value
    if isinstance(value, datetime):
        if value.utcoffset() is None:
            raise ValueError("a due date-time needs a time zone (RFC 3339 requires an offset)")
        return value.isoformat()
    return value.isoformat()
