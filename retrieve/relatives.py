"""A relative or a manager asked of one person, named by a passage only of another.

"Who is Marian Hargreave's husband?" over a note on her family that says "Tobias is married
to Priya Nandakumar": the passage names a marriage (``kb.retrieve.relations`` is satisfied),
but not Marian's. ``relative_elsewhere`` reads which person each sentence naming the
relation tells of (pure functions).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kb.retrieve.answer_types import sentences
from kb.retrieve.crosslang import HAN
from kb.retrieve.relations import ATTRIBUTES, PERSONAL, attributes_asked
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
    given name) or a personal pronoun while the passage or its title names the person ("Her
    son, Tobias ..."); in Chinese, also one naming it not as another's (a subject left out:
    邵雍之子). Only a relation asked after a written name is read ("his wife" is not); run it
    on passages in the question's script (names are written in it).

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
        said = [x for x in (*sentences(text), context) if names.search(x)]
        named = _names_person(f"{text}\n{context}", person)
        if said and not any(_names_person(x, person) or named and _PRONOUN.search(x)
                            or HAN.fullmatch(person[0]) and not _of_another(x, names)
                            for x in said):
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
