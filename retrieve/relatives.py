"""A relative, a manager or a life event asked of one person, told by a passage of another.

"Who is Marian Hargreave's husband?" over a note on her family that says "Tobias is married
to Priya Nandakumar": the passage names a marriage (``kb.retrieve.relations`` is satisfied),
but not Marian's. ``relative_elsewhere`` reads which person each sentence naming the
relation tells of; ``event_of_another`` does the same for the dated sentences telling a birth,
a death or a marriage asked of a person ("When was Arthur Pallister born?" over "Edith
Pallister was born in 1938"). Pure functions; run them on passages in the question's script.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from kb.retrieve.answer_types import posseg, sentences
from kb.retrieve.crosslang import HAN
from kb.retrieve.events import events_named
from kb.retrieve.relations import ATTRIBUTES, PERSONAL, attributes_asked
from kb.retrieve.subject import han_names
from kb.store.textindex import cut_words

_EN_NAME_BEFORE = re.compile(r"((?:[A-Z][\w.-]*\s+)*[A-Z][\w.-]*)\s*$")
_EN_NAME_AFTER = re.compile(r"\s+of\s+(?:the\s+)?((?:[A-Z][\w.-]*\s+)*[A-Z][\w.-]*)")
_PRONOUN = re.compile(r"\b(?:he|she|his|her|hers|him|they|their|them)\b|他|她|其", re.I)


def relative_elsewhere(query: str, text: str, context: str) -> tuple[str, ...]:
    """The relatives or role asked of a person that a passage names only of others.

    "Who is Marian Hargreave's husband?" over "Tobias is married to Priya Nandakumar": the
    passage names a marriage, not Marian's; 陈建国的妻子是谁 over 陈晓雯的丈夫叫刘伟 the same.
    A sentence naming the relation (by ``ATTRIBUTES``' loose words) tells of the person asked
    when it writes a word of the person's name (three letters at least; a Chinese name or its
    given name) or a personal pronoun right after a sentence (or the title) naming the person
    ("Marian ... lives in Leeds. Her son, Tobias ..."); in Chinese, also one naming it not
    as another's (a subject left out: 邵雍之子). Only a relation asked after a written name is
    read ("his wife" is not); run it on passages in the question's script (names are
    written in it).

    Args:
        query: the question.
        text: the passage.
        context: its document's title and heading path.

    Returns:
        The relations asked (keys of ``ATTRIBUTES``) that some sentence names while none
        names them of the person asked; empty otherwise.
    """
    out = []
    for rel in attributes_asked(query):
        if rel not in PERSONAL:
            continue
        ask, names = ATTRIBUTES[rel]
        m = ask.search(query)
        if m is None:
            continue
        person = _person_asked(query, m.start(), m.end())
        if not person:
            continue
        sents = [context, *sentences(text)]  # a pronoun stands for the sentence before's
        said = [(i, x) for i, x in enumerate(sents) if names.search(x)]
        if said and not any(_names_person(x, person) or _PRONOUN.search(x) and (
                _names_person(sents[i - 1] if i else "", person) or i == 1 and _names_person(
                    context, person))
                            or HAN.fullmatch(person[0]) and not _of_another(x, names)
                            for i, x in said):
            out.append(rel)
    return tuple(out)


def _of_another(sentence: str, names: re.Pattern[str]) -> bool:
    """Whether a Chinese sentence names the relation only after another's 的 (陈晓雯的丈夫).

    A Chinese sentence often leaves its subject out (邵雍之子, 胞弟是青木四郎: the article's
    person is meant), so only a relation written as someone's tells of someone else.
    """
    return all(m.start() > 0 and sentence[m.start() - 1] == "的" for m in names.finditer(sentence))


def _person_asked(query: str, start: int, end: int) -> tuple[str, ...]:
    """The words naming the person a relation is asked of (the match at ``start:end``)."""
    asked = query[start:end]
    if asked.startswith("的"):  # 陈建国的妻子: jieba's last word before it, a Han name
        words = cut_words(query[:start])
        last = words[-1] if words else ""
        if 2 <= len(last) <= 4 and HAN.fullmatch(last):
            return (last, last[1:]) if len(last) == 3 else (last,)
        return ()
    if asked.startswith("'"):  # "Marian Hargreave's husband"
        m = _EN_NAME_BEFORE.search(query[:start])
    elif asked.lower().startswith("the "):  # "the wife of Tom Becker"
        m = _EN_NAME_AFTER.match(query[end:])
    else:
        return ()  # "his wife": nobody named
    return tuple(w for w in m.group(1).split() if len(w) >= 3) if m else ()


def _names_person(text: str, person: Sequence[str]) -> bool:
    """Whether ``text`` writes one of ``person``'s words (whole words in Latin script)."""
    return any((w in text) if HAN.fullmatch(w) else
               re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text) is not None
               for w in person)


# "When was Arthur Pallister born?", "When did Ada Verhoeven die?" (the person asked)
_EVENT_ASKED_OF = re.compile(r"^\s*(?:[Ww]hen|[Ii]n what year|[Ww]hat year|[Ww]hich year)\s+(?:was|"
                             r"were|did|is)\s+((?:[A-Z][\w.'-]*\s+)*[A-Z][\w.'-]*)\s+[a-z]")
_LIFE_EVENTS = frozenset({"birth", "death", "marriage"})
_PERSON_RUN = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+")  # "Edith Pallister"
_PERSON_TAGS = frozenset({"nr", "nrfg", "nrt"})  # jieba's person names (not 绍兴, a place)


def event_of_another(query: str, sents: Sequence[str], dated: Callable[[str], bool]
                     ) -> tuple[str, ...]:
    """The people a passage dates the life event asked of another person for, or ``()``.

    Args:
        query: a question asking the date of a birth, a death or a marriage of a person
            named in it ("When was Arthur Pallister born?", 吴秀兰是哪一年出生的).
        sents: the passage's sentences.
        dated: whether a text holds a date that could answer.

    Returns:
        The other people named (as written), when every dated sentence telling the event
        names someone and none names the person asked (the given name, for a name of two
        words or more: a family's notes share the surname); ``()`` when the question asks
        no such event of a named person, or a dated sentence tells it of nobody named or of
        someone a pronoun stands for ("She was born in 1938": undecided) or of the one asked.
    """
    asked = events_named(query) & _LIFE_EVENTS
    person = _event_person(query) if asked else ()
    others: list[str] = []
    for sentence in sents:
        if not person or not dated(sentence) or not events_named(sentence) & asked:
            continue
        if _names_person(sentence, person) or _PRONOUN.search(sentence):
            return ()  # the one asked, or someone a pronoun stands for ("She married ...")
        named = [p.word for p in posseg().cut(sentence) if p.flag in _PERSON_TAGS
                 and len(p.word) >= 2] if HAN.search(sentence) else _PERSON_RUN.findall(sentence)
        if not named:
            return ()
        others += named
    return tuple(dict.fromkeys(others))


def _event_person(query: str) -> tuple[str, ...]:
    """The distinguishing words of the person a life event is asked of (see above)."""
    m = _EVENT_ASKED_OF.match(query)
    if m:
        words = m.group(1).split()
        return (words[0],) if len(words) >= 2 and len(words[0]) >= 3 else tuple(words)
    names = [w for w in han_names(query) if 2 <= len(w) <= 4]
    return (names[0], names[0][1:]) if names and len(names[0]) == 3 else tuple(names[:1])
