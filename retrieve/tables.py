"""A passage that continues a table: the header row it was cut from (pure functions).

A long table is cut into several chunks, and only the first holds its header row; the rest
hold rows whose columns nothing names ("| 卫浴 | 12,000 | — | 马桶、花洒 |": the budget or the
cost?). ``continued_header`` finds the header row of the table a passage opens inside, from
the document text before it, so the citation can show the columns beside the rows.

Tables are read as extractors write them: Markdown pipe rows (``| a | b |``, the header over
a ``---`` rule), and DOCX and HTML rows as lines of cells joined by " | " (their first row is
the header).
"""

from __future__ import annotations

import re

# a Markdown table's rule under its header: | --- | :---: |
_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
# how far back a header row is looked for (code points): a table this long before the
# passage is not read to its top
LOOKBACK_CHARS = 8000


def _is_row(line: str) -> bool:
    """A table row: two cells at least, separated by ``|`` (outer pipes optional)."""
    cells = line.strip().strip("|").split("|")
    return len(cells) >= 2 and any(c.strip() for c in cells)


def opens_with_row(text: str) -> bool:
    """Whether the passage's first line holds a cell separator (it may continue a table)."""
    return "|" in text.lstrip().split("\n", 1)[0]


def continued_header(before: str, text: str, *, from_start: bool) -> str | None:
    """The header row of the table ``text`` opens inside, or ``None``.

    Args:
        before: the document text just before the passage (up to ``LOOKBACK_CHARS``).
        text: the passage.
        from_start: ``before`` begins at the document's start (else it was cut short).

    Returns:
        The topmost row of the run of table rows (and rules) the passage's first line
        belongs to, stripped, when that row lies before the passage; ``None`` when the
        passage opens no table row, starts the table itself (its header is in it), or the
        run reaches the start of a ``before`` that was cut short (the header is unknown).
    """
    lines = before.split("\n")
    current = lines[-1] + text.lstrip().split("\n", 1)[0]  # the whole line the passage opens in
    if not _is_row(current) or _RULE.match(current):
        return None
    above: list[str] = []
    for line in reversed(lines[:-1]):
        if not (_is_row(line) or _RULE.match(line)):
            break
        above.append(line)
    else:
        if not from_start:
            return None
    top = next((line for line in reversed(above) if not _RULE.match(line)), None)
    return top.strip() if top is not None else None
