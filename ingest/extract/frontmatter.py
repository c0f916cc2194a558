"""Markdown front matter: a YAML block fenced by ``---`` or a TOML block fenced by ``+++``.

Parsed with PyYAML's ``safe_load`` and the standard library's ``tomllib``; the title, date and
tags become document metadata and the block leaves the indexed text.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

import yaml

# The block opens on the first line and closes on a line of the same fence (YAML may also
# close with "..."); the body starts after the closing line.
_YAML_RE = re.compile(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_TOML_RE = re.compile(r"\A\+\+\+[ \t]*\n(.*?\n)?\+\+\+[ \t]*(?:\n|\Z)", re.S)
DATE_KEYS = ("date", "created", "published", "created_at")  # first present wins


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
        warning: why a block that looked like front matter was not parsed, else ``None``.
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
    for fence, match, load in (("YAML", _YAML_RE.match(text), yaml.safe_load),
                               ("TOML", _TOML_RE.match(text), tomllib.loads)):
        if match is None:
            continue
        try:
            data = load(match[1] or "")
        except (yaml.YAMLError, tomllib.TOMLDecodeError) as exc:
            reason = " ".join(str(exc).split())[:200]
            return FrontMatter(warning=f"{fence} front matter not parsed, kept as text: {reason}")
        if data is None:
            data = {}
        if not isinstance(data, dict):
            return FrontMatter(warning=f"{fence} front matter is not a table of keys, kept as "
                                       "text")
        title = data.get("title")
        return FrontMatter(
            title=" ".join(title.split()) or None if isinstance(title, str) else None,
            created_at=next((d for d in map(_instant, (data.get(k) for k in DATE_KEYS))
                             if d is not None), None),
            tags=_tags(data.get("tags")),
            body_start=match.end(),
        )
    return FrontMatter()


def _instant(value: object) -> datetime | None:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime.combine(value, time(), UTC)
    return None


def _tags(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list):
        return ()
    tags = (" ".join(str(v).split()) for v in value if isinstance(v, str | int | float))
    return tuple(dict.fromkeys(t for t in tags if t))
