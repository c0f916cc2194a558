"""Text in UTF-16 without a byte-order mark: told by where its NUL bytes fall (pure functions).

Windows tools write UTF-16 text without a byte-order mark now and then; read as UTF-8 it is
letters with a NUL between them. ``utf16_without_bom`` tells such bytes from UTF-8 and from
binary data before ``kb.ingest.extract.common.decode_bytes`` tries UTF-8.
"""

from __future__ import annotations

import codecs

# Share (0..1) of the code units of one parity that must be NUL, with none of the other, for
# bytes without a byte-order mark to be UTF-16 (``utf16_without_bom``): text mostly in Latin
# letters, digits and punctuation, each unit's high byte NUL (Windows tools write such files).
UTF16_MIN_NUL_SHARE = 0.3


def utf16_without_bom(data: bytes) -> str | None:
    r"""``"utf-16-le"`` or ``"utf-16-be"`` when ``data`` is UTF-16 without a byte-order mark.

    Such text in Latin letters has every other byte NUL: its code units' high bytes. At
    least ``UTF16_MIN_NUL_SHARE`` of the units must have a NUL there, a tenth as many at
    most one in their low byte ("一" is U+4E00), and the text decoded must be printable but
    for 1% at most (a binary array of small numbers is no text). Bytes that are valid UTF-8
    too (ASCII in UTF-16 is: NUL is a character) must decode to ASCII for half their units at
    least: a list of NUL-ended words of one length ("apple\0grape\0") puts its NULs at one
    parity too, and decodes to CJK-looking pairs.
    UTF-16 text of Chinese alone has no such NULs and is left to detection. ``None``
    otherwise.
    """
    units = len(data) // 2
    if units < 2:
        return None
    even, odd = data[0:units * 2:2].count(0), data[1:units * 2:2].count(0)
    for nul, other, encoding in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
        if other * 10 <= nul and nul >= UTF16_MIN_NUL_SHARE * units:
            try:  # not final: a surrogate pair cut at a sample's end is no error
                text = codecs.getincrementaldecoder(encoding)().decode(data, final=False)
            except UnicodeDecodeError:
                return None
            unprintable = sum(1 for c in text if not c.isprintable() and c not in "\t\n\r\f")
            if unprintable > 0.01 * len(text):
                return None
            if _is_utf8(data) and sum(c.isascii() for c in text) < 0.5 * len(text):
                return None
            return encoding
    return None


def _is_utf8(data: bytes) -> bool:
    """Whether ``data`` decodes as UTF-8 (a sequence cut at its end allowed: a sample's)."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(data, final=False)
    except UnicodeDecodeError:
        return False
    return True
