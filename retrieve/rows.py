"""A table's data row read with its header row (pure functions).

A row says what it holds only under its columns' names: "| 24 Feb | T4 | Goldeneye | 27 |"
is a count of Goldeneye only because the header over it says "| Date | Transect | Species |
Count |". The judge looks for the sentence of a passage that holds most of the question's
focus (``kb.retrieve.answer_types.best_sentence``); read alone, the header row held "count"
and every data row held nothing of it, so the header was taken as the answer's place and the
row holding the asked date and count never was. ``with_headers`` gives each data row its
header row before it, as a reader sees the two together.

Tables are read as extractors write them (``kb.retrieve.tables``): Markdown pipe rows, and
DOCX and HTML rows as cells joined by " | " (no outer pipes); a table's first row is its
header, and a ``---`` rule under it is no row.
"""

from __future__ import annotations

from collections.abc import Sequence

from kb.retrieve.units import TABLE_RULE


def cells(line: str) -> list[str]:
    """A row's cells, stripped (outer pipes optional)."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


def is_row(line: str) -> bool:
    """Whether ``line`` is a table row: two cells at least, one filled (outer pipes optional)."""
    found = cells(line)
    return len(found) >= 2 and any(found)


def with_headers(lines: Sequence[str]) -> list[str]:
    """``lines`` with each table data row preceded by its table's header row (and a newline).

    A table is a run of consecutive rows (``is_row``); its first row is the header, and so is
    a row with a rule (``| --- |``) under it: sentences are cut without blank lines, so two
    Markdown tables may follow each other as one run. Headers, rules and every line outside
    a table are returned as they are. The result has one entry per line of ``lines``, in
    order.
    """
    out: list[str] = []
    header: str | None = None
    for i, line in enumerate(lines):
        ruled = i + 1 < len(lines) and TABLE_RULE.match(lines[i + 1]) is not None
        if not is_row(line):
            header = None
            out.append(line)
        elif TABLE_RULE.match(line):
            out.append(line)
        elif header is None or ruled:
            header = line
            out.append(line)
        else:
            out.append(f"{header}\n{line}")
    return out
