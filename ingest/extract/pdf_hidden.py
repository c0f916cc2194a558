"""Text a reader of a PDF page cannot see: blanked before extraction, so it is not indexed.

Two ways of hiding a phrase from the reader while leaving it to text extraction (and so to a
model reading the references) are common: white text on a white page, and text of about
1 point. ``strip_hidden_text`` walks the page's content stream with the graphics state
(``q``/``Q``, ``cm``, the fill colour, ``Tf``, ``Tm``, ``Tr``) and empties every text-showing
operation that is

* under ``MIN_VISIBLE_PT`` tall once the font size is scaled by the text and current
  transformation matrices; or
* filled white (every component within ``WHITE_TOLERANCE`` of white, in a gray, RGB or CMYK
  space; a Separation, DeviceN or Indexed colour is taken as ink) while
  nothing but white has been painted on the page so far: white text on a dark box, a picture
  or a shading drawn first is visible and stays.

Invisible text (``3 Tr``) stays: it is how OCR tools lay a searchable text layer over a scan.
Known limits: text inside form XObjects is not walked, and a white phrase drawn on a page that
also painted anything dark elsewhere is kept (the test is per page, not per position).
"""

from __future__ import annotations

import math
import re
from typing import Any

from pypdf.generic import ArrayObject, ContentStream, NameObject, TextStringObject

MIN_VISIBLE_PT = 2.0  # fine print and footnote marks are 5 pt and up; 1-point text is hiding
WHITE_TOLERANCE = 0.05  # #F2F2F2 and lighter counts as white on a white page
_SHOW = {b"Tj", b"TJ", b"'", b'"'}
_PICTURES = {b"sh", b"Do", b"INLINE IMAGE"}  # shadings, XObjects, inline images (pypdf's name)
_FILL_PAINT = {b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*", *_PICTURES}
# Cheap test on the raw stream: a white-ish fill colour, or a font size under 2 (which may be
# scaled up by a matrix, so the walk decides).
_MAYBE = re.compile(
    rb"(?:^|\s)(?:(?:1(?:\.0*)?|0?\.9[5-9]\d*)\s+){1,3}(?:g|rg|sc|scn)\b"
    rb"|(?:^|\s)(?:0(?:\.0*)?\s+|0?\.0[0-5]\d*\s+){4}(?:k|sc|scn)\b"
    rb"|(?:^|\s)(?:0?\.\d+|1(?:\.\d*)?)\s+Tf\b")

Matrix = tuple[float, float, float, float, float, float]
_IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _multiply(m: Matrix, n: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (a * a2 + b * c2, a * b2 + b * d2, c * a2 + d * c2, c * b2 + d * d2,
            e * a2 + f * c2 + e2, e * b2 + f * d2 + f2)


Fill = tuple[str, tuple[float, ...]]  # (colour space kind, components)
_INK: Fill = ("other", ())
_BLACK: Fill = ("gray", (0.0,))
_KINDS = {"/DeviceGray": "gray", "/G": "gray", "/CalGray": "gray", "/DeviceRGB": "rgb",
          "/RGB": "rgb", "/CalRGB": "rgb", "/DeviceCMYK": "cmyk", "/CMYK": "cmyk"}
_ICC_KINDS = {1: "gray", 3: "rgb", 4: "cmyk"}
_COMPONENTS = {"gray": 1, "rgb": 3, "cmyk": 4}


def _white(fill: Fill) -> bool:
    kind, components = fill
    if kind == "cmyk":  # no ink
        return len(components) == 4 and all(v <= WHITE_TOLERANCE for v in components)
    return (kind in ("gray", "rgb") and len(components) == _COMPONENTS[kind]
            and all(v >= 1 - WHITE_TOLERANCE for v in components))


def _space_kind(name: Any, resources: Any) -> str:
    """``gray``, ``rgb`` or ``cmyk`` for a colour space whose white is known, else ``other``.

    Separation, DeviceN, Indexed, Lab and Pattern spaces are ``other``: a tint of 1 is full
    ink there, not white.
    """
    kind = _KINDS.get(str(name))
    if kind:
        return kind
    try:
        space = resources["/ColorSpace"][name].get_object()
        if str(space) in _KINDS:
            return _KINDS[str(space)]
        family = str(space[0])
        if family == "/ICCBased":
            return _ICC_KINDS.get(int(space[1].get_object()["/N"]), "other")
        return _KINDS.get(family, "other")
    except Exception:  # missing or malformed resource: treated as ink
        return "other"


def _numbers(operands: list[Any]) -> tuple[float, ...] | None:
    try:
        return tuple(float(v) for v in operands)
    except (TypeError, ValueError):  # a pattern name, or a malformed operand
        return None


def strip_hidden_text(page: Any) -> int:
    """Blank the page's hidden text-showing operations (see the module docstring).

    Args:
        page: a ``pypdf.PageObject``; its ``/Contents`` is replaced (in memory only) when
            something is blanked.

    Returns:
        The number of text-showing operations blanked; 0 when the page holds none, or when
        its content stream cannot be read (extraction then reads it as it is).
    """
    try:
        contents = page.get_contents()
        if contents is None or not _MAYBE.search(contents.get_data()):
            return 0
        stream = ContentStream(contents, page.pdf)
        blanked = _walk(stream.operations, page.get("/Resources") or {})
        if blanked:
            page[NameObject("/Contents")] = stream
        return blanked
    except Exception:  # hiding detection must never cost the page its text
        return 0


def _walk(operations: list[tuple[Any, bytes]], resources: Any) -> int:
    ctm, size, render = _IDENTITY, 12.0, 0
    fill, space = _BLACK, "gray"
    stack: list[tuple[Matrix, Fill, str, float, int]] = []
    tm: Matrix = _IDENTITY
    painted = False  # anything not white painted on the page so far
    blanked = 0
    for i, (operands, op) in enumerate(operations):
        if op == b"q":
            stack.append((ctm, fill, space, size, render))
        elif op == b"Q" and stack:
            ctm, fill, space, size, render = stack.pop()
        elif op == b"cm" and len(operands) == 6:
            m = _numbers(operands)
            ctm = _multiply(m, ctm) if m else ctm  # type: ignore[arg-type]
        elif op in (b"g", b"rg", b"k"):
            space = {b"g": "gray", b"rg": "rgb", b"k": "cmyk"}[op]
            fill = (space, _numbers(operands) or ())
        elif op in (b"sc", b"scn"):
            fill = (space, _numbers(operands) or ()) if space != "other" else _INK
        elif op == b"cs" and operands:
            space = _space_kind(operands[0], resources)
            fill = _INK  # a new colour space starts at its initial colour (ink)
        elif op == b"BT":
            tm = _IDENTITY
        elif op == b"Tm" and len(operands) == 6:
            m = _numbers(operands)
            tm = m if m else tm  # type: ignore[assignment]
        elif op == b"Tf" and len(operands) == 2:
            size = float(operands[1])
        elif op == b"Tr" and operands:
            render = int(operands[0])
        elif op in _FILL_PAINT:
            painted = painted or op in _PICTURES or not _white(fill)
        elif op in _SHOW and render != 3:
            scale = math.sqrt(abs((tm[0] * tm[3] - tm[1] * tm[2])
                                  * (ctm[0] * ctm[3] - ctm[1] * ctm[2])))
            tiny = abs(size) * scale < MIN_VISIBLE_PT
            if tiny or (not painted and _white(fill) and render in (0, 2, 4, 6)):
                operations[i] = (_blank(operands, op), op)
                blanked += 1
    return blanked


def _blank(operands: list[Any], op: bytes) -> list[Any]:
    if op == b"TJ":
        return [ArrayObject()]
    return [*operands[:-1], TextStringObject("")]  # ' and " keep their spacing operands
