"""RFC 3339 instants and periods as search filters take them (``created_after/before``)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

# RFC 3339 (https://www.rfc-editor.org/rfc/rfc3339#section-5.6): a full-date, optionally with
# a time (T, t or a space; seconds and a fraction of any length optional: read to the
# microsecond) and an offset.
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
                     r"(?:[Zz]|[+-]\d{2}:\d{2})?)?")


def parse_instant(value: str | date | None, name: str) -> datetime | None:
    """Parse an RFC 3339 date or date-time; a value without a zone is taken as UTC.

    A ``datetime`` is taken as it is (a naive one in the local time zone, as Python reads
    ``datetime.now()``), a ``date`` as its midnight UTC (as the string ``2026-01-31``).

    The shape is checked strictly (``RFC3339``): Python's ``fromisoformat`` alone would also
    take ISO 8601 forms such as ``20260131``, which the tool schema and other clients refuse.

    Args:
        value: e.g. ``2026-01-31``, ``2026-01-31T08:00:00Z``, ``2026-01-31T08:00+01:00``.
        name: the option's name, for the error message.

    Returns:
        A timezone-aware datetime, or ``None`` when ``value`` is ``None``.

    Raises:
        ValueError: ``value`` is not an RFC 3339 date or date-time (the message names ``name``).
        TypeError: ``value`` is neither a string, a ``date`` nor a ``datetime``.
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.astimezone()
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be an RFC 3339 string, a datetime or a date, got "
                        f"{type(value).__name__}")
    problem = f"{name} must be an RFC 3339 date-time such as 2026-01-31 or " \
              f"2026-01-31T08:00:00Z, got {value!r}"
    if not RFC3339.fullmatch(value.strip()):
        raise ValueError(problem)
    try:
        text = re.sub(r"(\.\d{6})\d+", r"\1", value.strip())  # nanoseconds: to the microsecond
        dt = datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError as exc:  # the right shape, an impossible date (2024-02-30) or offset
        offset = re.search(r"[+-](\d{2}):\d{2}$", value.strip())
        reason = ("UTC offset out of range: it must lie between -23:59 and +23:59"
                  if offset and int(offset[1]) > 23 else str(exc))
        raise ValueError(f"{name} is not a valid date-time: {value!r} ({reason})") from exc
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def parse_period(after: str | date | None, before: str | date | None,
                 names: tuple[str, str] = ("created_after", "created_before")
                 ) -> tuple[datetime | None, datetime | None]:
    """Parse a period's bounds (``parse_instant``) and check that it can hold a document.

    Args:
        after: the inclusive start, RFC 3339 (or a ``datetime``, a ``date``), or ``None``.
        before: the exclusive end, likewise.
        names: how the error message names the two bounds (an interface's own words).

    Returns:
        Both bounds as timezone-aware datetimes (``None`` where not given).

    Raises:
        ValueError: a bound is not RFC 3339, or ``after`` is not earlier than ``before``.
        TypeError: a bound is of another type.
    """
    start, end = parse_instant(after, names[0]), parse_instant(before, names[1])
    if start is not None and end is not None and start >= end:
        raise ValueError(f"{names[0]} must be earlier than {names[1]} (got {after} and "
                         f"{before}): no document can match")
    return start, end
