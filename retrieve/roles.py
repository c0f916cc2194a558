"""Who does what to whom: a passage where the name asked of plays the other role (pure functions).

"What will replace the Lumo 3?" over "The Lumo 3 replaced the Lumo 2": the passage tells what
the Lumo 3 did, not what was done to it; "Who is Alice Moreau's manager?" over "Alice Moreau
is my former manager": Alice *is* a manager, nobody is named as hers. Both passages hold every
word of the question, and a cosine or a term count cannot see the roles swapped. Three
English question shapes are read:

* **the doer asked** ("Who founded Acme?", "What will replace the Lumo 3?", "Which company
  acquired Tidewell?"): a question word, an optional auxiliary, a verb, then a name;
* **the one done to asked** ("What did the Aurora Router 1 replace?"): a question word, an
  auxiliary, the name, then the verb;
* **the holder of a role asked** ("Who is Alice's manager?").

Each mention of the verb near the name puts the name on one side: the doer (before an active
verb: "Acme founded ...", or after "by": "replaced by the Lumo 4") or the one done to (after
an active verb: "... founded Acme", or before a passive one: "Acme was founded", "Tidewell,
acquired in 2019 by Orbis"); a relative clause between them ("Acme, which Jane founded") or a
pronoun after the verb ("... will replace it") decides nothing. A passage where every mention
puts the name on the side the question does not ask of has the roles swapped; so has one
where the name stands after the verb only as an owner ("Malcolm married Edgar's sister" for
"Who did Edgar marry?"); one that also writes the asked side, or where the verb never comes
near the name, is left to the model.
Verbs whose two sides play the same part ("marry", "meet", "merge") have no sides (only the
owner reading applies), and light verbs ("make", "keep", "get": "What makes Acme
different?") are not read. For a role, the passage must say the name *is* one ("Alice Moreau
is my former manager": a form of "be" right after the name) or is one in apposition
("Bohemond, Robert's son"), and never that the name *has* one ("Alice Moreau's manager",
"her manager", "the manager of Alice"). Chinese questions are not read (their word order
needs a parser).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Literal

from kb.store.textindex import normalise_word

Side = Literal["doer", "done_to", "undecided"]

_AUXILIARIES = "will would did does do can could has have had might may shall should must"
_AUX_WORD = "|".join(_AUXILIARIES.split())
_AUX = rf"(?:(?:{_AUX_WORD})\s+)?"
_NAME = r"([A-Z][\w-]*(?:\s+(?:[A-Z][\w-]*|\d+(?:\.\d+)?)\b)*)"  # "Henry VIII", "Lumo 3"
# "Who founded Acme?", "What will replace the Lumo 3?", "Which company acquired Tidewell?"
_DOER_ASKED = re.compile(rf"^\s*(?:[Ww]ho|[Ww]hat|[Ww]hich(?:\s+[a-z]+)?)\s+{_AUX}([a-z]+)\s+"
                         rf"(?:the\s+|a\s+|an\s+)?{_NAME}")
# "What did the Aurora Router 1 replace?", "Whom did Acme acquire in 2019?"
_DONE_TO_ASKED = re.compile(rf"^\s*(?:[Ww]ho|[Ww]hom|[Ww]hat|[Ww]hich(?:\s+[a-z]+)?)\s+"
                            rf"(?:{_AUX_WORD})\s+(?:the\s+)?{_NAME}\s+"
                            r"([a-z]+)\b")
# "Who is Alice Moreau's manager?", "Who was Henry's tutor?"
_HOLDER_ASKED = re.compile(r"^\s*[Ww]ho(?:'s|\s+is|\s+was|\s+are|\s+were)\s+((?:[A-Z][\w-]*\s+)*"
                           r"[A-Z][\w-]*)'s?\s+(?:[a-z]+\s+)?([a-z]+)\s*\??\s*$")
_BE = frozenset("is was were are be been being am 's".split())
# words after a question word that are no verb of the question: auxiliaries and copulas,
# determiners and pronouns, and light or causative verbs ("What makes Acme different?")
_NOT_VERBS = frozenset((_AUXILIARIES + " is was were are be been the a an of his her their its "
                        "this that these those make makes made keep keeps kept cause causes "
                        "caused let lets help helps helped get gets got take takes took give "
                        "gives gave bring brings brought see sees saw").split())
# verbs whose two sides play the same part: "Cnut married Emma" says whom Emma married
_SYMMETRIC = frozenset(normalise_word(w) for w in (
    "marry married wed meet met fight fought battle merge merged ally allied divorce divorced "
    "date dated partner partnered play played compete competed share shared tie tied "
    "border bordered neighbour neighbor").split())
# relatives owned: "married Edgar's sister" married the sister, not Edgar
_KIN_WORDS = frozenset("sister brother son daughter wife husband father mother child children "
                       "cousin uncle aunt niece nephew widow heir".split())  # not "parent" (firms)
# a word whose stem is a verb's but that is mostly another verb: "found" is "find" in the past
_HOMOGRAPHS = frozenset({"found", "bound", "ground", "wound"})
# the relation asked, told the other way round ("Alice reports to Bob")
_OTHER_WAY = re.compile(r"\breport(?:s|ed|ing)? to\b|\b(?:managed|supervised|led|coached) by\b|"
                        r"\bworks? (?:under|for)\b|"
                        r"\b(?:manages|supervises|leads) (?:her|him|them|(?-i:[A-Z]\w+))\b|"
                        r"\b(?:her|his|their) (?:own )?(?:boss|manager|supervisor)\b|\bwhose\b",
                        re.I)
_RELATIVE = frozenset("which that who whom whose where when".split())
_PRONOUN_OBJECT = frozenset("him her it them this that me us you".split())
_WORD = re.compile(r"[\w'-]+")
_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s+|\n+")
# a name and its verb (or role word) within eight words are one clause; an agent within ten
# words after a participle makes it passive ("founded in 2001 in Berlin by Jane Doe"). Set by
# hand on the reviews' and the trials' sentences, not fitted (too few questions of these shapes).
NEAR_WORDS = 8
BY_WORDS = 10


def roles_swapped(query: str, text: str) -> tuple[str, ...]:
    """The verb or role word whose sides a passage swaps against the question; ``()`` if none.

    Args:
        query: the question.
        text: the passage.

    Returns:
        ``(word,)``, the verb or role word as the question wrote it, when the question asks
        one side of a verb on a name (or the holder of a name's role) and every mention in
        the passage of that verb (role) near the name puts the name on the other side; else
        empty (another question shape, no mention near the name, or one fitting the
        question).
    """
    text = text.replace("\u2019", "'")
    # the question's shape: its pattern, the groups of its verb and name, the side that swaps
    for pattern, verb_at, name_at, swapped in ((_DOER_ASKED, 1, 2, "doer"),
                                               (_DONE_TO_ASKED, 2, 1, "done_to")):
        m = pattern.match(query)
        if m and m.group(verb_at) not in _NOT_VERBS:
            verb, name = m.group(verb_at), m.group(name_at).split()
            sides = _sides(text, verb, name)
            return (verb,) if sides == {swapped} or not sides and _owner_only(
                query, m.end(name_at), text, verb, name) else ()
    holder = _HOLDER_ASKED.match(query)
    if holder and _name_is_role(text, holder.group(1).split(), holder.group(2).lower()):
        return (holder.group(2),)
    return ()


def _owner_only(query: str, name_end: int, text: str, verb: str, name: list[str]) -> bool:
    """The name stands after the verb only as an owner, never itself, in every mention.

    "Who did Edgar marry?" over "Malcolm married Edgar's sister": the verb's other side is
    the name's relative. Only for a verb whose sides play one part (marry, meet) or a
    relative owned ("Orbis bought Tidewell's share capital" answers "Who bought Tidewell?";
    "Dana runs Acme's day-to-day business" "Who runs Acme?"), after the verb ("Acme's founder,
    Jane, founded it in 2001" decides nothing), and not when the question writes the name as
    an owner itself ("Who founded Acme's lab?").
    """
    if query[name_end:name_end + 2] in ("'s", "\u2019s"):
        return False
    owners = {f"{name[0]}'s", f"{name[-1]}'s", f"{name[-1]}'"}
    owned = False
    for words, spans, i in _mentions(text, name, _forms(verb)):
        if any(abs(a - i) <= NEAR_WORDS for a, _ in spans):
            return False
        after = words[i + 1:i + 1 + NEAR_WORDS]
        owned |= any(w in owners and (normalise_word(verb) in _SYMMETRIC or _kin_follows(
            after[j + 1:j + 3])) for j, w in enumerate(after))
    return owned


def _kin_follows(words: list[str]) -> bool:
    """A relative's word within the two words after an owner ("Edgar's (younger) sister")."""
    return any(w.lower().rstrip("s") in _KIN_WORDS for w in words)


def _spans(words: list[str], name: list[str]) -> list[tuple[int, int]]:
    """Where ``name`` stands in ``words``: (start, end) word spans, in order.

    A person's name of several words may stand as its first or its last word ("Tobias" or
    "Hargreave" for "Tobias Hargreave"); a name holding a number only whole ("Lumo 3").
    """
    n = len(name)
    whole = [(i, i + n) for i in range(len(words) - n + 1) if words[i:i + n] == name]
    if n == 1 or any(w[:1].isdigit() for w in name):
        return whole
    covered = {j for a, b in whole for j in range(a, b)}
    parts = [(i, i + 1) for i, w in enumerate(words)
             if w in (name[0], name[-1]) and i not in covered]
    return sorted(whole + parts)


def _forms(verb: str) -> frozenset[str]:
    """The forms of the question's verb a passage may write, not its nouns ("replacement").

    "replace": replaces, replaced, replacing; "acquired": acquire, acquires, acquiring.
    """
    v = verb.lower()
    if v.endswith("ied"):
        bases = {v[:-3] + "y"}
    elif v.endswith("ed"):
        bases = {v[:-2], v[:-1]}
    elif v.endswith("es"):
        bases = {v[:-2], v[:-1]}
    elif v.endswith("s"):
        bases = {v[:-1]}
    else:
        bases = {v}
    out = {v}
    for b in bases:
        out |= {b, b + "s", b + "es", b + "d", b + "ed", b + "ing"}
        if b.endswith("e"):
            out.add(b[:-1] + "ing")
        if b.endswith("y"):
            out |= {b[:-1] + "ies", b[:-1] + "ied"}
    return frozenset(out - (_HOMOGRAPHS - {v}))


def _sides(text: str, verb: str, name: list[str]) -> set[Side]:
    """The sides the name takes of ``verb`` in each mention near it (empty: none near)."""
    if normalise_word(verb) in _SYMMETRIC:
        return set()
    sides: set[Side] = set()
    for words, spans, i in _mentions(text, name, _forms(verb)):
        after = [a for a, _ in spans if i < a <= i + NEAR_WORDS]
        before = [b for _, b in spans if i - NEAR_WORDS < b <= i]
        if after:  # each side it is named on: "The Fresnel lens was invented by Augustin
            sides.add(_side(words, i, after[0], None))  # Fresnel" names both
        if before:
            sides.add(_side(words, i, None, before[-1]))
    return sides


def _mentions(text: str, name: list[str], forms: frozenset[str] | set[str]
              ) -> Iterator[tuple[list[str], list[tuple[int, int]], int]]:
    """Each word of ``forms`` in ``text``: its sentence's words, the name's spans, its index.

    Yields:
        (the sentence's words, where ``name`` stands among them (``_spans``), the word's
        index).
    """
    for sentence in _SENTENCE_END.split(text):
        words = _WORD.findall(sentence)
        spans = _spans(words, name)
        yield from ((words, spans, i) for i, w in enumerate(words) if w.lower() in forms)


def _side(words: list[str], i: int, after: int | None, before_end: int | None) -> Side:
    """The name's side of the verb at ``words[i]``.

    The name starts at ``after`` (past the verb) or ends just before ``before_end`` (ahead of
    it).
    """
    lowered = [w.lower() for w in words]
    if lowered[i + 1:i + 2] and lowered[i + 1] in _PRONOUN_OBJECT:
        return "undecided"  # "the Lumo 4 will replace it"
    if after is not None:  # "... founded Acme"; "replaced by the Lumo 4"
        return "doer" if "by" in lowered[max(i + 1, after - 2):after] else "done_to"
    between = words[before_end or 0:i]
    if {w.lower() for w in between} & _RELATIVE or any(w[:1].isupper() for w in between):
        return "undecided"  # "Acme, which Jane Doe founded"; "Tidewell, the maker Orbis bought"
    previous = [w for w in lowered[max(0, i - 2):i] if not w.endswith("ly")][-1:]
    participle = lowered[i].endswith(("ed", "en"))
    if participle and (previous and previous[0] in _BE
                       or "by" in lowered[i + 1:i + 1 + BY_WORDS]):
        return "done_to"  # "Acme was founded", "Acme, founded in 2001 in Berlin by Jane Doe"
    return "doer"


def _name_is_role(text: str, name: list[str], role: str) -> bool:
    """The name is said to be ``role`` and nothing is said to be the name's ``role``.

    A passage telling of the relation the other way round ("reports to Bob", "Bob manages
    her", "whose own manager is Bob") decides nothing.
    """
    if _OTHER_WAY.search(text):
        return False
    owners = {f"{name[0]}'s", f"{name[-1]}'s", f"{name[-1]}'", "her", "his", "their"}
    swapped = False
    for words, spans, i in _mentions(text, name, {role, role + "s"}):
        if owners & set(words[max(0, i - 3):i]) or words[i + 1:i + 2] == ["of"] and (
                words[i + 2:i + 3] in ([name[0]], [name[-1]])):
            return False  # "Alice's manager", "her manager", "the manager of Alice"
        swapped |= any(i - NEAR_WORDS <= a < i and words[b:b + 1] and (
            words[b].lower() in _BE or b < i <= b + 2 and words[b].endswith(("'s", "'")))
            for a, b in spans)  # "Alice is my manager"; "Bohemond, Robert's son"
    return swapped
