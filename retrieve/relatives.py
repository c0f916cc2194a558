"""A relative, a manager or a life event asked of one person, told by a passage of another.

"Who is Marian Hargreave's husband?" over a note on her family that says "Tobias is married
to Priya Nandakumar": the passage names a marriage (``kb.retrieve.relations`` is satisfied),
but not Marian's. ``relative_elsewhere`` reads which person each sentence naming the
relation tells of; ``event_of_another`` does the same, in English, for the dated sentences
telling a birth or a death asked of a person ("When was Arthur Pallister born?" over "Edith
Pallister was born in 1938"). Pure functions; run them on passages in the question's script.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from kb.retrieve.answer_types import sentences
from kb.retrieve.crosslang import HAN
from kb.retrieve.events import events_named
from kb.retrieve.relations import ATTRIBUTES, PERSONAL, attributes_asked
from kb.retrieve.terms import is_stop
from kb.store.textindex import cut_words

NAME_CHARS = 120  # a person's name before "'s" is read within this many characters
_EN_NAME_BEFORE = re.compile(r"((?:[A-Z][\w.-]*\s+)*[A-Z][\w.-]*)\s*$")
_EN_NAME_AFTER = re.compile(r"\s+of\s+(?:the\s+)?((?:[A-Z][\w.-]*\s+)*[A-Z][\w.-]*)")
_PRONOUN = re.compile(r"\b(?:he|she|his|her|hers|him|they|their|them)\b|他|她|其", re.I)


def relative_elsewhere(query: str, text: str, context: str) -> tuple[str, ...]:
    """The relatives or role asked of a person that a passage names only of others.

    "Who is Marian Hargreave's husband?" over "Tobias is married to Priya Nandakumar": the
    passage names a marriage, not Marian's; 陈建国的妻子是谁 over 陈晓雯的丈夫叫刘伟 the same.
    A sentence naming the relation (by ``ATTRIBUTES``' loose words) tells of someone else
    when it does not write the person's name (a word of three letters at least; a Chinese
    name or its given name) and another name stands before the relation's word (Chinese:
    the relation written as another's, after 的; ``_of_another``); a pronoun, a line such as
    "Wife: Ana Silva" or a Chinese sentence without a subject may be of the person asked.
    Only a relation asked after a written name is read ("his wife" is not); run it on
    passages in the question's script (names are written in it).

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
        if said and all(_of_another(x, names, person) for x in said):
            out.append(rel)
    return tuple(out)


# capitalised words that name nobody: pronouns, determiners, a sentence's openers
_NOT_NAMES = frozenset("i my me he his him she her hers we our us you your they their them it "
                       "its whom who this that these those after before since when while "
                       "during".split())
_ZH_PRONOUNS = frozenset("他她其它")


def _of_another(sentence: str, names: re.Pattern[str], person: Sequence[str]) -> bool:
    """Whether a sentence names the relation as someone else's, not the person asked's.

    English: another name stands before the relation's first word ("Tobias is married to
    Priya"; not "She married Tom", "Wife: Ana Silva", "Married to Ana Silva since 2010").
    Chinese, which often leaves the subject out (邵雍之子, 胞弟是青木四郎: the article's
    person): only a relation written as another's, after 的 (陈晓雯的丈夫).
    """
    if _names_person(sentence, person):
        return False
    if HAN.fullmatch(person[0]):  # 他的女儿: a pronoun's is the person's
        return all(sentence[max(0, m.start() - 2):m.start()].endswith("的")
                   and sentence[max(0, m.start() - 2):m.start() - 1] not in _ZH_PRONOUNS
                   for m in names.finditer(sentence))
    first = names.search(sentence)
    head = sentence[:first.start()] if first else ""
    for w in reversed(re.findall(r"[^\W\d_][\w-]*", head)):  # the nearest decides:
        if w.lower() in _NOT_NAMES:  # "Ana Silva, his wife", "whom she married"
            return False
        if w[:1].isupper() and not is_stop(w):  # "Tobias is married to Priya"
            return True
    return False


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
        m = _EN_NAME_BEFORE.search(query[max(0, start - NAME_CHARS):start])  # linear
    elif asked.lower().startswith("the "):  # "the wife of Tom Becker" (not "of the CEO")
        m = _EN_NAME_AFTER.match(query[end:])
        if m and m.group(1).isupper():
            return ()
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
# a birth or a death: one person each (a marriage names two, the one asked and the spouse)
_LIFE_EVENTS = frozenset({"birth", "death"})
_PERSON_RUN = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+")  # "Edith Pallister"
_PLACE_BEFORE = re.compile(r"\b(?:in|at|of|from|near|to|on|into|the)\s+$", re.I)  # "in New York"
_TITLES = frozenset("mr mrs ms miss dr prof sir dame lord lady king queen prince princess "
                    "president general captain saint st".split())


def event_of_another(query: str, sents: Sequence[str], dated: Callable[[str], bool]
                     ) -> tuple[str, ...]:
    """The people a passage dates the birth or death asked of another person for, or ``()``.

    English questions only (jieba tags places and firms as people too often to say who a
    Chinese sentence is about).

    Args:
        query: a question asking when a person named in it was born or died ("When was
            Arthur Pallister born?").
        sents: the passage's sentences, in the question's script.
        dated: whether a text holds a date that could answer.

    Returns:
        The other people named (as written), when every dated sentence telling the event
        names someone else (a run of capitalised words, not after "in", "at", "of" ...: no
        place) and not the person asked; ``()`` when the question asks no such event of a
        named person, or a dated sentence names nobody else, holds a pronoun ("She was born
        in 1938": undecided), or names the one asked: the given name, or the surname alone
        or after a title ("Pallister was born", "President Obama"; a family shares the
        surname: "Edith Pallister" is someone else).
    """
    m = _EVENT_ASKED_OF.match(query)
    words = [w for w in m.group(1).split() if w.lower().rstrip(".") not in _TITLES] if m else []
    if not words or not events_named(query) & _LIFE_EVENTS:
        return ()
    asked = events_named(query) & _LIFE_EVENTS
    others: list[str] = []
    for sentence in sents:
        if not dated(sentence) or not events_named(sentence) & asked:
            continue
        if _PRONOUN.search(sentence) or _is_person(sentence, words[0], words[-1]):
            return ()
        named = [r.group() for r in _PERSON_RUN.finditer(sentence)
                 if not _PLACE_BEFORE.search(sentence[:r.start()]) and r.group() not in query]
        if not named:
            return ()
        others += named
    return tuple(dict.fromkeys(others))


def _is_person(sentence: str, given: str, surname: str) -> bool:
    """The given name written, or the surname alone or after a title (see above)."""
    if _names_person(sentence, (given,)):
        return True
    for m in re.finditer(rf"(?<![\w-]){re.escape(surname)}(?![\w-])", sentence):
        before = re.findall(r"[\w.'-]+", sentence[:m.start()])[-1:]
        if not before or not before[0][:1].isupper() or before[0].lower().rstrip(".") in _TITLES:
            return True
    return False
