"""A passage that continues a table: the header row it was cut from (pure functions).

A long table is cut into several chunks, and only the first holds its header row; the rest
hold rows whose columns nothing names ("| 卫浴 | 12,000 | — | 马桶、花洒 |": the budget or the
cost?). ``continued_header`` finds the header row of the table a passage opens inside, from
the document text before it, so the citation can show the columns beside the rows.

Tables are read as extractors write them: Markdown pipe rows (``| a | b |``, the header over
a ``---`` rule; a PDF's ruled tables are written so), and DOCX and HTML rows as lines of cells
joined by " | " (their first row is the header).

``cells_unfilled`` reads the cell a question asks. Notes keep what is not known yet in their
tables: "What is the phone number of the security lead Hana Kovač?" against

    | Role | Name | Phone |
    | --- | --- | --- |
    | Security lead | Hana Kovač | TBC |

asks the cell in the row naming Hana Kovač and the column "Phone", and the table says it is
not known. A Markdown table in the passage is read with its header row (a continuation chunk
is judged with its table's header and rule before it: ``header_lines``). The question names
a row by its words written in at most ``ROW_SHARE`` of the rows (a key, not a word every row
repeats; the rows holding most of them), and a column by its other words written in that
column's header (the columns holding most of them: "Q2 revenue" of "| Q1 revenue | Q2
revenue |"). When it names both and every such cell says the value is unknown
(``TBC``, ``TBD``, ``TBA``, "to be confirmed", "unknown", ``?``, 待定, 未定, 待确认, 待查, 未知),
the passage cannot answer. Anything else decides nothing: no header, no row or column named,
a row with another number of cells than its header (a row cut at the chunk's start), or any
other cell, "—", "none" and blank included (they may be the answer: "Support act: —").
"""

from __future__ import annotations

import re
from typing import NamedTuple

from kb.retrieve.answer_types import AnswerType, answer_type, novel_filler
from kb.retrieve.rows import cells as row_cells
from kb.retrieve.rows import is_row
from kb.retrieve.terms import is_stop
from kb.retrieve.units import TABLE_RULE
from kb.store.textindex import cut_words, has_cjk, normalise_word

_RULE = TABLE_RULE  # a Markdown table's rule under its header: | --- | :---: |
# how far back a header row is looked for (code points, and chunks: chunks are 80 code points
# at least): a table this long before the passage is not read to its top
LOOKBACK_CHARS = 8000
LOOKBACK_CHUNKS = 100
MAX_HEADER_CELLS = 30  # a longer "header" is no table's header row
MAX_HEADER_CHARS = 400


class TableContext(NamedTuple):
    """What a passage continuing a table is cited with (``continued_header``).

    Attributes:
        header: the table's header row, from an earlier chunk.
        row_start: the beginning of the row the passage opens in the middle of (the end of
            the chunk before), or ``""`` when it opens at a row's start (``row_start``).
    """

    header: str
    row_start: str


def row_start(before: str) -> str:
    """The beginning of the line a passage opens in: ``before``'s last line.

    ``""`` at a line's start, and for a beginning over ``MAX_HEADER_CHARS`` (a long cell:
    the passage is then cited from where it opens, not with a row longer than itself).
    """
    start = before.rsplit("\n", 1)[-1]
    return start if len(start) <= MAX_HEADER_CHARS else ""


def header_lines(header: str) -> str:
    """A table's header row as the judge reads it before a continuation chunk.

    A Markdown row (``| a | b |``) gets its ``---`` rule back under it, so the passage reads
    as a table with a header (``cells_unfilled``); other rows are returned as they are.
    """
    if not header.startswith("|"):
        return header
    return header + "\n|" + " --- |" * len(row_cells(header))


def is_rule(line: str) -> bool:
    """Whether ``line`` is a Markdown table's rule under its header (``| --- | :---: |``)."""
    return bool(_RULE.match(line))


def opens_with_row(text: str) -> bool:
    """Whether the passage may open inside a table: a cell separator in its first two lines.

    (A DOCX or HTML row has no outer pipes, so a passage opening at a row's last cell shows
    its first ``|`` on the next line.)
    """
    return "|" in "\n".join(text.lstrip().split("\n", 2)[:2])


def continued_header(before: str, text: str, *, from_start: bool,
                     source_type: str) -> str | None:
    """The header row of the table ``text`` opens inside, or ``None``.

    Args:
        before: the document text just before the passage (``kb.store.reading.text_before``:
            a blank line where the chunker dropped one).
        text: the passage.
        from_start: ``before`` begins at the document's start (else it was cut short).
        source_type: the document's type: a Markdown table needs its ``---`` rule (pipes
            in prose or code are no table), DOCX and HTML rows need none; a PDF's tables are
            Markdown ones (``kb.ingest.extract.pdf_tables`` writes them so), and its other
            lines are no rows (page headers and footers look like them).

    Returns:
        The table's header row, stripped, when it lies before the passage and has as many
        cells as the row the passage opens in (at most ``MAX_HEADER_CELLS`` cells and
        ``MAX_HEADER_CHARS`` characters); ``None`` when the passage opens no table row,
        starts the table itself (its header is in it), or the rows run back to the start of
        a ``before`` that was cut short (the header is unknown).
    """
    first, second = (text.lstrip().split("\n", 2) + ["", ""])[:2]
    lines = before.split("\n")
    current = lines[-1] + first  # the whole line the passage opens in
    if not is_row(current) or _RULE.match(current) or _RULE.match(second):
        return None  # no row, or the passage opens with the table's header
    above: list[str] = []
    for line in reversed(lines[:-1]):
        if not (is_row(line) or _RULE.match(line)):
            break
        above.append(line)
    else:
        if not from_start:
            return None
    if current.lstrip().startswith("|"):  # Markdown: the line over the topmost rule
        rules = [i for i, line in enumerate(above) if _RULE.match(line)]
        header = above[rules[-1] + 1] if rules and rules[-1] + 1 < len(above) else None
    else:  # DOCX and HTML rows: the first row
        header = above[-1] if above and source_type in ("docx", "html") else None
    if header is None or _RULE.match(header):
        return None
    cells = row_cells(header)
    if (len(cells) != len(row_cells(current)) or len(cells) > MAX_HEADER_CELLS
            or len(header.strip()) > MAX_HEADER_CHARS):
        return None
    return header.strip()


ROW_SHARE = 0.34  # a word in more than a third of a table's rows names no row
# a cell saying its value is not known yet ("—", "none" or blank may be the answer)
_PLACEHOLDER = re.compile(r"^(?:[?？]+|tbc|tbd|tba|to be confirmed|to be decided|unknown|待定|未定|"
                          r"待确认|待查|未知|[（(]?(?:待定|待查|tbc)[)）]?)$", re.I)
# a question asking whether a value is known yet: the placeholder answers it
_KNOWN_YET = re.compile(r"\b(?:confirm\w*|known|yet|decided|finali[sz]ed|settled|booked)\b|"
                        r"确定|定了|确认|敲定|定下|知道", re.I)
_WORD = re.compile(r"[^\W\d_][\w'-]*|\d+(?:[.,]\d+)*")  # letters of any script, digits


def _words(text: str) -> set[str]:
    """Normalised content words: Snowball stems of Latin words, jieba words of Han runs."""
    out = {normalise_word(w) for w in _WORD.findall(text)
           if not has_cjk(w) and not is_stop(w.casefold())}
    if has_cjk(text):
        out |= {w for w in cut_words(text) if has_cjk(w) and not is_stop(w)}
    return out


def _tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """The Markdown tables of ``text`` with a header row: (header cells, data rows' cells)."""
    lines = text.splitlines()
    out = []
    for i in range(1, len(lines)):
        if _RULE.match(lines[i]) and "|" in lines[i - 1]:
            header, rows = row_cells(lines[i - 1]), []
            for line in lines[i + 1:]:
                if "|" not in line or _RULE.match(line):
                    break
                if len(cells := row_cells(line)) == len(header):  # not a row cut short
                    rows.append(cells)
            if rows:
                out.append((header, rows))
    return out


def cells_unfilled(query: str, text: str) -> tuple[str, ...]:
    """``("<column> of <row>",)`` when every cell the question names says "not known yet".

    See the module docstring; ``()`` decides nothing.

    A question asking whether the value is known yet ("Is her phone number confirmed?",
    确定了吗) is answered by the placeholder, and a passage that names the row's key outside
    its tables with the column asked or a figure ("Update: Hana Kovač's phone is 0161 ...",
    "卫浴最后花了 11,350 元") may answer in prose: neither is decided ("瓷砖还没有选好" names
    the key, neither the cost asked nor a figure). A figure is a number in the unit asked
    (``kb.retrieve.answer_types.novel_filler``), not a date ("Hana Kovač starts on 3 May"),
    unless the question asks a date. (A yes-or-no question is left out by the
    caller, ``kb.retrieve.relations``.)

    Args:
        query: the question.
        text: the passage (Markdown tables as chunks keep them).
    """
    asked = _words(query)
    if not asked or "|" not in text or _KNOWN_YET.search(query):
        return ()
    kinds: tuple[AnswerType, ...] = ("number", "date") if answer_type(query) == "date" else (
        "number",)
    prose = [(_words(line), any(novel_filler(line, k, query) for k in kinds))
             for line in text.splitlines() if not (is_row(line) or _RULE.match(line))]
    for header, rows in _tables(text):
        row_words = [_words(" ".join(r)) for r in rows]
        keys = {w for w in asked
                if 0 < sum(w in ws for ws in row_words) <= max(1, ROW_SHARE * len(rows))}
        held = [len(ws & keys) for ws in row_words]  # the row named: most of the keys
        named_rows = [i for i, n in enumerate(held) if n and n == max(held)]
        shared = [len(_words(h) & (asked - keys)) for h in header]  # the column asked: the
        columns = [j for j, n in enumerate(shared) if n and n == max(shared)  # most words
                   and not any(_words(rows[i][j]) & keys for i in named_rows)]  # not the key
        if not named_rows or not columns:
            continue
        cells = [(rows[i][j] if j < len(rows[i]) else "") for i in named_rows for j in columns]
        asked_columns = asked & set().union(*(_words(header[j]) for j in columns))
        if all(_PLACEHOLDER.match(c) for c in cells) and not any(  # prose of the key
                ws & keys and (ws & asked_columns or digits)  # with its column or a figure
                for ws, digits in prose):  # may answer
            row = rows[named_rows[0]]
            key = next(c for c in row if _words(c) & keys)
            return (f"{header[columns[0]]} of {key}",)
    return ()
