"""The event a date is asked of, and the events a passage dates (pure functions).

"When was Harold Pembridge born?" asks the date of a birth; a passage whose dated sentences
tell only of a founding ("He founded Pembridge & Sons in 1921.") answers with the date of
another event, however well it covers the question's name. Event-typed temporal questions
are the classic case (TimeML's event classes, Pustejovsky et al., IWCS 2003; the event-time
pairs of TempEval, Verhagen et al., SemEval 2007): a date answers only when it is the date of
the event asked.

A few events that date people, organisations and products are told apart here, each by its
English words and its Chinese words (``EVENTS``): a birth, a death, a marriage, a founding, a
launch or release. Events that blur into each other for one thing are left out, so nothing is
decided for them: a building is founded, built, completed and opened (建立 / 始建 / 落成 /
开放) in answers a reader would accept for any of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

# event -> (English words, Chinese words); English matched as whole words, case-insensitive.
# "found" alone is left out (the past tense of "find": "When was the body found?").
EVENTS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    name: (re.compile(rf"\b(?:{en})\b", re.I), re.compile(zh)) for name, en, zh in (
        ("birth", r"born|birth|birthday|birthdate|née", r"出生|生于|诞生|生日|出世"),
        ("death", r"died|dies|die|death|dead|killed|passed away",
         r"逝世|去世|死于|病逝|身亡|辞世|遇害|卒于|死亡"),
        ("marriage", r"married|marry|marries|marriage|wedding|wed",
         r"结婚|成婚|婚礼|嫁给|迎娶"),
        ("founding", r"founded|founding|co-founded|established|establishment|incorporated|"
                     r"formed", r"成立|创立|创建|创办|组建|创设|建立"),
        ("launch", r"launch|launched|launches|released?|releasing|debut(?:ed)?|premiered?|"
                   r"published", r"发射|发布|推出|上市|首映|出版|发行|首发|问世"),
    )
}


def events_named(text: str) -> frozenset[str]:
    """The events of ``EVENTS`` that ``text`` names (English or Chinese words)."""
    return frozenset(name for name, (en, zh) in EVENTS.items()
                     if en.search(text) or zh.search(text))


def other_events_dated(query: str, sents: Sequence[str],
                       dated: Callable[[str], bool]) -> tuple[str, ...]:
    """The events a passage dates instead of the one a date question asks of, or ``()``.

    Args:
        query: a question asking for a date (``kb.retrieve.answer_types.gated_type``).
        sents: the passage's sentences.
        dated: whether a sentence holds a date that could answer (a novel filler).

    Returns:
        The events (names of ``EVENTS``, sorted) that the passage's dated sentences name when
        none of them names an event the question names; ``()`` when the question names no
        such event, no dated sentence names one, or one names the event asked (nothing is
        decided then).
    """
    asked = events_named(query)
    if not asked:
        return ()
    found: set[str] = set()
    for s in sents:
        named = events_named(s)
        if named and dated(s):
            if named & asked:
                return ()
            found |= named
    return tuple(sorted(found))
