"""WordprocessingML text: paragraphs, tables and text boxes read from the XML elements.

python-docx's ``Paragraph.text`` skips tracked insertions, content controls and text boxes,
and its tables repeat merged cells; these helpers read the ``w:`` elements directly.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kb.ingest.extract.cleaning import clean_text
from kb.ingest.extract.common import one_line

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
# Inline elements whose text is not reading text: properties, tracked deletions and moves,
# field codes, text boxes (read separately) and the fallback copies of drawings.
_SKIPPED = frozenset(
    W + name
    for name in ("pPr", "rPr", "del", "moveFrom", "delText", "instrText", "txbxContent", "sym")
) | {MC_FALLBACK}
_WRAPPERS = (W + "sdt", W + "customXml")
# Text under this size (half-points) is not meant to be read: 1-point text hides a phrase from
# the reader as Word's "hidden" format does (footnote marks and fine print are 5 pt and up).
MIN_VISIBLE_HALF_POINTS = 4
_OFF = frozenset({"0", "false", "off"})


def hidden_run(run: Any) -> bool:
    """Whether a ``w:r`` is invisible to a reader: ``w:vanish`` (Word's hidden text) or < 2 pt.

    Only the run's own properties are read (not a character style's).
    """
    props = run.find(W + "rPr")
    if props is None:
        return False
    vanish = props.find(W + "vanish")
    if vanish is not None and vanish.get(W + "val", "true").lower() not in _OFF:
        return True
    size = props.find(W + "sz")
    value = size.get(W + "val", "") if size is not None else ""
    return value.isdigit() and int(value) < MIN_VISIBLE_HALF_POINTS


def paragraph_text(p: Any) -> str:
    """Return the reading text of a ``w:p``: runs, hyperlinks, insertions, field results.

    Tabs stay tabs and breaks become newlines; deleted text, field codes, hidden runs
    (``hidden_run``) and text boxes are left out (see ``text_box_lines``).
    """
    parts: list[str] = []
    _collect(p, parts)
    return clean_text("".join(parts)).strip()


def _collect(element: Any, parts: list[str]) -> None:
    for child in element.iterchildren():
        tag = child.tag
        if tag in _SKIPPED or not isinstance(tag, str):  # comments, processing instructions
            continue
        if tag == W + "r" and hidden_run(child):
            continue
        if tag == W + "t":
            parts.append(child.text or "")
        elif tag in (W + "tab", W + "ptab"):
            parts.append("\t")
        elif tag in (W + "br", W + "cr"):
            parts.append("\n")
        elif tag == W + "noBreakHyphen":
            parts.append("-")
        else:
            _collect(child, parts)


def content(element: Any) -> Any:
    """Return the content of ``w:sdt`` (its ``w:sdtContent``) or of ``w:customXml`` (itself)."""
    inner = element.find(W + "sdtContent")
    return inner if inner is not None else element


def text_box_lines(p: Any) -> list[str]:
    """Return the lines of the text boxes anchored in paragraph ``p``, each box once."""
    lines: list[str] = []
    for box in p.iter(W + "txbxContent"):
        parent = box.getparent()
        while parent is not None and parent is not p:
            if parent.tag in (MC_FALLBACK, W + "txbxContent"):
                break  # a fallback copy, or a box inside a box (read with its outer box)
            parent = parent.getparent()
        else:
            lines.extend(container_lines(box))
    return lines


def container_lines(container: Any) -> list[str]:
    """Return the lines of a block container (cell, header, note, text box) in order."""
    lines: list[str] = []
    for child in container.iterchildren():
        if child.tag == W + "p":
            text = paragraph_text(child)
            lines.extend([text] if text else [])
            lines.extend(text_box_lines(child))
        elif child.tag == W + "tbl":
            lines.extend(table_lines(child))
        elif child.tag in _WRAPPERS:
            lines.extend(container_lines(content(child)))
    return lines


def table_lines(tbl: Any) -> list[str]:
    """Return one line per non-empty row, cells joined by " | ".

    A nested table is inlined in its cell as ``[row; row]``; an empty cell (a vertical
    merge's continuation, or simply blank) keeps its place so columns stay aligned.
    """
    lines = []
    for row in children(tbl, W + "tr"):
        cells = [_cell_text(cell) for cell in children(row, W + "tc")]
        if any(cells):
            lines.append(" | ".join(cells))
    return lines


def _cell_text(cell: Any) -> str:
    pieces = []
    for child in children(cell, W + "p", W + "tbl"):
        if child.tag == W + "tbl":
            nested = table_lines(child)
            pieces.append("[" + "; ".join(nested) + "]" if nested else "")
        else:
            pieces.extend([paragraph_text(child), *text_box_lines(child)])
    return one_line(" ".join(pieces))


def children(element: Any, *tags: str) -> Iterator[Any]:
    """Yield direct children with one of ``tags``, looking through content controls."""
    for child in element.iterchildren():
        if child.tag in tags:
            yield child
        elif child.tag in _WRAPPERS:
            yield from children(content(child), *tags)
