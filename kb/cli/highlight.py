"""Search results on a terminal: colour, and the query's words highlighted (rich).

In a pipe (or with ``--color never``, or ``NO_COLOR`` set) the lines are the plain text,
byte for byte what ``click.echo`` prints, so scripts see no change.
"""

from __future__ import annotations

import re
import sys
from typing import Literal, get_args

import click
from rich.console import Console
from rich.text import Text

from kb.store.spellings import other_spellings
from kb.store.textindex import STOPWORDS

ColorMode = Literal["auto", "always", "never"]
COLOR_MODES: tuple[str, ...] = get_args(ColorMode)
MATCH_STYLE = "bold yellow"
MIN_WORD_CHARS = 3  # shorter Latin words (of, to, a) would light up most of a passage
STEM_KEEP_CHARS = 4  # "rotate" also marks "rotating", "rotation": its first letters match


def word_pattern(query: str) -> re.Pattern[str] | None:
    """A case-insensitive pattern of the query's words as they appear in a passage.

    Words of ``MIN_WORD_CHARS`` or more that the search does not drop as stopwords (any
    length in scripts without spaces, whose runs are matched whole) match with any ending
    after their first letters (a word of 6 letters matches from its first 4), so inflected
    forms are marked too, from a word's start; a shorter one is marked as a whole word. So is
    a word's other spelling (British or American, a month's abbreviation), which the search
    finds too (``kb.store.spellings``).

    Returns:
        The pattern, or ``None`` when the query has no such word.
    """
    parts = []
    words = set(re.findall(r"\w+", query.lower()))
    words |= {other for w in words for other in other_spellings(w)}  # "color": "colour" too
    for word in sorted(words, key=len, reverse=True):
        if word in STOPWORDS or (word.isascii() and len(word) < MIN_WORD_CHARS):
            continue
        if word.isascii() and word.isalpha() and len(word) > STEM_KEEP_CHARS + 1:
            parts.append(r"\b" + re.escape(word[:max(STEM_KEEP_CHARS, len(word) - 2)]) + r"\w*")
        elif word.isascii():  # a short word whole: "sep" (of September) marks no "separate"
            parts.append(r"\b" + re.escape(word) + r"\b")
        else:  # a run of a script without spaces, matched whole wherever it stands
            parts.append(re.escape(word))
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


class Printer:
    """Writes result lines to stdout, styled only when colour is on.

    Args:
        color: ``auto`` (a terminal, unless ``NO_COLOR``), ``always`` or ``never``.
        query: whose words ``marked`` highlights.
    """

    def __init__(self, color: ColorMode, query: str) -> None:
        tty = sys.stdout.isatty()
        self.console: Console | None = None
        if color == "always" or (color == "auto" and tty):
            console = Console(force_terminal=True, highlight=False, markup=False, emoji=False,
                              soft_wrap=True)
            self.console = None if console.no_color else console
        self.pattern = word_pattern(query)

    def marked(self, text: str, style: str = "") -> Text:
        """``text`` with the query's words in ``MATCH_STYLE``."""
        out = Text(text, style=style)
        if self.pattern is not None:
            out.highlight_regex(self.pattern, MATCH_STYLE)
        return out

    def line(self, text: Text) -> None:
        """Print one line: styled on a colour terminal, else exactly its plain text."""
        if self.console is None:
            click.echo(text.plain)
        else:
            self.console.print(text)
