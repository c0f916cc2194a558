"""Markdown front matter: a YAML block fenced by ``---`` or a TOML block fenced by ``+++``.

Parsed with PyYAML's safe loader (dates kept as text, so an impossible one such as
``2031-02-30`` is a warning, not a failure) and the standard library's ``tomllib``; the title,
date and tags become document metadata and the block leaves the indexed text.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

import yaml

from kb.ingest.extract.dates import FUTURE_SLACK

# The block opens on the first line and closes on a line of the same fence (YAML may also
# close with "..."); the body starts after the closing line.
_YAML_RE = re.compile(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_TOML_RE = re.compile(r"\A\+\+\+[ \t]*\n(.*?\n)?\+\+\+[ \t]*(?:\n|\Z)", re.S)
# a fence on the first line followed by two lines of keys ("title:", "date ="), and no closing
# fence: a block whose end was forgotten (a "---" rule first, then "Note: draft only.", says
# nothing)
_UNCLOSED_RE = re.compile(r"\A(---|\+\+\+)[ \t]*\n(?:[A-Za-z_][\w-]*[ \t]*[:=][^\n]*\n){2}")
DATE_KEYS = ("date", "created", "published", "created_at")  # first present wins


class _PlainScalars(yaml.SafeLoader):
    """PyYAML's safe loader with timestamps, numbers and booleans left as the text written.

    ``safe_load`` builds a ``datetime.date`` for ``2031-02-30`` and raises ``ValueError``
    there, failing the whole note, and reads ``title: 12:30`` as 750 (base 60), ``010`` as
    8, ``yes`` as ``True``; as text, a title is what was written and a date is checked here
    (and dropped with a warning when it is none).
    """


_PlainScalars.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in (
        "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
        "tag:yaml.org,2002:bool")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """What a document's front matter says about it.

    Attributes:
        title: the ``title`` value, or ``None``.
        created_at: the first of ``DATE_KEYS`` that holds a date (timezone-aware; a bare date
            is midnight UTC, a naive time UTC), or ``None``.
        tags: the ``tags`` value (a list, or one comma-separated string), stripped, without
            duplicates, in order.
        body_start: offset (code points) in the text where the body starts after the block.
        warning: why a block that looked like front matter was not parsed, or which values
            were ignored (a date that is no date, a title that is no text), else ``None``.
    """

    title: str | None = None
    created_at: datetime | None = None
    tags: tuple[str, ...] = ()
    body_start: int = 0
    warning: str | None = None


def parse_front_matter(text: str) -> FrontMatter:
    """Read the front matter at the start of ``text`` (LF newlines), if there is one.

    A block that does not parse, or is not a table of keys, is left in the text
    (``body_start`` 0) with a one-line ``warning``; values of the wrong kind are ignored.
    """
    for fence, match, load in (("YAML", _YAML_RE.match(text), _load_yaml),
                               ("TOML", _TOML_RE.match(text), tomllib.loads)):
        if match is None:
            continue
        try:
            data = load(match[1] or "")
        except (yaml.YAMLError, tomllib.TOMLDecodeError, ValueError) as exc:
            reason = " ".join(str(exc).split())[:200]
            return FrontMatter(warning=f"{fence} front matter not parsed, kept as text: {reason}")
        if data is None:
            data = {}
        if not isinstance(data, dict):
            return FrontMatter(warning=f"{fence} front matter is not a table of keys, kept as "
                                       "text")
        title = data.get("title")
        if isinstance(title, int | float) and not isinstance(title, bool):
            title = str(title)  # TOML's "title = 1984" is a title
        given = [k for k in DATE_KEYS if data.get(k) is not None]
        created = next((d for d in map(_instant, (data[k] for k in given)) if d is not None),
                       None)  # the first that is a date ("date: TBD", then "created")
        ignored, future = [], ""
        if given and created is None:
            ignored.append(f"{given[0]} {_shown(data[given[0]])} is not a valid date (the "
                           "file's time is used)")
        if title is not None and not isinstance(title, str):
            ignored.append(f"title {_shown(title)} is not text")
        if created is not None and created > datetime.now(UTC) + FUTURE_SLACK:  # kept, said
            future = (f"{given[0]} {_shown(data[given[0]])} is in the future: time decay reads "
                      "the document as new until then (a typo?)")
        tags = data.get("tags")
        if tags is not None and not isinstance(tags, str | list):
            ignored.append(f"tags {_shown(tags)} is not a list of words")
        elif isinstance(tags, list) and (odd := [t for t in tags if not _word(t)]):
            ignored.append(f"tags {', '.join(map(_shown, odd))}: not words")
        return FrontMatter(
            title=" ".join(title.split()) or None if isinstance(title, str) else None,
            created_at=created, tags=_tags(tags), body_start=match.end(),
            warning="; ".join(filter(None, [
                f"{fence} front matter: {'; '.join(ignored)}; ignored" if ignored else "",
                future])) or None)
    unclosed = _UNCLOSED_RE.match(text)
    if unclosed:
        return FrontMatter(warning=f"front matter opened by {unclosed[1]} on the first line is "
                                   f"never closed by another {unclosed[1]}: kept as text")
    return FrontMatter()


def _load_yaml(text: str) -> object:
    return yaml.load(text, Loader=_PlainScalars)  # noqa: S506 - a SafeLoader subclass


def _shown(value: object, max_chars: int = 40) -> str:
    shown = repr(value)
    return shown if len(shown) <= max_chars else shown[:max_chars] + "..."


def _instant(value: object) -> datetime | None:
    if isinstance(value, str):
        text = value
        try:
            value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        except ValueError:
            value = _yaml_timestamp(text)  # YAML's spaced form: "2001-12-14 21:59:43.10 -5"
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime.combine(value, time(), UTC)
    return None


def _yaml_timestamp(text: str) -> datetime | date | None:
    """``text`` read as a YAML 1.1 timestamp, or ``None`` (not one, or no such day)."""
    try:
        value = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError):  # 2031-02-30 matches the form and is no day
        return None
    return value if isinstance(value, date) else None


def _word(value: object) -> bool:
    """Whether a tags entry is a tag: text (not blank) or a number, not a list or ``null``."""
    return (isinstance(value, str | int | float) and not isinstance(value, bool)
            and bool(str(value).strip()))


def _tags(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list):
        return ()
    tags = (" ".join(str(v).split()) for v in value if _word(v))
    return tuple(dict.fromkeys(t for t in tags if t))
