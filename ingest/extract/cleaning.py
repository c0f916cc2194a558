"""Cleaning extracted text: newlines, control characters and a terminal's escape sequences.

``clean_text`` is what every extractor applies to the text it returns; a plain-text file read
in pieces keeps an escape sequence cut at a piece's end for the next one
(``unfinished_escape``) and counts what was dropped for its warning (``dropped_controls``,
``controls_warning``).
"""

from __future__ import annotations

import re
import unicodedata

# C0 controls except tab and newline, DEL, and lone surrogates (unencodable as UTF-8).
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f\ud800-\udfff]")
# In a text file, NUL, VT and the information separators (FS, GS, RS, US) separate words
# (``find -print0``, /proc's environ, a database's export): a run, with a space on each side,
# is one space, so that "nul\0bytes" is two words and "a\0 b" no double space (tabs stay:
# "bob\t\0\tparis" keeps its columns)
_SEPARATOR_RE = re.compile(" ?[\x00\x0b\x1c-\x1f]+ ?")
# A terminal's escape sequences (ECMA-48: CSI "ESC [ ... m" colours, OSC "ESC ] ... BEL" titles
# ended within a line, two-byte ones such as tput's "ESC ( B"): a saved log is text, "[31m" no
# word. An unended OSC stays (its ESC dropped), never eating the text after it.
_ANSI_RE = re.compile("\x1b\\[[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b\n]{0,512}(?:\x07|\x1b\\\\)|"
                      "\x1b[ -/]*[0-Z^-~]")


# full-width punctuation (not letters or digits): U+FF01-FF0F, FF1A-FF20, FF3B-FF40, FF5B-FF65
_NOT_FULLWIDTH_PUNCT = re.compile("[^\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]+")


def clean_text(text: str, *, nfkc: bool = False, separators: bool = False) -> str:
    """Normalise newlines to LF and drop NUL, other control characters and lone surrogates.

    A terminal's escape sequences go whole (``_ANSI_RE``: "ESC[31m" leaves no "[31m").

    Args:
        text: raw extracted text.
        nfkc: also apply Unicode NFKC normalisation (ligatures such as "ﬁ" become "fi"), but
            to full-width punctuation (，：（）！？), which Chinese and Japanese text writes
            (a Markdown note keeps it too); full-width letters and digits are folded.
        separators: a plain-text file's: NUL, VT and FS to US separate words, a run one
            space (``_SEPARATOR_RE``); else they are dropped (a PDF's NUL is an unmapped
            glyph within a word).

    Returns:
        The cleaned text; leading and trailing whitespace is kept.

    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n")
    text = _ANSI_RE.sub("", text)
    text = _CONTROL_RE.sub("", _SEPARATOR_RE.sub(" ", text) if separators else text)
    if nfkc:  # full-width punctuation kept: a Chinese PDF's "展期：" as written
        text = _NOT_FULLWIDTH_PUNCT.sub(lambda m: unicodedata.normalize("NFKC", m[0]), text)
    return text


def without_escapes(text: str) -> str:
    """``text`` without a terminal's escape sequences (its control characters kept)."""
    return _ANSI_RE.sub("", text)


ESCAPE_MAX_CHARS = 520  # an escape sequence's longest form read whole (an OSC's 512 and more)


def unfinished_escape(text: str) -> int:
    """Where an escape sequence cut short at the end of ``text`` begins; ``len(text)``: none.

    A text read in pieces keeps such a tail for the next piece, so that ``clean_text`` sees
    the sequence whole ("ESC [3" + "1m" would leave "1m" and count its ESC as damage).
    """
    at = text.rfind("\x1b", max(0, len(text) - ESCAPE_MAX_CHARS))
    if at < 0 or "\n" in text[at:] or _ANSI_RE.match(text, at):
        return len(text)
    return at


def dropped_controls(text: str) -> int:
    """How many NUL and other control characters ``clean_text`` drops from ``text``.

    A terminal's escape sequences are not counted (they are formatting, not damage).
    """
    return len(_CONTROL_RE.findall(_ANSI_RE.sub("", text)))


def controls_warning(dropped: int) -> str | None:
    """The warning for a text file that held ``dropped`` NUL or control characters."""
    return (f"{dropped} NUL or control characters dropped (binary bytes in a text file?)"
            if dropped else None)
