"""A word's other spelling, British or American ("colour" / "color").

Snowball stems the two spellings of one word apart ("organisation" -> ``organis``,
"organization" -> ``organiz``; "colour", "color"), so a question in one spelling found no
passage written in the other. The pairs are breame's attested list (Apache-2.0; 1,730 British
words with their American spelling and 1,706 the other way, inflections listed one by one),
not rules: rules that rewrite "-our" or "-ise" turn other words into these ("timbre" is no
spelling of "timber"), and their stems land on unrelated words. A word the list does not hold
has no other spelling; "advisor" and "adviser" are both American and British, so neither.

A month's or a weekday's name has its abbreviation as another spelling: tables, timetables
and logs write "24 Feb" and "Mon" where a question says "24 February" and "Monday". Only that
way round: a question's "APR" (a loan's rate) or "Jan" (a name) is no month, so an
abbreviation has no other spelling. Left out are the abbreviations that are English words of
their own ("mar", "may", "wed", "sat", "sun"): "the committee sat" is no Saturday.
"""

from __future__ import annotations

from functools import lru_cache

# a pair of the list that names two units, not one unit's spellings: a ton (2,000 or 2,240
# pounds) is no tonne (1,000 kg); "40 tonnes" answers no question in tons
_OTHER_UNITS = frozenset({"ton", "tons", "tonne", "tonnes"})


# a calendar name -> its abbreviations as dates in tables write them (one way: see above)
_CALENDAR = {"january": ("jan",), "february": ("feb",), "april": ("apr",), "june": ("jun",),
             "july": ("jul",), "august": ("aug",), "september": ("sep", "sept"),
             "october": ("oct",), "november": ("nov",), "december": ("dec",),
             "monday": ("mon",), "tuesday": ("tue", "tues"),
             "thursday": ("thu", "thur", "thurs"), "friday": ("fri",)}


@lru_cache(maxsize=1)
def _other_spellings() -> dict[str, tuple[str, ...]]:
    """British word -> American spelling and back (no word is both); calendar names too."""
    from breame.data.spelling_constants import (
        AMERICAN_ENGLISH_SPELLINGS,
        BRITISH_ENGLISH_SPELLINGS,
    )

    pairs = {**BRITISH_ENGLISH_SPELLINGS, **AMERICAN_ENGLISH_SPELLINGS}
    return {w: (o,) for w, o in pairs.items() if w not in _OTHER_UNITS
            and o not in _OTHER_UNITS} | _CALENDAR


def other_spellings(word: str) -> tuple[str, ...]:
    """``word``'s other spellings in lower case, or ``()`` when the lists hold none.

    "Colours" -> ("colors",), "organization" -> ("organisation",), "grey" -> ("gray",),
    "February" -> ("feb",), "September" -> ("sep", "sept"); "woman", "advisor", "Feb", "APR",
    "Saturday" -> (). Callers stem them as the index does
    (``kb.store.textindex.normalise_word``): some pairs stem alike ("travelled" /
    "traveled"), and search nothing more.

    Args:
        word: one word as written (any case).
    """
    return _other_spellings().get(word.casefold(), ())
